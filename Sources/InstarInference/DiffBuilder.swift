@_spi(Layouts) import InstarModel

/// Walks entity mappings and records changes; the verdicts come from ``InferenceRules``.
struct DiffBuilder {
    let old: Model
    let new: Model
    let mappings: [EntityCorrespondence]
    let destinationBySource: [String: String]
    var changes: [Change] = []
    var warnings: [Warning] = []

    init(old: Model, new: Model, mappings: [EntityCorrespondence]) {
        self.old = old
        self.new = new
        self.mappings = mappings
        var index: [String: String] = [:]
        for mapping in mappings {
            if let s = mapping.source, let d = mapping.destination { index[s] = d }
        }
        self.destinationBySource = index
    }

    func destination(ofEntity source: String?) -> String? {
        source.flatMap { destinationBySource[$0] }
    }

    mutating func renamingConflicts(_ conflicts: [(String, [String])]) {
        for (identifier, names) in conflicts {
            let (entity, property) = split(identifier)
            changes.append(
                Change(
                    .renamingConflict, entity: entity, property: property,
                    after: names.joined(separator: ", "),
                    verdict: .notInferable(
                        "\(names.map { "'\($0)'" }.joined(separator: " and ")) both claim the renaming identifier '\(property ?? entity)'; Core Data cannot tell which one inherits the data. Give each a distinct renaming identifier"
                    )))
        }
    }

    private func split(_ identifier: String) -> (String, String?) {
        // Property conflicts are reported as "Entity.identifier".
        if let dot = identifier.firstIndex(of: "."), new.entity(named: String(identifier[..<dot])) != nil {
            return (String(identifier[..<dot]), String(identifier[identifier.index(after: dot)...]))
        }
        return (identifier, nil)
    }

    /// `unchanged`: destination entities known to be identical to their source (nothing to report).
    mutating func entityChanges(skipping unchanged: Set<String> = []) {
        for mapping in mappings where !unchanged.contains(mapping.destination ?? "") {
            switch (mapping.source, mapping.destination) {
            case (nil, let d?):
                let entity = new.entity(named: d)!
                let parentNote = entity.parent.map { " under '\($0)'" } ?? ""
                changes.append(
                    Change(
                        .entityAdded, entity: d, after: entity.parent,
                        verdict: .inferable("a new entity\(parentNote): its table or columns are created empty")))
            case (let s?, nil):
                changes.append(
                    Change(
                        .entityRemoved, entity: s,
                        verdict: .inferable("the entity is removed: its rows are deleted"), dropsData: true))
            case (let s?, let d?):
                entityPairChanges(old.entity(named: s)!, new.entity(named: d)!)
            default: break
            }
        }
    }

    /// The changes of one matched pair that are not renaming conflicts: the entity's own and its
    /// properties' (what ``ModelDiff`` records for the pair, as ``EntityMatching`` asks for it alone).
    mutating func pairChanges(_ mapping: EntityCorrespondence) {
        guard let s = mapping.source, let d = mapping.destination else { return }
        entityPairChanges(old.entity(named: s)!, new.entity(named: d)!)
        propertyChanges(in: mapping)
    }

