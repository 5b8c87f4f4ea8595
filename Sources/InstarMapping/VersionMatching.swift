import Foundation
@_spi(Layouts) import InstarModel

/// Two model versions, by name.
package struct VersionPair: Sendable, Hashable, Codable, CustomStringConvertible {
    package var source: String
    package var destination: String

    package init(source: String, destination: String) {
        self.source = source
        self.destination = destination
    }

    package var description: String { "\(source) → \(destination)" }
}

/// The versions a mapping model migrates between.
package struct MappingVersionMatch: Sendable {
    package var source: Model
    package var destination: Model
    /// How the pair was recognised.
    package var basis: Basis
    /// Other pairs that match just as well (Core Data would accept the mapping model for them too,
    /// for example versions that differ only in entities the mapping does not touch).
    package var alternatives: [VersionPair]

    package enum Basis: String, Sendable, Hashable, Codable {
        /// Every mapped entity's version hash equals the one the mapping model records or that the
        /// recorded versions give (Core Data's rule).
        case entityHashes
        /// One side's recorded version is not among the versions given (renamed since), so that side was
        /// recognised by its entities and the destination's property names instead of by hashes.
        case structure
        /// An Instar mapping file names its two versions.
        case named
    }

    package var pair: VersionPair { VersionPair(source: source.name, destination: destination.name) }

    package init(source: Model, destination: Model, basis: Basis, alternatives: [VersionPair] = []) {
        self.source = source
        self.destination = destination
        self.basis = basis
        self.alternatives = alternatives
    }
}

/// No pair of versions fits the mapping model.
package struct MappingMatchError: Error, Sendable, Hashable, CustomStringConvertible {
    package var mappingModel: String
    /// The best candidate, if there were at least two versions.
    package var closest: VersionPair?
    /// How many entity mappings' source or destination entities differ from the closest pair (a version
    /// hash that differs, or an entity or property that is missing); each side of each mapping counts once.
    package var differingEntityHashes: Int
    /// Which entity mappings differ and how, for the closest pair.
    package var differences: [String]

    package var description: String {
        guard let closest else { return "mapping model '\(mappingModel)': fewer than two versions to match against" }
        return "mapping model '\(mappingModel)' fits no pair of versions; closest is \(closest) with "
            + "\(differingEntityHashes) differing entit\(differingEntityHashes == 1 ? "y" : "ies"): "
            + differences.prefix(5).joined(separator: "; ")
    }
}

/// Finds the (source, destination) versions a mapping model was made for.
///
/// Core Data accepts a compiled mapping model for a pair of models when, for every entity mapping, the
/// source model's hash of the source entity and the destination model's hash of the destination entity
/// equal the hashes compiled in. `xcmapping.xml` does not hold those hashes; `mapc` takes them from the
/// models at the recorded paths. So the expected hashes come from the recorded hashes when present, else
/// from the versions the recorded paths name. When a recorded version is not among `versions` (projects
/// rename versions after making the mapping), that side is recognised by structure instead: its entities
/// exist, and (destination side) each destination entity's properties are exactly the mapped ones, as
/// Xcode creates one property mapping per destination property.
package enum MappingVersionMatcher {
    package static func match(_ mapping: MappingModel, versions: [Model]) throws(MappingMatchError) -> MappingVersionMatch {
        let expectedSource = expectedHashes(mapping, side: .source, versions: versions)
        let expectedDestination = expectedHashes(mapping, side: .destination, versions: versions)
        var scored: [(score: Int, preference: [Int], source: Int, destination: Int, differences: [String])] = []
        for (s, source) in versions.enumerated() {
            for (d, destination) in versions.enumerated() where s != d {
                var differences: [String] = []
                for entityMapping in mapping.entityMappings {
                    if let problem = sourceDifference(entityMapping, source, expected: expectedSource) {
                        differences.append("\(entityMapping.name): \(problem)")
                    }
                    if let problem = destinationDifference(entityMapping, destination, expected: expectedDestination) {
                        differences.append("\(entityMapping.name): \(problem)")
                    }
                }
                // Prefer the recorded names, then a forward step, then the shortest one.
                let preference = [
                    source.name == mapping.source.versionName ? 0 : 1,
                    destination.name == mapping.destination.versionName ? 0 : 1,
                    d > s ? 0 : 1, abs(d - s),
                ]
                scored.append((differences.count, preference, s, d, differences))
            }
        }
        let ranked = scored.sorted { a, b in
            a.score != b.score ? a.score < b.score : a.preference.lexicographicallyPrecedes(b.preference)
        }
        guard let best = ranked.first else {
            throw MappingMatchError(mappingModel: mapping.name, closest: nil, differingEntityHashes: 0, differences: [])
        }
        let bestPair = VersionPair(source: versions[best.source].name, destination: versions[best.destination].name)
        guard best.score == 0 else {
            throw MappingMatchError(
                mappingModel: mapping.name, closest: bestPair, differingEntityHashes: best.score,
                differences: best.differences)
        }
        let usedStructure = expectedSource == nil || expectedDestination == nil
        return MappingVersionMatch(
            source: versions[best.source], destination: versions[best.destination],
            basis: usedStructure ? .structure : .entityHashes,
            alternatives: ranked.dropFirst().filter { $0.score == 0 }.map {
                VersionPair(source: versions[$0.source].name, destination: versions[$0.destination].name)
            })
    }

    enum Side { case source, destination }

    /// Entity name → expected hash for one side: recorded, else from the recorded version; nil if unknown.
    static func expectedHashes(_ mapping: MappingModel, side: Side, versions: [Model]) -> [String: Data]? {
        let reference = side == .source ? mapping.source : mapping.destination
        var hashes = reference.entityVersionHashes
        for entityMapping in mapping.entityMappings {
            let (name, hash) = side == .source
                ? (entityMapping.sourceEntity, entityMapping.sourceEntityVersionHash)
                : (entityMapping.destinationEntity, entityMapping.destinationEntityVersionHash)
            if let name, let hash { hashes[name] = hash }
        }
        if !hashes.isEmpty { return hashes }
        guard let recorded = versions.first(where: { $0.name == reference.versionName }) else { return nil }
        return recorded.versionHashes.entityHashes
    }

    static func sourceDifference(_ mapping: EntityMapping, _ version: Model, expected: [String: Data]?) -> String? {
        guard let entity = mapping.sourceEntity else { return nil }
        guard let actual = version.versionHashes.entityHashes[entity] else {
            return "source entity '\(entity)' is not in \(version.name)"
        }
        if let expected, expected[entity] != actual { return "source entity '\(entity)' has another version hash" }
        return nil
    }

    static func destinationDifference(_ mapping: EntityMapping, _ version: Model, expected: [String: Data]?) -> String? {
        guard let entity = mapping.destinationEntity else { return nil }
        guard let actual = version.versionHashes.entityHashes[entity] else {
            return "destination entity '\(entity)' is not in \(version.name)"
        }
        if let expected {
            return expected[entity] == actual ? nil : "destination entity '\(entity)' has another version hash"
        }
        let mapped = Set((mapping.attributeMappings + mapping.relationshipMappings).map(\.name))
        let present = Set(version.properties(of: entity).filter { !$0.property.isTransient }.map(\.name))
        guard mapped == present else {
            let missing = mapped.subtracting(present).sorted(), unmapped = present.subtracting(mapped).sorted()
            return "destination entity '\(entity)' in \(version.name): "
                + (missing.isEmpty ? "" : "no \(missing.joined(separator: ", ")) ")
                + (unmapped.isEmpty ? "" : "unmapped \(unmapped.joined(separator: ", "))")
        }
        return nil
    }
}
