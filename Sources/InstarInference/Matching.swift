@_spi(Layouts) import InstarModel

/// How one entity of the older version corresponds to one of the newer version.
///
/// This is the backbone shared by the diff (which describes it) and the store layouts (which compile
/// it to SQL): a destination entity either has a source entity, or is new.
package struct EntityCorrespondence: Sendable, Hashable {
    /// Entity name in the older version; nil when the entity is new.
    package var source: String?
    /// Entity name in the newer version; nil when the entity is removed.
    package var destination: String?
    /// Property correspondences over all properties, inherited ones included.
    package var properties: [PropertyCorrespondence]
}

/// How one property of the older version corresponds to one of the newer version.
package struct PropertyCorrespondence: Sendable, Hashable {
    /// The property in the older version; nil when the property is new.
    package var source: ResolvedProperty?
    /// The property in the newer version; nil when the property is removed.
    package var destination: ResolvedProperty?
}

/// Matches entities and properties across two versions by canonical name, as Core Data does.
///
/// Core Data matches a destination element to the source element whose name equals the destination's
/// renaming identifier (which defaults to its name). Instar also honours identifiers kept across
/// several versions (V1 `color`, V2 `paint` renamed from `color`, V3 `shade` renamed from `color`), so
/// both single steps and skipping steps (V1 → V3) match. Candidates are tried in passes from the most
/// to the least specific, so a plain same-name match never steals an explicitly renamed element.
enum Matcher {
    struct Candidate<Element> {
        let name: String
        let identifier: String?
        let element: Element
        var canonical: String { identifier ?? name }
    }

    struct Result<Element> {
        var pairs: [(source: Element, destination: Element)] = []
        var unmatchedSources: [Element] = []
        var unmatchedDestinations: [Element] = []
        /// Identifiers claimed by more than one destination element.
        var conflicts: [(identifier: String, destinations: [String])] = []
    }

    static func match<E>(sources: [Candidate<E>], destinations: [Candidate<E>]) -> Result<E> {
        var result = Result<E>()
        var sourceTaken = Array(repeating: false, count: sources.count)
        var destinationTaken = Array(repeating: false, count: destinations.count)
        var sourceFor: [Int: Int] = [:]

        // Two destinations naming the same identifier cannot both inherit the same data.
        var claims: [String: [String]] = [:]
        for d in destinations { claims[d.canonical, default: []].append(d.name) }
        for (identifier, names) in claims where names.count > 1 {
            result.conflicts.append((identifier, names.sorted()))
        }
        let conflicted = Set(result.conflicts.map(\.identifier))

        // Each pass: (the key a source is looked up by, the key a destination asks for, and a check of
        // the pair). Sources are indexed by key once, in their order, so that each destination finds
        // the first free source of its key without scanning them all (long histories diff thousands of
        // entity and property lists).
        let byName = Dictionary(grouping: sources.indices) { sources[$0].name }
        let byCanonical = Dictionary(grouping: sources.indices) { sources[$0].canonical }
        // Core Data's own rule (the destination's renaming identifier names a source) comes before
        // identifiers kept from earlier renames, so that an entity renamed again (Key → Where → From,
        // From renamed from Where) is not taken by a new entity that reuses an old name (a new Key).
        let passes: [(index: [String: [Int]], key: (Candidate<E>) -> String?, accepts: (Candidate<E>, Candidate<E>) -> Bool)] = [
            (byName, { $0.name }, { s, d in s.canonical == d.canonical }),
            (byName, { $0.identifier }, { _, _ in true }),
            (byCanonical, { $0.canonical }, { _, _ in true }),
            (byName, { $0.name }, { _, _ in true }),
        ]
        for pass in passes {
            for (di, d) in destinations.enumerated() where !destinationTaken[di] && !conflicted.contains(d.canonical) {
                guard let key = pass.key(d), let candidates = pass.index[key] else { continue }
                if let si = candidates.first(where: { !sourceTaken[$0] && pass.accepts(sources[$0], d) }) {
                    sourceTaken[si] = true
                    destinationTaken[di] = true
                    sourceFor[di] = si
                }
            }
        }
        for (di, d) in destinations.enumerated() {
            if let si = sourceFor[di] {
                result.pairs.append((sources[si].element, d.element))
            } else {
                result.unmatchedDestinations.append(d.element)
            }
        }
        for (si, s) in sources.enumerated() where !sourceTaken[si] {
            result.unmatchedSources.append(s.element)
        }
        return result
    }
}