    private mutating func entityPairChanges(_ s: Entity, _ d: Entity) {
        if s.name != d.name {
            changes.append(
                Change(
                    .entityRenamed, entity: d.name, oldName: s.name, before: s.name, after: d.name,
                    verdict: .inferable("renamed through the renaming identifier '\(d.renamingIdentifier ?? s.name)'")))
        }
        let mappedParent = destination(ofEntity: s.parent)
        if mappedParent != d.parent || (s.parent != nil && mappedParent == nil) {
            changes.append(
                Change(
                    .entityParentChanged, entity: d.name, before: s.parent ?? "(none)", after: d.parent ?? "(none)",
                    verdict: InferenceRules.parentChange(from: s.parent, to: d.parent, entity: d.name)))
        }
        if s.isAbstract != d.isAbstract {
            changes.append(
                Change(
                    .entityAbstractChanged, entity: d.name, before: "\(s.isAbstract)", after: "\(d.isAbstract)",
                    verdict: d.isAbstract
                        ? .conditional(
                            "the entity becomes abstract: an abstract entity cannot have instances of its own",
                            .noRows(entity: s.name))
                        : .inferable("the entity becomes concrete: nothing to move")))
        }
        if s.versionHashModifier != d.versionHashModifier {
            changes.append(
                Change(
                    .entityHashModifierChanged, entity: d.name, before: s.versionHashModifier,
                    after: d.versionHashModifier,
                    verdict: .inferable(
                        "the version hash modifier changes, Core Data's sign that the rows mean something new: stored rows are kept as they are; if their meaning changed, convert them in a hook or a mapping model")))
        }
        let renamed = propertyRenames(from: s.name, to: d.name)
        // Compare the constraints in force (own and inherited): moving a constraint from a parent to its
        // children changes the hash but not what is enforced on the rows.
        let oldConstraints = Set(effectiveConstraints(of: s.name, in: old).map { $0.map { renamed[$0] ?? $0 }.sorted() })
        let newConstraints = Set(effectiveConstraints(of: d.name, in: new).map { $0.sorted() })
        if oldConstraints != newConstraints {
            let added = newConstraints.subtracting(oldConstraints).sorted { $0.joined() < $1.joined() }
            let render = { (cs: Set<[String]>) in cs.map { "(\($0.joined(separator: ", ")))" }.sorted().joined(separator: " ") }
            let verdict: Verdict =
                added.isEmpty
                ? .inferable("uniqueness constraints are relaxed; existing rows stay valid")
                : .conditional(
                    "new uniqueness constraints are enforced when the table is rebuilt",
                    .unique(entity: s.name, properties: added[0]))
            changes.append(
                Change(
                    .uniquenessChanged, entity: d.name, before: render(oldConstraints), after: render(newConstraints),
                    verdict: verdict))
        }
        let oldIndexes = Set(s.indexes.map { IndexShape($0, renamed: renamed) })
        let newIndexes = Set(d.indexes.map { IndexShape($0, renamed: [:]) })
        if oldIndexes != newIndexes {
            changes.append(
                Change(
                    .indexesChanged, entity: d.name,
                    before: oldIndexes.map(\.description).sorted().joined(separator: "; "),
                    after: newIndexes.map(\.description).sorted().joined(separator: "; "),
                    verdict: .inferable("indexes are dropped and created; no data changes")))
        }
    }

    private func effectiveConstraints(of entity: String, in model: Model) -> [[String]] {
        model.ancestry(of: entity).flatMap { model.entity(named: $0)?.uniquenessConstraints ?? [] }
    }

    private struct IndexShape: Hashable, CustomStringConvertible {
        let name: String
        let elements: [String]
        init(_ index: FetchIndex, renamed: [String: String]) {
            name = index.name
            elements = index.elements.map { (renamed[$0.property] ?? $0.property) + ($0.ascending ? "" : " desc") }
        }
        var description: String { "\(name)(\(elements.joined(separator: ", ")))" }
    }

    /// Old property name → new property name, for the properties of one entity pair.
    private func propertyRenames(from source: String, to destination: String) -> [String: String] {
        guard let mapping = mappings.first(where: { $0.source == source && $0.destination == destination }) else {
            return [:]
        }
        var renames: [String: String] = [:]
        for p in mapping.properties {
            if let s = p.source, let d = p.destination { renames[s.name] = d.name }
        }
        return renames
    }

    /// Core Data cannot put the rows of two source tables into one destination table.
    mutating func hierarchyMerges() {
        for root in new.rootEntities {
            var sourceRoots: [String: [String]] = [:]
            for name in new.hierarchy(below: root.name) {
                guard let source = mappings.first(where: { $0.destination == name })?.source else { continue }
                sourceRoots[old.root(of: source), default: []].append(source)
            }
            guard sourceRoots.count > 1 else { continue }
            let roots = sourceRoots.keys.sorted()
            changes.append(
                Change(
                    .hierarchyMerged, entity: root.name, before: roots.joined(separator: ", "), after: root.name,
                    verdict: .notInferable(
                        "entities from separate hierarchies (\(roots.map { "'\($0)'" }.joined(separator: ", "))) would share the table of '\(root.name)'; Core Data cannot merge multiple root entity tables into one. Migrate in stages: add the new entities, copy the rows in a hook, then remove the old ones"
                    )))
        }
    }

