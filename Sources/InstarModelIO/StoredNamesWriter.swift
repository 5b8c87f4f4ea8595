@_spi(Layouts) import InstarModel

/// Writes naming keys (``StoredNames``) and the `raw:` list, in YAML and as JSON objects, so that
/// ``ModelFileReader`` reads back exactly what was written.
extension ModelFileWriter {
    static func entityNamingLines(_ stored: StoredNames.Entity) -> [String] {
        var lines: [String] = []
        if let table = stored.table { lines.append("table: \(YAMLText.scalar(table))") }
        if let key = stored.primaryKey { lines.append("primaryKey: \(YAMLText.scalar(key))") }
        if stored.autoincrement { lines.append("autoincrement: true") }
        if let name = stored.primaryKeyConstraint { lines.append("primaryKeyConstraint: \(YAMLText.scalar(name))") }
        if !stored.compositeKey.isEmpty { lines.append("compositeKey: \(YAMLText.flowList(stored.compositeKey))") }
        if !stored.columnOrder.isEmpty { lines.append("columnOrder: \(YAMLText.flowList(stored.columnOrder))") }
        if !stored.tableSQL.isEmpty {
            lines.append("tableSQL:")
            lines += stored.tableSQL.map { "  - \(YAMLText.quoted($0))" }
        }
        return lines
    }

    static func uniqueItem(_ properties: [String], _ stored: StoredNames.Entity) -> String {
        if let constraint = stored.uniqueConstraintNames[properties] {
            return "{on: \(YAMLText.flowList(properties)), constraint: \(YAMLText.flowScalar(constraint))}"
        }
        guard let name = stored.uniqueIndexNames[properties] else { return YAMLText.flowList(properties) }
        return "{on: \(YAMLText.flowList(properties)), name: \(YAMLText.flowScalar(name))}"
    }

    static func columnNamingLines(_ stored: StoredNames.Column) -> [String] {
        var lines: [String] = []
        if let name = stored.name { lines.append("  column: \(YAMLText.scalar(name))") }
        if let type = stored.type { lines.append("  columnType: \(type.isEmpty ? "\"\"" : YAMLText.scalar(type))") }
        if stored.notNull { lines.append("  notNull: true") }
        if let action = stored.onDelete { lines.append("  onDelete: \(YAMLText.scalar(action))") }
        if let sql = stored.sql { lines.append("  columnSQL: \(YAMLText.quoted(sql))") }
        if let constraint = stored.constraint { lines.append("  constraint: \(YAMLText.scalar(constraint))") }
        return lines
    }

    static func rawLines(_ raw: [RawSQL]) -> [String] {
        guard !raw.isEmpty else { return [] }
        var lines = ["raw:"]
        for object in raw {
            lines.append("  - kind: \(object.kind.rawValue)")
            lines.append("    name: \(YAMLText.scalar(object.name))")
            if object.table != object.name { lines.append("    table: \(YAMLText.scalar(object.table))") }
            if let reason = object.reason { lines.append("    reason: \(YAMLText.scalar(reason))") }
            lines.append("    sql: \(YAMLText.quoted(object.sql))")
        }
        return lines
    }

    static func entityNaming(_ stored: StoredNames.Entity) -> [String: Any] {
        var o: [String: Any] = [:]
        if let table = stored.table { o["table"] = table }
        if let key = stored.primaryKey { o["primaryKey"] = key }
        if stored.autoincrement { o["autoincrement"] = true }
        if let name = stored.primaryKeyConstraint { o["primaryKeyConstraint"] = name }
        if !stored.compositeKey.isEmpty { o["compositeKey"] = stored.compositeKey }
        if !stored.columnOrder.isEmpty { o["columnOrder"] = stored.columnOrder }
        if !stored.tableSQL.isEmpty { o["tableSQL"] = stored.tableSQL }
        return o
    }

    static func columnNaming(_ stored: StoredNames.Column) -> [String: Any] {
        var o: [String: Any] = [:]
        if let name = stored.name { o["column"] = name }
        if let type = stored.type { o["columnType"] = type }
        if stored.notNull { o["notNull"] = true }
        if let action = stored.onDelete { o["onDelete"] = action }
        if let sql = stored.sql { o["columnSQL"] = sql }
        if let constraint = stored.constraint { o["constraint"] = constraint }
        return o
    }

    static func rawObject(_ raw: RawSQL) -> [String: Any] {
        var o: [String: Any] = ["kind": raw.kind.rawValue, "name": raw.name, "sql": raw.sql]
        if raw.table != raw.name { o["table"] = raw.table }
        if let reason = raw.reason { o["reason"] = reason }
        return o
    }
}
