import Foundation
import InstarInference
import InstarMapping
@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarRuntime

/// Where each entity and property of the source version ends up in the target, following the chain's
/// steps one by one: renames come from each step's diff (renaming identifiers), a mapping step's
/// entity mappings override the diff for its pair (as Core Data uses a mapping model first).
///
/// The value checks compare a source row with the target row of the same primary key, property by
/// property through this map, so a rename without its renaming identifier shows here as a drop.
struct RowCorrespondence {
    struct EntityPath {
        /// The entity in the target, or nil when a step drops it.
        var target: String?
        /// The step that drops the entity, if one does.
        var droppedAt: String?
        /// Source property → target property, for the properties every step keeps.
        var properties: [String: String] = [:]
        /// Source property → the step (and hook or mapping) that computes it, so it is not compared.
        var computed: [String: String] = [:]
        /// Source property → the step that drops it.
        var droppedProperties: [String: String] = [:]
        /// A mapping step that may leave rows behind (a filter, a custom policy): rows are not required.
        var rowsMayVanish: String?
    }

    /// A drop the step's own diff calls a probable rename: the data is lost, most likely by mistake.
    struct SuspectDrop {
        var step: String
        var entity: String
        /// The source property dropped, or nil when the whole entity is.
        var property: String?
        /// `Entity.property` (or `Entity`) by the names of the version the step starts from.
        var stepName: String
        var message: String
        /// What the step drops and what it adds that looks like the same data renamed.
        var rename: ProbableRename
    }

    var entities: [String: EntityPath] = [:]
    var suspectDrops: [SuspectDrop] = []
    /// The plan's versions, oldest first: a step that skips versions is judged by their own diffs.
    private let versions: [Model]
    /// False for a bundle's versions, which have no order (no versions lie between two of them).
    private let ordered: Bool

    /// Follows every entity of `source` through `steps` (each with its diff and, for mapping steps, its
    /// mapping model).
    init(source: Model, steps: [Step], versions: [Model], ordered: Bool = true) {
        self.versions = versions
        self.ordered = ordered
        for entity in source.entities {
            var path = EntityPath(target: entity.name)
            for property in source.attributes(of: entity.name) where !property.isTransient {
                path.properties[property.name] = property.name
            }
            for relationship in source.relationships(of: entity.name) where !relationship.isToMany && !relationship.isTransient {
                path.properties[relationship.name] = relationship.name
            }
            entities[entity.name] = path
        }
        for step in steps {
            let label = "\(step.from) → \(step.to)"
            for name in entities.keys.sorted() {
                guard var path = entities[name], let current = path.target else { continue }
                if let mapping = step.mapping?.model {
                    follow(&path, current: current, through: mapping, label: label)
                } else {
                    follow(&path, source: name, current: current, through: step, label: label)
                }
                entities[name] = path
            }
        }
    }

    /// One inferred or custom step: the diff says what each entity and property becomes.
    private mutating func follow(_ path: inout EntityPath, source: String, current: String, through step: Step, label: String) {
        let diff = step.diff
        guard let next = diff.destination(ofEntity: current) else {
            path.target = nil
            path.droppedAt = label
            if let warning = suspicion(in: step, .probableEntityRename, Warning.DroppedData(entity: current)) {
                suspectDrops.append(
                    SuspectDrop(
                        step: label, entity: source, property: nil, stepName: current, message: warning.message,
                        rename: ProbableRename(dropped: current, candidate: warning.entity ?? "")))
            }
            return
        }
        for (sourceProperty, currentProperty) in path.properties {
            if let renamed = diff.destination(ofProperty: currentProperty, in: current) {
                guard let change = retargeting(diff, entity: next, property: renamed) else {
                    path.properties[sourceProperty] = renamed
                    continue
                }
                // The diff says the links are dropped (a destination that is not the old one's counterpart).
                path.properties[sourceProperty] = nil
                path.droppedProperties[sourceProperty] = label
                if let (message, rename) = suspectedEntityRename(change, in: step, entity: current, property: currentProperty) {
                    suspectDrops.append(
                        SuspectDrop(
                            step: label, entity: source, property: sourceProperty, stepName: "\(current).\(currentProperty)",
                            message: message, rename: rename))
                }
                continue
            }
            path.properties[sourceProperty] = nil
            path.droppedProperties[sourceProperty] = label
            if let warning = suspicion(in: step, .probableRename, Warning.DroppedData(entity: current, property: currentProperty)) {
                let candidate = [warning.entity, warning.property].compactMap { $0 }.joined(separator: ".")
                suspectDrops.append(
                    SuspectDrop(
                        step: label, entity: source, property: sourceProperty, stepName: "\(current).\(currentProperty)",
                        message: warning.message, rename: ProbableRename(dropped: "\(current).\(currentProperty)", candidate: candidate)))
            }
        }
        path.target = next
    }

    /// The step's warning of this kind that it drops `dropped`, if the versions it goes through say it
    /// too (``VersionGraph/confirmedWarnings(of:)``, as `instar plan` judges it).
    private func suspicion(in step: Step, _ kind: Warning.Kind, _ dropped: Warning.DroppedData) -> Warning? {
        guard step.diff.warnings.contains(where: { $0.kind == kind && $0.dropped == dropped }) else { return nil }
        let versions = self.versions
        let confirmed = VersionGraph.confirmedWarnings(of: step, versions: versions, ordered: ordered) {
            ModelDiff(from: versions[$0], to: versions[$1])
        }
        return confirmed.first { $0.kind == kind && $0.dropped == dropped }
    }

