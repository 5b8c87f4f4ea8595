@_spi(Layouts) import InstarModel
import Yams

/// Reads the naming keys of model files (``StoredNames``) and the `raw:` list (``RawSQL``).
///
/// Where each naming key was written goes into the model's locations (`Entity#table`,
/// `Entity.property#column`, `Entity.property#joinTable`, `Entity#index:<name>`,
/// `Entity#unique:<n>`), so that the layout can report a name that collides at the key's
/// `file:line:column`.
enum StoredNamesReader {
    static let entityKeys = ["table", "primaryKey", "autoincrement", "tableSQL", "columnOrder", "primaryKeyConstraint", "compositeKey"]
    static let columnKeys = ["column", "columnType", "notNull", "onDelete", "columnSQL", "constraint"]
    static let linkKeys = ["joinTable"]
    static let rawKeys = ["kind", "name", "table", "sql", "reason"]

    static func entityKey(
        _ pair: (key: String, keyNode: Node, value: Node), into entity: inout Entity,
        locations: inout [String: SourceLocation], walker: inout YAMLWalker
    ) {
        let name = entity.name
        switch pair.key {
        case "table":
            entity.stored.table = walker.string(pair.value, what: "table", entity: name)
            locations["\(name)#table"] = walker.source.location(of: pair.value)
        case "primaryKey":
            entity.stored.primaryKey = walker.string(pair.value, what: "primaryKey", entity: name)
            locations["\(name)#primaryKey"] = walker.source.location(of: pair.value)
        case "autoincrement":
            entity.stored.autoincrement = walker.bool(pair.value, what: "autoincrement", entity: name) ?? false
            locations["\(name)#autoincrement"] = walker.source.location(of: pair.value)
        case "primaryKeyConstraint":
            entity.stored.primaryKeyConstraint = walker.string(pair.value, what: "primaryKeyConstraint", entity: name)
            locations["\(name)#primaryKeyConstraint"] = walker.source.location(of: pair.value)
        case "compositeKey":
            entity.stored.compositeKey = walker.stringList(pair.value, what: "compositeKey", entity: name)
            locations["\(name)#compositeKey"] = walker.source.location(of: pair.value)
        case "tableSQL":
            entity.stored.tableSQL = walker.stringList(pair.value, what: "tableSQL", entity: name)
            locations["\(name)#tableSQL"] = walker.source.location(of: pair.value)
        case "columnOrder":
            entity.stored.columnOrder = walker.stringList(pair.value, what: "columnOrder", entity: name)
            locations["\(name)#columnOrder"] = walker.source.location(of: pair.value)
        default: break
        }
    }

    static func columnKey(
        _ pair: (key: String, keyNode: Node, value: Node), into column: inout StoredNames.Column, entity: String,
        property: String, locations: inout [String: SourceLocation], walker: inout YAMLWalker
    ) {
        if pair.key != "column" { locations["\(entity).\(property)#\(pair.key)"] = walker.source.location(of: pair.value) }
        switch pair.key {
        case "column":
            column.name = walker.string(pair.value, what: "column", entity: entity, property: property)
            locations["\(entity).\(property)#column"] = walker.source.location(of: pair.value)
        case "columnType": column.type = walker.string(pair.value, what: "columnType", entity: entity, property: property)
        case "notNull": column.notNull = walker.bool(pair.value, what: "notNull", entity: entity, property: property) ?? false
        case "onDelete": column.onDelete = walker.string(pair.value, what: "onDelete", entity: entity, property: property)
        case "columnSQL": column.sql = walker.string(pair.value, what: "columnSQL", entity: entity, property: property)
        case "constraint": column.constraint = walker.string(pair.value, what: "constraint", entity: entity, property: property)
        default: break
        }
    }

