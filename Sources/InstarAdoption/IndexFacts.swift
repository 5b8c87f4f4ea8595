import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// An explicit index (`CREATE INDEX`) of an existing database, and whether a model can express it:
/// plain columns in binary collation, no `WHERE` clause, and for a unique one no descending column.
struct IndexFacts {
    var name: String
    var table: String
    var elements: [SchemaIndex.Element]
    var isUnique: Bool
    /// Why it must be kept as raw SQL; empty when a model can express it.
    var rawReasons: [String]

    static func readAll(_ db: Database, objects: [RawSQL]) throws -> [IndexFacts] {
        var result: [IndexFacts] = []
        for object in objects where object.kind == .index {
            let list = try Row.fetchOne(
                db, sql: "SELECT * FROM pragma_index_list(?) WHERE name = ?", arguments: [object.table, object.name])
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", arguments: [object.name])
            var reasons: [String] = []
            if (list?["partial"] as Int?) == 1 { reasons.append("partial index (WHERE)") }
            if rows.contains(where: { ($0["cid"] as Int) < 0 }) { reasons.append("index on an expression") }
            if rows.contains(where: { ($0["coll"] as String?)?.uppercased() != "BINARY" }) { reasons.append("COLLATE clause") }
            let elements = rows.map {
                SchemaIndex.Element(column: ($0["name"] as String?) ?? "", descending: ($0["desc"] as Int) != 0)
            }
            let isUnique = (list?["unique"] as Int?) == 1
            if isUnique, elements.contains(where: \.descending) { reasons.append("unique index with a descending column") }
            result.append(
                IndexFacts(name: object.name, table: object.table, elements: elements, isUnique: isUnique, rawReasons: reasons))
        }
        return result
    }
}

/// How columns of an existing table become attributes: type by SQLite's affinity rules, default as
/// text that the layout turns back into the very same value.
enum ImportedColumns {
    static func attributeType(forDeclared declared: String) -> AttributeType {
        let t = declared.uppercased()
        if t.contains("INT") { return .integer64 }
        if t.contains("BOOL") { return .boolean }
        if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") { return .string }
        if t.contains("BLOB") || t.isEmpty { return .binary }
        if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") { return .double }
        return .decimal
    }

    enum Default: Equatable {
        case none
        case text(String)
        case impossible
    }

    static func defaultText(_ value: SQLValue?, for type: AttributeType) -> Default {
        guard let value, value != .null else { return .none }
        switch (type, value) {
        case (.integer64, .integer(let i)): return .text(String(i))
        case (.integer64, .real(let d)) where d == d.rounded() && abs(d) < 9e18: return .text(String(Int64(d)))
        case (.boolean, .integer(let i)) where i == 0 || i == 1: return .text(String(i))
        case (.string, .text(let s)): return .text(s)
        case (.string, .integer(let i)): return .text(String(i))
        case (.double, .integer(let i)), (.decimal, .integer(let i)): return .text(String(i))
        case (.double, .real(let d)), (.decimal, .real(let d)): return .text("\(d)")
        default: return .impossible
        }
    }

    /// Defaults of non-key columns that no attribute default can reproduce.
    static func inexpressibleDefaults(_ table: TableFacts) -> [String] {
        let fkColumns = Set(table.foreignKeys.flatMap(\.from))
        return table.definition.columns.compactMap { column in
            guard !column.isPrimaryKey, !fkColumns.contains(column.name) else { return nil }
            let type = attributeType(forDeclared: column.declaredType)
            guard defaultText(column.defaultValue, for: type) == .impossible else { return nil }
            return "default \(column.defaultValue?.literal ?? "") of '\(column.name)' (\(column.declaredType))"
        }
    }

    /// The declared type the layout writes for an attribute type, to tell when `columnType:` is needed.
    static func layoutType(of type: AttributeType) -> String {
        let probe = Attribute(name: "probe", type: type)
        return ((try? PlainSQLLayout().columnType(of: probe, entity: "")) ?? nil)?.rawValue ?? ""
    }
}