extension EntityCorrespondence {
    /// Builds the entity and property correspondences between two versions.
    static func mappings(from old: Model, to new: Model) -> (
        mappings: [EntityCorrespondence], conflicts: [(String, [String])], unchanged: Set<String>
    ) {
        let entityResult = Matcher.match(
            sources: old.entities.map { .init(name: $0.name, identifier: $0.renamingIdentifier, element: $0.name) },
            destinations: new.entities.map { .init(name: $0.name, identifier: $0.renamingIdentifier, element: $0.name) })
        var conflicts = entityResult.conflicts.map { ($0.identifier, $0.destinations) }
        var mappings: [EntityCorrespondence] = []
        let destinationOf = Dictionary(entityResult.pairs.map { ($0.source, $0.destination) }, uniquingKeysWith: { a, _ in a })
        let parents = Set(old.entities.compactMap(\.parent)).union(new.entities.compactMap(\.parent))
        var unchanged: Set<String> = []
        for (source, destination) in entityResult.pairs {
            let pair = correspondence(
                from: source, to: destination, old: old, new: new, destinationOf: destinationOf, parents: parents)
            mappings.append(pair.mapping)
            conflicts += pair.conflicts
            if pair.isUnchanged { unchanged.insert(destination) }
        }
        for name in entityResult.unmatchedDestinations {
            mappings.append(
                EntityCorrespondence(
                    source: nil, destination: name,
                    properties: new.properties(of: name).map { PropertyCorrespondence(source: nil, destination: $0) }))
        }
        for name in entityResult.unmatchedSources {
            mappings.append(
                EntityCorrespondence(
                    source: name, destination: nil,
                    properties: old.properties(of: name).map { PropertyCorrespondence(source: $0, destination: nil) }))
        }
        return (mappings, conflicts, unchanged)
    }

    /// The correspondence of one matched entity pair: how each property of `source` (in `old`)
    /// corresponds to one of `destination` (in `new`), the renaming conflicts among the destination's
    /// properties, and whether the pair is unchanged (every property maps to itself and nothing changes).
    ///
    /// `destinationOf` is the entity matching of the two versions (older name → newer name) and
    /// `parents` every entity that is a parent in either version: the only things outside the pair
    /// that its correspondence depends on.
    static func correspondence(
        from source: String, to destination: String, old: Model, new: Model, destinationOf: [String: String],
        parents: Set<String>
    ) -> (mapping: EntityCorrespondence, conflicts: [(String, [String])], isUnchanged: Bool) {
        // An entity that is the same in both versions, outside any hierarchy, whose relationships
        // lead to entities that keep their names: every property maps to itself and nothing
        // changes. Most entities of most steps are like this; long histories diff thousands of them.
        if source == destination, let before = old.entity(named: source), let after = new.entity(named: destination),
            before == after, before.parent == nil, !parents.contains(source),
            before.relationships.allSatisfy({ destinationOf[$0.destination] == $0.destination }),
            Set(before.attributes.map(\.canonicalName) + before.relationships.map(\.canonicalName)).count
                == before.attributes.count + before.relationships.count
        {
            let properties = old.properties(of: source)
            let mapping = EntityCorrespondence(
                source: source, destination: destination,
                properties: properties.map { PropertyCorrespondence(source: $0, destination: $0) })
            return (mapping, [], true)
        }
        let sourceProperties = old.properties(of: source)
        let destinationProperties = new.properties(of: destination)
        let propertyResult = Matcher.match(
            sources: sourceProperties.map {
                .init(name: $0.name, identifier: $0.property.renamingIdentifier, element: $0)
            },
            destinations: destinationProperties.map {
                .init(name: $0.name, identifier: $0.property.renamingIdentifier, element: $0)
            })
        let conflicts = propertyResult.conflicts.map { ("\(destination).\($0.identifier)", $0.destinations) }
        var properties: [PropertyCorrespondence] = []
        for pair in propertyResult.pairs {
            // An attribute never becomes a relationship in place: Core Data treats it as remove plus add.
            if (pair.source.property.attribute == nil) != (pair.destination.property.attribute == nil) {
                properties.append(PropertyCorrespondence(source: pair.source, destination: nil))
                properties.append(PropertyCorrespondence(source: nil, destination: pair.destination))
            } else {
                properties.append(PropertyCorrespondence(source: pair.source, destination: pair.destination))
            }
        }
        properties += propertyResult.unmatchedSources.map { PropertyCorrespondence(source: $0, destination: nil) }
        properties += propertyResult.unmatchedDestinations.map { PropertyCorrespondence(source: nil, destination: $0) }
        return (EntityCorrespondence(source: source, destination: destination, properties: properties), conflicts, false)
    }
}