    /// `joinTable: {name: track_artist, columns: [track_id, artist_id], index: track_artist_artist_idx}`.
    static func joinTable(
        _ pair: (key: String, keyNode: Node, value: Node), entity: String, property: String,
        locations: inout [String: SourceLocation], walker: inout YAMLWalker
    ) -> StoredNames.JoinTable? {
        let pairs = walker.pairs(pair.value, what: "joinTable", entity: entity)
        walker.checkKeys(
            pairs, allowed: ["name", "columns", "index", "onDelete", "columnOrder", "primaryKeyConstraint"], what: "a joinTable", entity: entity, property: property)
        locations["\(entity).\(property)#joinTable"] = walker.source.location(of: pair.value)
        var name: String?
        var columns: [String] = []
        var index: String?
        var onDelete: [String] = []
        var columnOrder: [String] = []
        var keyName: String?
        for item in pairs {
            switch item.key {
            case "name": name = walker.string(item.value, what: "joinTable name", entity: entity, property: property)
            case "columns": columns = walker.stringList(item.value, what: "joinTable columns", entity: entity)
            case "index": index = walker.string(item.value, what: "joinTable index", entity: entity, property: property)
            case "onDelete": onDelete = walker.stringList(item.value, what: "joinTable onDelete", entity: entity)
            case "columnOrder": columnOrder = walker.stringList(item.value, what: "joinTable columnOrder", entity: entity)
            case "primaryKeyConstraint":
                keyName = walker.string(item.value, what: "joinTable primaryKeyConstraint", entity: entity, property: property)
            default: break
            }
        }
        guard let name, columns.count == 2, onDelete.isEmpty || onDelete.count == 2 else {
            walker.report(
                .invalidValue, "joinTable needs a name and two columns", at: pair.value, entity: entity, property: property,
                hint: "joinTable: {name: track_artist, columns: [track_id, artist_id], onDelete: [CASCADE, CASCADE]} (this side's column first; onDelete is optional)")
            return nil
        }
        var joinTable = StoredNames.JoinTable(name: name, columns: columns, index: index, onDelete: onDelete)
        joinTable.columnOrder = columnOrder
        joinTable.primaryKeyConstraint = keyName
        return joinTable
    }

    /// Names of unique indexes from the long form of `unique:` items (`{on: [a, b], name: ix}`).
    static func uniqueIndexNames(
        _ node: Node, into entity: inout Entity, locations: inout [String: SourceLocation], walker: inout YAMLWalker
    ) {
        guard let sequence = node.sequence else { return }
        for item in sequence {
            guard let mapping = item.mapping else { continue }
            let pairs = walker.pairs(item, what: "a uniqueness constraint", entity: entity.name)
            walker.checkKeys(pairs, allowed: ["on", "name", "constraint"], what: "a uniqueness constraint", entity: entity.name)
            guard let on = mapping["on"] else { continue }
            let properties = walker.stringList(on, what: "a uniqueness constraint", entity: entity.name)
            if let node = mapping["constraint"], let constraint = walker.string(node, what: "constraint", entity: entity.name) {
                entity.stored.uniqueConstraintNames[properties] = constraint
                locations["\(entity.name)#constraint:\(constraint)"] = walker.source.location(of: node)
            }
            guard let nameNode = mapping["name"], let name = walker.string(nameNode, what: "name", entity: entity.name)
            else { continue }
            entity.stored.uniqueIndexNames[properties] = name
            locations["\(entity.name)#unique:\(name)"] = walker.source.location(of: nameNode)
        }
    }

    /// `raw:` — a list of `{kind: view, name: v, table: t, sql: "CREATE VIEW …", reason: "…"}`.
    static func rawSQL(_ node: Node, walker: inout YAMLWalker) -> [RawSQL] {
        guard let sequence = node.sequence else {
            walker.report(.invalidValue, "raw must be a list of schema objects", at: node)
            return []
        }
        var result: [RawSQL] = []
        for item in sequence {
            let pairs = walker.pairs(item, what: "a raw schema object")
            walker.checkKeys(pairs, allowed: rawKeys, what: "a raw schema object")
            var values: [String: String] = [:]
            for pair in pairs { values[pair.key] = walker.string(pair.value, what: pair.key) }
            guard let kindText = values["kind"], let kind = RawSQL.Kind(rawValue: kindText), let name = values["name"],
                let sql = values["sql"]
            else {
                walker.report(
                    .invalidValue, "a raw schema object needs kind, name and sql", at: item,
                    hint: "kinds: \(RawSQL.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
                continue
            }
            result.append(RawSQL(kind: kind, name: name, table: values["table"] ?? name, sql: sql, reason: values["reason"]))
        }
        return result
    }
}
