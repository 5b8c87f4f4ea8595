import Foundation
@_spi(Layouts) import InstarModel

// `instar inspect --format json` is this encoding: the keys below are the documented output, and a key
// that means "none" (`version`, `matchedBy`, a cache's `versionIdentifier` and `hashesMatchMetadata`, a
// relationship's `inverse`) is written as `null` rather than left out, so scripts can read it either way.
// Other optional keys are left out when they have nothing to say.
//
// Encodable only: the cache's entities are summarised (index names, no defaults), so the value cannot be
// rebuilt from its JSON; tests compare the output with this encoding of the library's own inspection.

extension StoreInspection: Encodable {
    private enum CodingKeys: String, CodingKey {
        case layout, version, matchedBy, drift, rowCounts, metadataVersion, tiedWith, mergedFrom, identifierConflict
        case closest, cache
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(detection.layout, forKey: .layout)
        try c.encode(detection.version?.name, forKey: .version)
        try c.encode(detection.matchedBy?.rawValue, forKey: .matchedBy)
        try c.encode(detection.drift.map(\.description), forKey: .drift)
        try c.encode(rowCounts, forKey: .rowCounts)
        try c.encodeIfPresent(detection.metadataVersionName, forKey: .metadataVersion)
        try c.encodeIfPresent(detection.tiedVersions.nonEmpty, forKey: .tiedWith)
        try c.encodeIfPresent(detection.mergedFrom.nonEmpty, forKey: .mergedFrom)
        try c.encodeIfPresent(detection.identifierConflict, forKey: .identifierConflict)
        try c.encodeIfPresent(detection.closest, forKey: .closest)
        try c.encodeIfPresent(cache, forKey: .cache)
    }
}

extension CachedModelInspection: Encodable {
    private enum CodingKeys: String, CodingKey {
        case name, versionIdentifier, compressedBytes, archiveBytes, entities, versionChecksum, hashesMatchMetadata
        case metadataConflicts, bundleConflicts
    }

    package func encode(to encoder: any Encoder) throws {
        let model = cached.model
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(model.name, forKey: .name)
        try c.encode(model.versionIdentifier, forKey: .versionIdentifier)
        try c.encode(cached.compressedSize, forKey: .compressedBytes)
        try c.encode(cached.archiveSize, forKey: .archiveBytes)
        try c.encode(model.entities.map(InspectedEntity.init), forKey: .entities)
        try c.encode(VersionHashes(model: model).versionChecksum, forKey: .versionChecksum)
        // null when the store records no hashes: there is nothing to agree or disagree with.
        try c.encode(hasMetadataHashes ? metadataConflicts.isEmpty : nil, forKey: .hashesMatchMetadata)
        try c.encodeIfPresent(metadataConflicts.nonEmpty, forKey: .metadataConflicts)
        try c.encodeIfPresent(bundleConflicts.nonEmpty, forKey: .bundleConflicts)
    }
}

/// An entity of a cached model as `inspect` shows it; `Entity`'s own `Codable` form is the model file's.
private struct InspectedEntity: Encodable {
    let entity: Entity

    private enum CodingKeys: String, CodingKey {
        case name, parent, abstract, attributes, relationships, unique, indexes
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entity.name, forKey: .name)
        try c.encodeIfPresent(entity.parent, forKey: .parent)
        if entity.isAbstract { try c.encode(true, forKey: .abstract) }
        try c.encode(entity.attributes.map(InspectedAttribute.init), forKey: .attributes)
        try c.encode(entity.relationships.map(InspectedRelationship.init), forKey: .relationships)
        try c.encodeIfPresent(entity.uniquenessConstraints.nonEmpty, forKey: .unique)
        try c.encodeIfPresent(entity.indexes.map(\.name).nonEmpty, forKey: .indexes)
    }
}

/// An attribute of a cached model: its type as a model file names it, a composite's elements nested.
private struct InspectedAttribute: Encodable {
    let attribute: Attribute

    private enum CodingKeys: String, CodingKey {
        case name, type, optional, transient, elements
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(attribute.name, forKey: .name)
        try c.encode(attribute.type.modelFileName, forKey: .type)
        try c.encode(attribute.isOptional, forKey: .optional)
        if attribute.isTransient { try c.encode(true, forKey: .transient) }
        try c.encodeIfPresent(attribute.elements.map(InspectedAttribute.init).nonEmpty, forKey: .elements)
    }
}

/// A relationship of a cached model.
private struct InspectedRelationship: Encodable {
    let relationship: Relationship

    private enum CodingKeys: String, CodingKey {
        case name, destination, inverse, toMany, ordered, optional, deleteRule
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(relationship.name, forKey: .name)
        try c.encode(relationship.destination, forKey: .destination)
        try c.encode(relationship.inverse, forKey: .inverse)
        try c.encode(relationship.isToMany, forKey: .toMany)
        try c.encode(relationship.isOrdered, forKey: .ordered)
        try c.encode(relationship.isOptional, forKey: .optional)
        try c.encode(relationship.deleteRule.rawValue, forKey: .deleteRule)
    }
}

extension Array {
    /// Nil for an empty array: the optional keys above are left out rather than written as `[]`.
    fileprivate var nonEmpty: [Element]? { isEmpty ? nil : self }
}
