import Foundation
@_spi(Layouts) import InstarModel

/// Writes a model as an Instar model file (JSON, long form), which ``ModelFileReader`` reads back to an
/// identical model.
///
/// Stores keep a copy of their model this way (as Core Data keeps `Z_MODELCACHE`), so that a store can
/// be migrated, inspected or repaired without the model file that created it.
package enum ModelFileWriter {
    package static func json(_ model: Model) -> String {
        var root: [String: Any] = ["name": model.name]
        if let identifier = model.versionIdentifier { root["identifier"] = identifier }
        var entities: [String: Any] = [:]
        for entity in model.entities {
            entities[entity.name] = object(for: entity)
        }
        root["entities"] = entities
        if !model.rawSQL.isEmpty { root["raw"] = model.rawSQL.map(rawObject) }
        // Entities are a mapping, so key order is not preserved by JSON objects; declaration order does
        // not affect identity (hashes sort by name) or layouts (which sort names too).
        let data = (try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// One attribute as the model file's long form; a composite's elements nest under `elements`.
    static func attributeObject(_ a: Attribute) -> [String: Any] {
        var o: [String: Any] = ["type": a.type.modelFileName, "optional": a.isOptional]
        if let v = a.defaultValue { o["default"] = v }
        if let v = a.renamingIdentifier { o["renamedFrom"] = v }
        if let v = a.versionHashModifier { o["hashModifier"] = v }
        if a.isTransient { o["transient"] = true }
        if a.isReadOnly { o["readOnly"] = true }
        if a.allowsExternalBinaryDataStorage { o["externalStorage"] = true }
        if a.preservesValueInHistoryOnDeletion { o["preservesValueInHistory"] = true }
        if a.isIndexed { o["indexed"] = true }
        if !a.userInfo.isEmpty { o["userInfo"] = a.userInfo }
        if !a.seedValues.isEmpty { o["seedValues"] = a.seedValues }
        if !a.elements.isEmpty {
            o["elements"] = Dictionary(a.elements.map { ($0.name, attributeObject($0)) }, uniquingKeysWith: { a, _ in a })
        }
        o.merge(columnNaming(a.stored)) { a, _ in a }
        return o
    }

    static func object(for entity: Entity) -> [String: Any] {
        var object: [String: Any] = [:]
        if let parent = entity.parent { object["parent"] = parent }
        if entity.isAbstract { object["abstract"] = true }
        if let id = entity.renamingIdentifier { object["renamedFrom"] = id }
        if let modifier = entity.versionHashModifier { object["hashModifier"] = modifier }
        object.merge(entityNaming(entity.stored)) { a, _ in a }
        if !entity.uniquenessConstraints.isEmpty {
            object["unique"] = entity.uniquenessConstraints.map { properties -> Any in
                if let constraint = entity.stored.uniqueConstraintNames[properties] {
                    return ["on": properties, "constraint": constraint] as [String: Any]
                }
                return entity.stored.uniqueIndexNames[properties].map { ["on": properties, "name": $0] as [String: Any] } ?? properties
            }
        }
        if !entity.indexes.isEmpty {
            object["indexes"] = Dictionary(
                entity.indexes.map { index -> (String, Any) in
                    let elements = index.elements.map { ($0.ascending ? "" : "-") + $0.property }
                    return (index.name, index.storedName.map { ["on": elements, "name": $0] as [String: Any] } ?? elements)
                }, uniquingKeysWith: { a, _ in a })
        }
        var attributes: [String: Any] = [:]
        for a in entity.attributes { attributes[a.name] = attributeObject(a) }
        if !attributes.isEmpty { object["attributes"] = attributes }
        var relationships: [String: Any] = [:]
        for r in entity.relationships {
            var o: [String: Any] = [
                "to": r.destination, "toMany": r.isToMany, "optional": r.isOptional, "min": r.minCount,
                "max": r.maxCount, "deleteRule": r.deleteRule.rawValue,
            ]
            if let v = r.inverse { o["inverse"] = v }
            if r.isOrdered { o["ordered"] = true }
            if r.isTransient { o["transient"] = true }
            if r.isReadOnly { o["readOnly"] = true }
            if let v = r.renamingIdentifier { o["renamedFrom"] = v }
            if let v = r.versionHashModifier { o["hashModifier"] = v }
            o.merge(columnNaming(r.stored.column)) { a, _ in a }
            if let join = r.stored.joinTable {
                var j: [String: Any] = ["name": join.name, "columns": join.columns]
                if let index = join.index { j["index"] = index }
                if !join.onDelete.isEmpty { j["onDelete"] = join.onDelete }
                if !join.columnOrder.isEmpty { j["columnOrder"] = join.columnOrder }
                if let key = join.primaryKeyConstraint { j["primaryKeyConstraint"] = key }
                o["joinTable"] = j
            }
            relationships[r.name] = o
        }
        if !relationships.isEmpty { object["relationships"] = relationships }
        return object
    }
}
