@_spi(Layouts) import InstarModel
import InstarModelIO

/// Writes a mapping model as one of Instar's own mapping files (``MappingFileReader``'s format), so
/// that an app can ship what an `.xcmappingmodel` says without Xcode's binary archives, and Instar
/// reads it back to the same entity mappings.
///
/// What Xcode generates (`$source.<name>`, relationships through their entity mappings) is left out:
/// the reader generates it again by the same rule. What the file cannot say is refused rather than
/// dropped: an entity mapping with neither a source nor a destination entity. The user info of entity
/// and property mappings is not written (Instar's hooks are Swift or SQL, which get no user info).
package enum MappingFileWriter {
    /// Why a mapping model cannot be written as a mapping file.
    package struct Unwritable: Error, Sendable, CustomStringConvertible {
        package var mappingModel: String
        package var entityMapping: String
        package var reason: String
        package var description: String {
            "mapping model '\(mappingModel)', entity mapping '\(entityMapping)': \(reason)"
        }
    }

    /// The file's text for `model`, from the version `source` to `destination`. Property mappings for
    /// properties the destination entity does not have (Xcode keeps them after a property is deleted;
    /// nothing can receive their value) are left out, each named in a comment.
    package static func yaml(_ model: MappingModel, source: String, destination: Model, comment: String? = nil) throws(Unwritable)
        -> String
    {
        var lines: [String] = []
        if let comment { lines += comment.split(separator: "\n", omittingEmptySubsequences: false).map { "# \($0)" } }
        lines.append("name: \(YAMLText.scalar(model.name))")
        lines.append("source: \(YAMLText.scalar(source))")
        lines.append("destination: \(YAMLText.scalar(destination.name))")
        lines.append(model.entityMappings.isEmpty ? "entities: []" : "entities:")
        for mapping in model.entityMappings.sorted(by: { $0.mappingNumber < $1.mappingNumber }) {
            lines += try entityLines(receivable(mapping, in: destination, notes: &lines), in: model)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The entity mapping without property mappings its destination entity cannot receive.
    package static func receivable(_ mapping: EntityMapping, in destination: Model, notes: inout [String]) -> EntityMapping {
        guard let name = mapping.destinationEntity, let entity = destination.entity(named: name) else { return mapping }
        var kept = mapping
        let has = { (property: PropertyMapping) in destination.property(property.name, of: entity.name) != nil }
        kept.attributeMappings = mapping.attributeMappings.filter(has)
        kept.relationshipMappings = mapping.relationshipMappings.filter(has)
        let dropped = (mapping.attributeMappings + mapping.relationshipMappings).filter { !has($0) }.map(\.name)
        if !dropped.isEmpty {
            notes.append("# \(mapping.name) also maps \(dropped.joined(separator: ", ")), which \(name) in \(destination.name) does not have: left out")
        }
        // A destination property the mapping does not list keeps its default in Core Data; a mapping
        // file would generate `$source.<name>` for it, so it is listed with no expression.
        let listed = Set((kept.attributeMappings + kept.relationshipMappings).map(\.name))
        for attribute in destination.attributes(of: name) where !listed.contains(attribute.name) {
            kept.attributeMappings.append(PropertyMapping(name: attribute.name, valueExpression: nil, origin: .none, location: mapping.location))
        }
        for relationship in destination.relationships(of: name) where !listed.contains(relationship.name) {
            kept.relationshipMappings.append(
                PropertyMapping(name: relationship.name, valueExpression: nil, origin: .none, location: mapping.location))
        }
        return kept
    }

    static func entityLines(_ mapping: EntityMapping, in model: MappingModel) throws(Unwritable) -> [String] {
        guard mapping.sourceEntity != nil || mapping.destinationEntity != nil else {
            throw Unwritable(
                mappingModel: model.name, entityMapping: mapping.name,
                reason: "it names neither a source nor a destination entity, which a mapping file cannot say")
        }
        var lines = ["  - name: \(YAMLText.scalar(mapping.name))"]
        if let source = mapping.sourceEntity { lines.append("    source: \(YAMLText.scalar(source))") }
        if let destination = mapping.destinationEntity { lines.append("    destination: \(YAMLText.scalar(destination))") }
        if let filter = mapping.filterText { lines.append("    filter: \(YAMLText.quoted(filter))") }
        if let policy = mapping.customPolicyClass { lines.append("    policy: \(YAMLText.scalar(policy))") }
        let attributes = mapping.attributeMappings.compactMap { property -> String? in
            switch property.origin {
            case .generated, .pendingGeneration: return nil
            case .none: return "      \(YAMLText.key(property.name)): ~"
            case .written:
                guard let expression = property.valueExpression else { return "      \(YAMLText.key(property.name)): ~" }
                return "      \(YAMLText.key(property.name)): \(YAMLText.quoted(expression.description))"
            }
        }
        if !attributes.isEmpty { lines += ["    attributes:"] + attributes }
        let relationships = mapping.relationshipMappings.compactMap { property -> String? in
            let key = YAMLText.key(property.name)
            switch property.origin {
            case .none: return "      \(key): ~"
            case .written:
                guard let expression = property.valueExpression else { return "      \(key): ~" }
                return "      \(key): \(YAMLText.quoted(expression.description))"
            case .generated, .pendingGeneration:
                guard let keyPath = property.sourceKeyPath else { return nil }
                let target = property.sourceMappingName.map { ", mapping: \(YAMLText.flowScalar($0))" } ?? ""
                return "      \(key): {keyPath: \(YAMLText.quoted(keyPath))\(target)}"
            }
        }
        if !relationships.isEmpty { lines += ["    relationships:"] + relationships }
        return lines
    }
}