    mutating func propertyChanges(in mapping: EntityCorrespondence) {
        let entityName = mapping.destination ?? mapping.source ?? ""
        guard let sourceEntity = mapping.source, let destinationEntity = mapping.destination else { return }
        let unmatchedSources = mapping.properties.compactMap { $0.destination == nil ? $0.source : nil }
        let unmatchedDestinations = mapping.properties.compactMap { $0.source == nil ? $0.destination : nil }
        for pair in mapping.properties {
            switch (pair.source, pair.destination) {
            case (let s?, let d?):
                // Report a property once: at the entity that declares it on either side.
                let sourceOwned = s.declaringEntity == sourceEntity
                let destinationOwned = d.declaringEntity == destinationEntity
                guard sourceOwned || destinationOwned else { continue }
                let mappedDeclaring = destination(ofEntity: s.declaringEntity)
                if mappedDeclaring != d.declaringEntity {
                    changes.append(
                        Change(
                            .propertyMoved, entity: entityName, property: d.name, before: s.declaringEntity,
                            after: d.declaringEntity,
                            verdict: .inferable(
                                "moved from '\(s.declaringEntity)' to '\(d.declaringEntity)' within the hierarchy; values are kept"
                            )))
                }
                compare(s, d, entity: entityName, sourceEntity: sourceEntity)
            case (let s?, nil):
                guard s.declaringEntity == sourceEntity else { continue }
                if let d = unmatchedDestinations.first(where: { $0.property.canonicalName == s.property.canonicalName }),
                    d.declaringEntity == destinationEntity
                {
                    changes.append(
                        Change(
                            .propertyKindChanged, entity: entityName, property: d.name, before: s.property.kindName,
                            after: d.property.kindName,
                            verdict: .inferable(
                                "'\(s.name)' changes from \(s.property.kindName) to \(d.property.kindName): treated as remove plus add, so its values are dropped"
                            ), dropsData: true))
                    continue
                }
                removed(s, entity: entityName)
            case (nil, let d?):
                guard d.declaringEntity == destinationEntity else { continue }
                if unmatchedSources.contains(where: { $0.property.canonicalName == d.property.canonicalName }) {
                    continue  // reported as a kind change above
                }
                added(d, entity: entityName, sourceEntity: sourceEntity)
            default: break
            }
        }
    }

    /// The older to-many without an inverse that a new relationship `r` becomes the inverse of, as
    /// `(entity, relationship)` of the older model: its links are `r`'s values (SwiftDeveloperBlog
    /// V01 → V02: `Path.points` gains the inverse `PathPoint.path`).
    private func olderInverse(of r: Relationship) -> (entity: String, relationship: String)? {
        guard let inverseName = r.inverse, let inverse = new.property(inverseName, of: r.destination),
            let newRelationship = inverse.property.relationship, newRelationship.isToMany,
            let source = mappings.first(where: { $0.destination == inverse.declaringEntity })?.source,
            let older = old.property(newRelationship.renamingIdentifier ?? newRelationship.name, of: source),
            let olderRelationship = older.property.relationship, olderRelationship.isToMany,
            olderRelationship.inverse == nil, !olderRelationship.isTransient
        else { return nil }
        return (older.declaringEntity, older.name)
    }

    private mutating func removed(_ s: ResolvedProperty, entity: String) {
        switch s.property {
        case .attribute(let a):
            let what = a.isTransient ? "a transient attribute is removed: nothing is stored" : "the attribute is removed: its values are dropped"
            changes.append(
                Change(.attributeRemoved, entity: entity, property: a.name, verdict: .inferable(what), dropsData: !a.isTransient))
        case .relationship(let r):
            changes.append(
                Change(
                    .relationshipRemoved, entity: entity, property: r.name, before: r.destination,
                    verdict: .inferable("the relationship is removed: its links are dropped"), dropsData: !r.isTransient))
        }
    }

    private mutating func added(_ d: ResolvedProperty, entity: String, sourceEntity: String) {
        switch d.property {
        case .attribute(let a):
            changes.append(
                Change(
                    .attributeAdded, entity: entity, property: a.name, after: InferenceRules.describe(a),
                    verdict: InferenceRules.addedAttribute(a, sourceEntity: sourceEntity)))
        case .relationship(let r):
            changes.append(
                Change(
                    .relationshipAdded, entity: entity, property: r.name, after: InferenceRules.describe(r),
                    verdict: InferenceRules.addedRelationship(r, sourceEntity: sourceEntity, linkedBy: olderInverse(of: r))))
        }
    }

