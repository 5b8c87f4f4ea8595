import InstarInference
@_spi(Layouts) import InstarModel

/// Where the consecutive steps from one version take each of its entities and properties, followed
/// one step at a time: what `VersionGraph.preservesChain` recomputes from scratch for every
/// skip.
///
/// A caller that checks every skip from a version (`instar graph`: up to `maxSkip` of them) followed
/// the same single steps again for each skip, so the work per version grew with the square of
/// `maxSkip` (64² walks of every entity's properties). Advanced once per single step, each skip's
/// check is a comparison with its direct diff. The trace follows exactly what `preservesChain` follows
/// (an entity is no longer followed once a step drops it), so both give the same verdict; a mapping
/// whose names the trace did not start with falls back to the walk.
package struct ChainTrace {
    /// Where one entity of the starting version is after the steps followed so far.
    struct Traced {
        /// Its name now, nil once a step dropped it (it is then followed no further).
        var entity: String?
        /// Its properties' names now, by their names in the starting version; a dropped one is absent.
        var properties: [String: String]
        /// The property names it started with: the only ones the trace can answer for.
        let started: Set<String>
        /// Whether the steps followed so far keep the entity and every property it started with
        /// under their starting names: what most entities of most skips do, answered without a walk.
        var isUnmoved = true
    }

    /// The version the trace starts at.
    package let start: Int
    /// The version reached: the trace has followed the steps start → start + 1 → … → reached.
    package private(set) var reached: Int
    private var traced: [String: Traced]

    /// A trace of the steps from version `start` of `graph`, none followed yet.
    package init(from start: Int, in graph: VersionGraph) {
        self.start = start
        self.reached = start
        let model = graph.versions[start]
        var traced: [String: Traced] = [:]
        for entity in model.entities {
            let names = model.properties(of: entity.name).map(\.name)
            traced[entity.name] = Traced(
                entity: entity.name, properties: Dictionary(names.map { ($0, $0) }, uniquingKeysWith: { a, _ in a }),
                started: Set(names))
        }
        self.traced = traced
    }

    /// Follows the single steps up to version `end` (≥ ``reached``).
    package mutating func advance(to end: Int, in graph: VersionGraph) {
        while reached < end {
            let step = graph.diff(reached, reached + 1)
            for (name, var entry) in traced {
                guard let current = entry.entity else { continue }
                // An entity the step leaves unchanged keeps its name and every property's.
                if step.keepsUnchanged(entity: current) { continue }
                entry.entity = step.destination(ofEntity: current)
                entry.properties = entry.properties.compactMapValues { step.destination(ofProperty: $0, in: current) }
                entry.isUnmoved =
                    entry.entity == name && entry.properties.count == entry.started.count
                    && entry.properties.allSatisfy { $0.key == $0.value }
                traced[name] = entry
            }
            reached += 1
        }
    }

    /// Whether the direct step `direct` from ``start`` to ``reached`` keeps every entity and property where
    /// the single steps take them, as `VersionGraph.preservesChain` judges it; nil when a mapping
    /// names something the trace did not start with (the caller then walks the steps itself).
    func preserves(_ direct: ModelDiff) -> Bool? {
        for mapping in direct.mappings {
            guard let source = mapping.source else { continue }
            guard let entry = traced[source] else { return nil }
            for property in mapping.properties {
                if let s = property.source, !entry.started.contains(s.name) { return nil }
            }
            if entry.entity != mapping.destination { return false }
            for property in mapping.properties {
                guard let s = property.source else { continue }
                if entry.properties[s.name] != property.destination?.name { return false }
            }
        }
        return true
    }

    /// ``preserves(_:)`` for one mapping of the direct step: whether the single steps take the
    /// starting entity `name` to `destination` (nil: dropped) and each of its properties where
    /// `propertyDestinations` does (absent: dropped); `keepsEveryPropertyName` says the map keeps
    /// every property under its own name. Nil when the trace did not start with the entity.
    func keeps(
        entity name: String, as destination: String?, propertyDestinations: [String: String],
        keepsEveryPropertyName: Bool
    ) -> Bool? {
        guard let entry = traced[name] else { return nil }
        if entry.entity != destination { return false }
        if entry.isUnmoved && keepsEveryPropertyName { return true }
        return entry.started.allSatisfy { entry.properties[$0] == propertyDestinations[$0] }
    }
}
