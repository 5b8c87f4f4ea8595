import Foundation
@_spi(Layouts) import InstarModel

extension MappingModel {
    /// The mapping model as `mapc` compiles it against the two versions: entity version hashes filled in,
    /// `.copy`/`.transform` decided by them, and the expressions Xcode generates added.
    ///
    /// Generation follows what Xcode's compiler does with a property mapping that has no written
    /// expression: an attribute gets `$source.<name>` when the source entity has a property of that name,
    /// and a relationship gets `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:",
    /// <mapping>, $source.<keyPath>)`, with the key path and entity mapping the file names, or else the
    /// relationship of the same name and the entity mapping whose source is that relationship's
    /// destination. Anything else keeps no expression (the destination property gets its default).
    package func resolved(source: Model, destination: Model) -> MappingModel {
        var copy = self
        copy.source.entityVersionHashes = source.versionHashes.entityHashes
        copy.destination.entityVersionHashes = destination.versionHashes.entityHashes
        copy.entityMappings = entityMappings.map { mapping in
            var mapping = mapping
            mapping.sourceEntityVersionHash = mapping.sourceEntity.flatMap { source.versionHashes.entityHashes[$0] }
            mapping.destinationEntityVersionHash =
                mapping.destinationEntity.flatMap { destination.versionHashes.entityHashes[$0] }
            if mapping.kind == .undefined, let from = mapping.sourceEntityVersionHash,
                let to = mapping.destinationEntityVersionHash
            {
                mapping.kind = from == to ? .copy : .transform
            }
            mapping.attributeMappings = mapping.attributeMappings.map { generateAttribute($0, of: mapping, source: source) }
            mapping.relationshipMappings = mapping.relationshipMappings.map {
                generateRelationship($0, of: mapping, source: source, destination: destination)
            }
            return mapping
        }
        return copy
    }

    private func generateAttribute(_ property: PropertyMapping, of mapping: EntityMapping, source: Model) -> PropertyMapping {
        guard property.origin == .pendingGeneration else { return property }
        var property = property
        if let entity = mapping.sourceEntity, source.property(property.name, of: entity) != nil {
            property.valueExpression = .keyPath(base: .variable("source"), path: [property.name])
            property.origin = .generated
        } else {
            property.origin = .none
        }
        return property
    }

    private func generateRelationship(
        _ property: PropertyMapping, of mapping: EntityMapping, source: Model, destination: Model
    ) -> PropertyMapping {
        guard property.origin == .pendingGeneration, let entity = mapping.sourceEntity else { return property }
        var property = property
        property.origin = .none
        // The key path as written (`$source.country.continent`) or the relationship of the same name.
        var keyPath: MappingExpression = .keyPath(base: .variable("source"), path: [property.name])
        if let written = property.sourceKeyPath {
            guard let parsed = try? ExpressionParser.parseExpression(written) else { return property }
            keyPath = parsed
        }
        var mappingName = property.sourceMappingName
        if mappingName == nil {
            guard case .keyPath(.variable("source")?, let path) = keyPath,
                let target = Self.destinationEntity(of: path, from: entity, in: source)
            else { return property }
            let wanted = destination.property(property.name, of: mapping.destinationEntity ?? "")?.property.relationship?
                .destination
            let candidates = entityMappings.filter { $0.sourceEntity == target }
            mappingName = (candidates.first { $0.destinationEntity == wanted } ?? candidates.first)?.name
        }
        guard let mappingName else { return property }
        property.valueExpression = .selector(
            target: .variable("manager"), selector: MappingExpression.destinationInstancesSelector,
            arguments: [.constant(.string(mappingName)), keyPath])
        property.origin = .generated
        return property
    }

    /// The entity a relationship key path from `entity` ends at, when every step is a relationship.
    static func destinationEntity(of path: [String], from entity: String, in model: Model) -> String? {
        var current = entity
        for key in path {
            guard let relationship = model.property(key, of: current)?.property.relationship else { return nil }
            current = relationship.destination
        }
        return current
    }
}

extension MappingExpression {
    /// The `$manager` selector that turns source instances into the destination instances another entity
    /// mapping made from them: how relationship mappings are expressed.
    package static let destinationInstancesSelector = "destinationInstancesForEntityMappingNamed:sourceInstances:"
}
