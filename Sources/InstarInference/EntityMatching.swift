@_spi(Layouts) import InstarModel

/// The entity matching of two versions whose diff is the sum of its entity pairs' diffs, so that each
/// pair can be judged alone, with the same code and the same result as ``ModelDiff``.
///
/// `instar graph` judges up to `maxSkip` skips from every version, each a full diff of two models
/// that mostly differ in a few entities; the same entity pair (an entity as one version declares it,
/// and as a later one does) recurs in hundreds of those skips. Judging pairs lets a caller keep one
/// verdict per pair instead of diffing every entity of every skip.
///
/// That is exact only where nothing outside a pair changes its verdict except what the caller keys it
/// by. ``init(from:to:)`` accepts two versions when:
/// - no entity of either has a parent: inherited properties, inherited constraints, moves within a
///   hierarchy and merged hierarchies all read other entities;
/// - every entity that both versions have is matched to itself and no entity is claimed twice (no
///   renaming identifier takes effect): the matching is then the names, and the only other entities
///   a pair's diff reads are its relationships' destinations (whether each exists on either side,
///   and, for a relationship that becomes an older to-many's inverse, their declarations).
///
/// A caller keying verdicts by the pair's two declarations and its relationships' destinations'
/// declarations on both sides gets the verdict ``ModelDiff`` gives, and the tests compare the two
/// on every skip of generated histories.
package struct EntityMatching: Sendable {
    /// The older version.
    package let old: Model
    /// The newer version.
    package let new: Model
    /// Every entity of both versions, by name only: what a pair's diff looks other entities up in.
    private let entityMappings: [EntityCorrespondence]
    private let destinationOf: [String: String]

    /// The matching of `old` and `new`, or nil when their diff is not the sum of their pairs' (see the
    /// type's discussion).
    package init?(from old: Model, to new: Model) {
        guard !Self.hasHierarchy(old), !Self.hasHierarchy(new) else { return nil }
        var destinationOf: [String: String] = [:]
        if Self.matchesByName(old), Self.matchesByName(new) {
            // Without renaming identifiers that differ from their names, the matcher pairs names.
            for entity in old.entities where new.entity(named: entity.name) != nil {
                destinationOf[entity.name] = entity.name
            }
        } else {
            let result = Matcher.match(
                sources: old.entities.map { .init(name: $0.name, identifier: $0.renamingIdentifier, element: $0.name) },
                destinations: new.entities.map { .init(name: $0.name, identifier: $0.renamingIdentifier, element: $0.name) })
            guard result.conflicts.isEmpty, result.pairs.allSatisfy({ $0.source == $0.destination }) else { return nil }
            for pair in result.pairs { destinationOf[pair.source] = pair.destination }
        }
        self.old = old
        self.new = new
        self.destinationOf = destinationOf
        var mappings = old.entities.map {
            EntityCorrespondence(source: $0.name, destination: destinationOf[$0.name], properties: [])
        }
        for entity in new.entities where destinationOf[entity.name] == nil {
            mappings.append(EntityCorrespondence(source: nil, destination: entity.name, properties: []))
        }
        self.entityMappings = mappings
    }

    /// Whether the version declares an entity with a parent.
    package static func hasHierarchy(_ model: Model) -> Bool {
        model.entities.contains { $0.parent != nil }
    }

    /// Whether every entity's renaming identifier is absent or its own name: the matcher can then only
    /// pair equal names, and no two entities claim one identifier.
    package static func matchesByName(_ model: Model) -> Bool {
        model.entities.allSatisfy { $0.renamingIdentifier == nil || $0.renamingIdentifier == $0.name }
    }

    /// The verdict on the entity named `name` in both versions: whether ``ModelDiff`` finds every
    /// change of that pair inferable, and where it takes each property. Entities that only one
    /// version has are always inferable (added or removed) and need no verdict.
    package func verdict(onEntity name: String) -> EntityPairVerdict {
        precondition(destinationOf[name] == name, "verdict(onEntity:) asked for an entity the versions do not share")
        let pair = EntityCorrespondence.correspondence(
            from: name, to: name, old: old, new: new, destinationOf: destinationOf, parents: [])
        var builder = DiffBuilder(
            old: old, new: new,
            mappings: entityMappings.map { $0.source == name ? pair.mapping : $0 })
        builder.renamingConflicts(pair.conflicts)
        if !pair.isUnchanged { builder.pairChanges(pair.mapping) }
        var destinations: [String: String] = [:]
        var isIdentity = true
        for property in pair.mapping.properties {
            guard let source = property.source else { continue }
            if let destination = property.destination {
                destinations[source.name] = destination.name
                if destination.name != source.name { isIdentity = false }
            } else {
                isIdentity = false
            }
        }
        return EntityPairVerdict(
            isInferable: builder.changes.allSatisfy(\.isInferable), propertyDestinations: destinations,
            keepsEveryPropertyName: isIdentity)
    }
}

/// What ``ModelDiff`` says of one entity pair, as ``EntityMatching/verdict(onEntity:)`` gives it.
package struct EntityPairVerdict: Sendable, Equatable {
    /// Whether every change of the pair is inferable.
    package let isInferable: Bool
    /// Where each older property goes: its newer name, absent when it is dropped.
    package let propertyDestinations: [String: String]
    /// Whether every older property is kept under its own name.
    package let keepsEveryPropertyName: Bool
}