    private mutating func compare(_ s: ResolvedProperty, _ d: ResolvedProperty, entity: String, sourceEntity: String) {
        switch (s.property, d.property) {
        case (.attribute(let a), .attribute(let b)):
            for change in InferenceRules.attributeChanges(from: a, to: b, entity: entity, sourceEntity: sourceEntity) {
                changes.append(change)
            }
        case (.relationship(let a), .relationship(let b)):
            let mappedDestination = destination(ofEntity: a.destination)
            let context = InferenceRules.RelationshipContext(
                entity: entity, sourceEntity: sourceEntity, mappedOldDestination: mappedDestination,
                newDestinationIsSupertypeOfOld: mappedDestination.map { new.entity($0, isKindOf: b.destination) } ?? false)
            changes.append(contentsOf: InferenceRules.relationshipChanges(from: a, to: b, context: context))
        default:
            break  // kinds differ: split into remove + add by the matcher
        }
    }

    /// "Probable rename": a removed and an added attribute of the same type in the same entity,
    /// neither carrying a renaming identifier. Core Data would silently drop the old values.
    mutating func warnAboutProbableRenames() {
        for mapping in mappings {
            guard let entity = mapping.destination, let sourceEntity = mapping.source else { continue }
            let removed = mapping.properties.compactMap { p -> Attribute? in
                guard p.destination == nil, let s = p.source, s.declaringEntity == sourceEntity,
                    let a = s.property.attribute, !a.isTransient
                else { return nil }
                return a
            }
            var added = mapping.properties.compactMap { p -> Attribute? in
                guard p.source == nil, let d = p.destination, d.declaringEntity == entity,
                    let a = d.property.attribute, !a.isTransient, a.renamingIdentifier == nil
                else { return nil }
                return a
            }
            for old in removed {
                guard let index = added.firstIndex(where: { $0.type == old.type }) else { continue }
                let candidate = added.remove(at: index)
                warnings.append(
                    Warning(
                        .probableRename, entity: entity, property: candidate.name,
                        dropped: Warning.DroppedData(entity: sourceEntity, property: old.name),
                        message:
                            "probable rename: data in '\(sourceEntity).\(old.name)' will be dropped and '\(entity).\(candidate.name)' (also \(candidate.type.xcodeName)) starts empty. If it is the same attribute renamed, set the renaming identifier of '\(candidate.name)' to '\(old.name)'"
                    ))
            }
        }
        let removedEntities = mappings.filter { $0.destination == nil }.compactMap(\.source)
        let addedEntities = mappings.filter { $0.source == nil }.compactMap(\.destination)
        for newName in addedEntities {
            let newAttributes = Set(new.attributes(of: newName).map(\.name))
            // The removed entity sharing the largest part of its attributes, if that part is large.
            let scored = removedEntities.map { oldName -> (String, Int, Int) in
                let oldAttributes = Set(old.attributes(of: oldName).map(\.name))
                return (oldName, oldAttributes.intersection(newAttributes).count, oldAttributes.count)
            }
            guard
                let best = scored.filter({ $0.2 >= 2 && Double($0.1) >= 0.6 * Double($0.2) })
                    .max(by: { ($0.1, $1.0) < ($1.1, $0.0) })
            else { continue }
            let others = scored.filter { $0.0 != best.0 && $0.2 >= 2 && Double($0.1) >= 0.6 * Double($0.2) }.map(\.0)
            let alsoNote = others.isEmpty ? "" : " (also similar: \(others.sorted().joined(separator: ", ")))"
            warnings.append(
                Warning(
                    .probableEntityRename, entity: newName, dropped: Warning.DroppedData(entity: best.0),
                    message:
                        "probable entity rename: '\(best.0)' is removed (its rows are deleted) and '\(newName)' is added with \(best.1) of its \(best.2) attributes\(alsoNote). If it is the same entity renamed, set the renaming identifier of '\(newName)' to '\(best.0)'"
                ))
        }
    }
}