    /// The change that points a kept to-one at another entity, whose links the step drops.
    private func retargeting(_ diff: ModelDiff, entity: String, property: String) -> Change? {
        diff.changes.first { $0.kind == .relationshipDestinationChanged && $0.entity == entity && $0.property == property }
    }

    /// Why dropping a retargeted to-one's links looks like a mistake: its old destination is removed
    /// and the new one added by the same versions, the way an entity renamed without its renaming
    /// identifier shows (one with fewer than two attributes gives no probable-entity-rename warning).
    private func suspectedEntityRename(
        _ change: Change, in step: Step, entity: String, property: String
    ) -> (String, ProbableRename)? {
        func renamedLike(_ diff: ModelDiff, _ old: String?, _ new: String?) -> Bool {
            guard let old, let new else { return false }
            return diff.destination(ofEntity: old) == nil && diff.source(ofEntity: new) == nil
        }
        guard let old = change.before, let new = change.after, renamedLike(step.diff, old, new) else { return nil }
        let message =
            "links of '\(entity).\(property)' are dropped: its destination '\(old)' is removed and '\(new)' added. If '\(new)' is '\(old)' renamed, set the renaming identifier of '\(new)' to '\(old)'"
        let rename = ProbableRename(dropped: old, candidate: new)
        guard let start = versions.firstIndex(where: { $0.name == step.from }),
            let end = versions.firstIndex(where: { $0.name == step.to }), end - start > 1
        else { return (message, rename) }
        // A skip: only when one of the versions it crosses retargets the link that way itself.
        for k in start..<end {
            let diff = ModelDiff(from: versions[k], to: versions[k + 1])
            if diff.changes.contains(where: {
                $0.kind == .relationshipDestinationChanged && $0.property == property && renamedLike(diff, $0.before, $0.after)
            }) {
                return (message, rename)
            }
        }
        return nil
    }

    /// One mapping step: the entity mapping whose source is the entity says where its rows go; a
    /// property copied as `$source.<name>` is followed, any other expression computes the value.
    private mutating func follow(_ path: inout EntityPath, current: String, through mapping: MappingModel, label: String) {
        let mappings = mapping.entityMappings.filter { $0.sourceEntity == current && $0.destinationEntity != nil }
        guard let first = mappings.first, let destination = first.destinationEntity else {
            path.target = nil
            path.droppedAt = "\(label) (mapping model \(mapping.name))"
            return
        }
        // Xcode writes a fetch of every source row (TRUEPREDICATE) as each entity mapping's source
        // expression; anything else, a filter or a custom policy may leave rows behind.
        let fetchesAll = first.sourceExpression.map(Self.fetchesEveryRow) ?? true
        if first.filter != nil || first.customPolicyClass != nil || !fetchesAll || mappings.count > 1 {
            path.rowsMayVanish = "\(label): entity mapping \(first.name) of mapping model \(mapping.name) chooses its rows"
        }
        let written = Dictionary(
            (first.attributeMappings + first.relationshipMappings).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var sourceByCurrent: [String: String] = [:]
        for (sourceProperty, currentProperty) in path.properties { sourceByCurrent[currentProperty] = sourceProperty }
        var properties: [String: String] = [:]
        for (name, property) in written {
            guard let text = property.valueExpressionText else { continue }
            if text.hasPrefix("$source."), let sourceProperty = sourceByCurrent[String(text.dropFirst("$source.".count))] {
                properties[sourceProperty] = name
            } else if let sourceProperty = sourceByCurrent[name] {
                path.computed[sourceProperty] = "\(label): `\(text)` in mapping model \(mapping.name)"
            }
        }
        for (sourceProperty, _) in path.properties where properties[sourceProperty] == nil && path.computed[sourceProperty] == nil {
            path.droppedProperties[sourceProperty] = "\(label) (mapping model \(mapping.name))"
        }
        path.properties = properties
        path.target = destination
    }

    /// Whether a source expression is Xcode's fetch of every source row: its fetch request's predicate
    /// string is `TRUEPREDICATE` (read from the expression's values, not from its rendering).
    private static func fetchesEveryRow(_ expression: MappingExpression) -> Bool {
        switch expression {
        case .constant(.string(let text)): text.trimmingCharacters(in: .whitespaces) == "TRUEPREDICATE"
        case .constant, .evaluatedObject, .variable, .opaque: false
        case .keyPath(let base, _): base.map(fetchesEveryRow) ?? false
        case .selector(let target, _, let arguments): fetchesEveryRow(target) || arguments.contains(where: fetchesEveryRow)
        case .function(_, let arguments), .aggregate(let arguments): arguments.contains(where: fetchesEveryRow)
        case .arithmetic(_, let a, let b), .index(let a, let b): fetchesEveryRow(a) || fetchesEveryRow(b)
        case .negate(let a), .cast(let a, _): fetchesEveryRow(a)
        case .fetch(let request, _, _): fetchesEveryRow(request)
        case .subquery, .conditional: false
        }
    }
}
