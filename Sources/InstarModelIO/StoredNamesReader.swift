import InstarModel
import Yams

/// Reads the naming keys of model files (``StoredNames``) and the `raw:` list (``RawSQL``).
///
/// Where each naming key was written goes into the model's locations (`Entity#table`,
/// `Entity.property#column`, `Entity.property#joinTable`, `Entity#index:<name>`,
/// `Entity#unique:<n>`), so that the layout can report a name that collides at the key's
/// `file:line:column`.
enum StoredNamesReader {
    static let entityKeys = ["table", "primaryKey", "autoincrement"]
    static let columnKeys = ["column", "columnType", "notNull", "onDelete"]
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
        default: break
        }
    }

    static func columnKey(
        _ pair: (key: String, keyNode: Node, value: Node), into column: inout StoredNames.Column, entity: String,
        property: String, locations: inout [String: SourceLocation], walker: inout YAMLWalker
    ) {
        switch pair.key {
        case "column":
            column.name = walker.string(pair.value, what: "column", entity: entity, property: property)
            locations["\(entity).\(property)#column"] = walker.source.location(of: pair.value)
        case "columnType": column.type = walker.string(pair.value, what: "columnType", entity: entity, property: property)
        case "notNull": column.notNull = walker.bool(pair.value, what: "notNull", entity: entity, property: property) ?? false
        case "onDelete": column.onDelete = walker.string(pair.value, what: "onDelete", entity: entity, property: property)
        default: break
        }
    }

    /// `joinTable: {name: track_artist, columns: [track_id, artist_id], index: track_artist_artist_idx}`.
    static func joinTable(
        _ pair: (key: String, keyNode: Node, value: Node), entity: String, property: String,
        locations: inout [String: SourceLocation], walker: inout YAMLWalker
    ) -> StoredNames.JoinTable? {
        let pairs = walker.pairs(pair.value, what: "joinTable", entity: entity)
        walker.checkKeys(pairs, allowed: ["name", "columns", "index"], what: "a joinTable", entity: entity, property: property)
        locations["\(entity).\(property)#joinTable"] = walker.source.location(of: pair.value)
        var name: String?
        var columns: [String] = []
        var index: String?
        for item in pairs {
            switch item.key {
            case "name": name = walker.string(item.value, what: "joinTable name", entity: entity, property: property)
            case "columns": columns = walker.stringList(item.value, what: "joinTable columns", entity: entity)
            case "index": index = walker.string(item.value, what: "joinTable index", entity: entity, property: property)
            default: break
            }
        }
        guard let name, columns.count == 2 else {
            walker.report(
                .invalidValue, "joinTable needs a name and two columns", at: pair.value, entity: entity, property: property,
                hint: "joinTable: {name: track_artist, columns: [track_id, artist_id]} (this side's column first)")
            return nil
        }
        return StoredNames.JoinTable(name: name, columns: columns, index: index)
    }

    /// Names of unique indexes from the long form of `unique:` items (`{on: [a, b], name: ix}`).
    static func uniqueIndexNames(
        _ node: Node, into entity: inout Entity, locations: inout [String: SourceLocation], walker: inout YAMLWalker
    ) {
        guard let sequence = node.sequence else { return }
        for item in sequence {
            guard let mapping = item.mapping else { continue }
            let pairs = walker.pairs(item, what: "a uniqueness constraint", entity: entity.name)
            walker.checkKeys(pairs, allowed: ["on", "name"], what: "a uniqueness constraint", entity: entity.name)
            guard let on = mapping["on"], let nameNode = mapping["name"],
                let name = walker.string(nameNode, what: "name", entity: entity.name)
            else { continue }
            let properties = walker.stringList(on, what: "a uniqueness constraint", entity: entity.name)
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
