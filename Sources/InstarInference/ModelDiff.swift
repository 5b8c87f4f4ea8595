@_spi(Layouts) import InstarModel

/// The differences between two model versions and whether Core Data could infer the migration.
///
/// Core Data answers "can this be migrated lightweight?" with a bare `nil`. `ModelDiff` lists every
/// change, each with a verdict and the reason for it, so that a user (and Instar's planner) knows
/// exactly which change blocks inference and what to do about it.
package struct ModelDiff: Sendable {
    /// The older version's name.
    package let fromVersion: String
    /// The newer version's name.
    package let toVersion: String
    /// How each entity of the older version corresponds to one of the newer, as the layouts compile it to SQL.
    ///
    /// An entity that is the same in both versions (what the matching marks unchanged) maps every
    /// property to itself; those property lists are rebuilt from the older
    /// version when asked for rather than kept: most entities of most single steps are unchanged, and a
    /// long plan's graph keeps every single step's diff, where those lists were half of all memory.
    package var mappings: [EntityCorrespondence] {
        guard let old = unchangedSource else { return keptMappings }
        return keptMappings.map { mapping in
            guard let name = mapping.destination, unchanged.contains(name) else { return mapping }
            var full = mapping
            full.properties = old.properties(of: name).map { PropertyCorrespondence(source: $0, destination: $0) }
            return full
        }
    }
    /// ``mappings``, with no property list for the ``unchanged`` entities.
    private let keptMappings: [EntityCorrespondence]
    /// Entities (by name, the same in both versions) whose property lists ``mappings`` rebuilds.
    private let unchanged: Set<String>
    /// The older version, when some entity is unchanged: where ``mappings`` reads their properties.
    private let unchangedSource: Model?
    /// Every difference, each with its verdict.
    package let changes: [Change]
    /// Things that are probably unintended (a likely rename without a renaming identifier), which Core Data
    /// would not mention.
    package let warnings: [Warning]
    private let destinationBySource: [String: String]
    private let sourceByDestination: [String: String]
    /// Source entity → source property → destination property name, for the entities not in
    /// ``unchanged`` (a long plan keeps every single step's diff; this map was its largest part).
    private let propertyDestinations: [String: [String: String]]

    /// True when every change can be performed by an inferred, in-place migration.
    package var isInferable: Bool { changes.allSatisfy(\.isInferable) }

    /// Changes that need the data to satisfy something before they can run.
    package var conditions: [DataCondition] { changes.compactMap(\.verdict.condition) }

    /// The changes that inference cannot perform: the ones a hook, a mapping model or a stage must handle.
    package var blockingChanges: [Change] { changes.filter { !$0.isInferable } }

    /// Compares two versions; the diff never fails, it reports what it cannot infer as blocking changes.
    package init(from old: Model, to new: Model) {
        self.fromVersion = old.name
        self.toVersion = new.name
        let (mappings, conflicts, unchanged) = EntityCorrespondence.mappings(from: old, to: new)
        self.keptMappings = unchanged.isEmpty ? mappings : mappings.map { mapping in
            guard let name = mapping.destination, unchanged.contains(name) else { return mapping }
            var kept = mapping
            kept.properties = []
            return kept
        }
        self.unchanged = unchanged
        self.unchangedSource = unchanged.isEmpty ? nil : old
        var destinationBySource: [String: String] = [:]
        var sourceByDestination: [String: String] = [:]
        var propertyDestinations: [String: [String: String]] = [:]
        for mapping in mappings {
            guard let source = mapping.source, let destination = mapping.destination else { continue }
            destinationBySource[source] = destination
            sourceByDestination[destination] = source
            // An unchanged entity maps each property to itself: answered from the older version.
            guard !unchanged.contains(destination) else { continue }
            var properties: [String: String] = [:]
            for property in mapping.properties {
                if let s = property.source, let d = property.destination { properties[s.name] = d.name }
            }
            propertyDestinations[source] = properties
        }
        self.destinationBySource = destinationBySource
        self.sourceByDestination = sourceByDestination
        self.propertyDestinations = propertyDestinations
        var builder = DiffBuilder(old: old, new: new, mappings: mappings)
        builder.renamingConflicts(conflicts)
        builder.entityChanges(skipping: unchanged)
        builder.hierarchyMerges()
        for mapping in mappings where !unchanged.contains(mapping.destination ?? "") {
            builder.propertyChanges(in: mapping)
        }
        builder.warnAboutProbableRenames()
        if !builder.changes.isEmpty, old.versionHashes == new.versionHashes {
            builder.warnings.append(
                Warning(
                    .identicalVersionHashes,
                    message:
                        "the two versions have identical version hashes: Core Data treats them as the same version, so none of these changes would be migrated"
                ))
        }
        self.changes = builder.changes
        self.warnings = builder.warnings
    }

    /// The destination entity of an older entity, if it survives.
    package func destination(ofEntity source: String) -> String? {
        destinationBySource[source]
    }

    /// The source entity of a newer entity, if it existed before.
    package func source(ofEntity destination: String) -> String? {
        sourceByDestination[destination]
    }

    /// Whether the older entity `source` is one the diff found unchanged: it keeps its name and every
    /// property maps to itself (what ``destination(ofProperty:in:)`` then answers for each).
    package func keepsUnchanged(entity source: String) -> Bool {
        unchanged.contains(source) && destinationBySource[source] == source
    }

    /// The newer name of an older entity's property, if it survives.
    package func destination(ofProperty property: String, in sourceEntity: String) -> String? {
        if let destinations = propertyDestinations[sourceEntity] { return destinations[property] }
        guard let old = unchangedSource, let destination = destinationBySource[sourceEntity],
            unchanged.contains(destination)
        else { return nil }
        return old.property(property, of: sourceEntity) == nil ? nil : property
    }
}
