import InstarInference
@_spi(Layouts) import InstarModel

/// The rules Core Data with CloudKit (`NSPersistentCloudKitContainer`) imposes on a model and on its
/// evolution, as lint findings (`instar lint --cloudkit`).
///
/// Model rules, checked on every version used with CloudKit (errors: Core Data refuses to load such a
/// model for CloudKit, or Apple lists the feature as unsupported):
///
/// - no uniqueness constraints (``LintFinding/Check/cloudKitUniqueConstraint``);
/// - no attributes of type Undefined or Object ID (``LintFinding/Check/cloudKitUnsupportedType``);
/// - every stored attribute optional or with a default value (``LintFinding/Check/cloudKitRequiredAttribute``);
/// - every relationship optional (``LintFinding/Check/cloudKitRequiredRelationship``), with an inverse
///   (``LintFinding/Check/cloudKitMissingInverse``), not Deny (``LintFinding/Check/cloudKitDenyDeleteRule``)
///   and not ordered (``LintFinding/Check/cloudKitOrderedRelationship``).
///
/// Step rules, checked on every step from the first released version on (errors: once a schema is in
/// CloudKit's production environment only additions are possible, and older app versions on the user's
/// other devices keep syncing the old shape): nothing removed, renamed, retyped or moved to another
/// hierarchy. New entities, attributes and relationships are fine.
///
/// Transient properties are neither stored nor synced and are skipped, except by the type rule, which
/// Apple states without exception. Configurations are not read by Instar, so the rule that entities of
/// one configuration must not relate to entities of another is not checked.
package enum CloudKitLint {
    /// Every version from `firstReleased` (default: the oldest) is checked with the model rules, and every
    /// step from it on with the step rules. A violation that several versions share is reported once, at
    /// the newest version that has it. `firstReleased` must name a version of the plan (else the oldest
    /// is used).
    ///
    /// The versions of an Xcode bundle have no order but the current one (``Plan/versionsAreOrdered``):
    /// there every released version (`firstReleased`, else every version but the current) is checked
    /// with the model rules, and its step straight to the current version with the step rules, as the
    /// app that ships the current version meets the records of every released one.
    package static func check(_ plan: Plan, firstReleased: String? = nil) -> [LintFinding] {
        guard !plan.versions.isEmpty else { return [] }
        if !plan.versionsAreOrdered, let target = plan.targetVersion, let current = plan.versions.first(where: { $0.name == target }) {
            let released = firstReleased.flatMap { name in plan.versions.first { $0.name == name } }.map { [$0] }
                ?? plan.versions.filter { $0.name != target }
            let sources = released.filter { $0.name != target }
            let steps = mergedStepFindings(sources.map { ($0.name, check(from: $0, to: current)) }, current: current.name)
            return PlanLint.sorted(mergedModelFindings(sources + [current]) + steps)
        }
        let first = firstReleased.flatMap(plan.index(of:)) ?? 0
        let versions = Array(plan.versions[first...])
        // Step rules.
        var steps: [LintFinding] = []
        if versions.count > 1 {
            for k in 0..<(versions.count - 1) {
                steps += check(from: versions[k], to: versions[k + 1])
            }
        }
        return PlanLint.sorted(mergedModelFindings(versions) + steps)
    }

    /// Step findings of several released versions to the current one, one per violation: the same
    /// removal seen from three released versions is one finding naming the three.
    static func mergedStepFindings(_ perVersion: [(String, [LintFinding])], current: String) -> [LintFinding] {
        var order: [String] = []
        var merged: [String: (finding: LintFinding, core: String, versions: [String])] = [:]
        for (version, findings) in perVersion {
            for finding in findings {
                guard let core = finding.statement, finding.versions == [version, current] else {
                    order.append(finding.message)
                    merged[finding.message] = (finding, "", [])
                    continue
                }
                let key = "\(finding.check.rawValue)\u{0}\(core)"
                if merged[key] == nil {
                    order.append(key)
                    merged[key] = (finding, core, [])
                }
                merged[key]?.versions.append(version)
            }
        }
        return order.compactMap { key in
            guard var (finding, core, versions) = merged[key] else { return nil }
            if !versions.isEmpty {
                let names = versions.joined(separator: ", ")
                finding.message = "\(names) → \(current): \(core) after " + (versions.count == 1 ? "\(names) was released" : "these versions were released")
            }
            return finding
        }
    }

    /// The model rules of `versions` (oldest first): a violation that several versions share is
    /// reported once, at the last version that has it.
    static func mergedModelFindings(_ versions: [Model]) -> [LintFinding] {
        var findings: [LintFinding] = []
        // Model rules, newest first, so each violation is reported where it would be fixed.
        var seen: [String: Int] = [:]
        var order: [String] = []
        var reported: [String: LintFinding] = [:]
        for model in versions.reversed() {
            for (key, finding) in modelFindings(model) {
                if seen[key] == nil {
                    order.append(key)
                    reported[key] = finding
                    seen[key] = 0
                } else {
                    seen[key, default: 0] += 1
                }
            }
        }
        for key in order {
            guard var finding = reported[key] else { continue }
            if let older = seen[key], older > 0 {
                finding.message += " (also in \(older) older version(s))"
                finding.alsoInOlderVersions = older
            }
            findings.append(finding)
        }
        return findings
    }

    /// The model rules for one version.
    package static func check(_ model: Model) -> [LintFinding] {
        PlanLint.sorted(modelFindings(model).map(\.1))
    }

    /// The step rules for one step from a released version: only additions are allowed.
    package static func check(from old: Model, to new: Model) -> [LintFinding] {
        let diff = ModelDiff(from: old, to: new)
        let step = "\(old.name) → \(new.name)"
        var findings: [LintFinding] = []
        for change in diff.changes {
            guard let rule = stepRule(change) else { continue }
            let location =
                new.location(ofEntity: change.entity, property: change.property)
                ?? new.source.map { SourceLocation(file: $0) } ?? SourceLocation(file: new.name)
            var finding = LintFinding(
                .error, rule.check, "\(step): \(rule.message) after \(old.name) was released", location: location,
                hint: rule.hint
            ).about(versions: [old.name, new.name], entity: change.entity, property: change.property)
            finding.statement = rule.message
            findings.append(finding)
        }
        return findings
    }

    // MARK: - Model rules

    /// Findings keyed by what they are about (without the version), to merge them across versions.
    static func modelFindings(_ model: Model) -> [(String, LintFinding)] {
        var findings: [(String, LintFinding)] = []
        func add(
            _ check: LintFinding.Check, entity: String, property: String?, _ message: String, hint: String,
            constraint: [String] = []
        ) {
            let location =
                model.location(ofEntity: entity, property: property) ?? SourceLocation(file: model.source ?? model.name)
            let subject = property.map { "\(entity).\($0)" } ?? entity
            var finding = LintFinding(.error, check, "\(model.name): \(message)", location: location, hint: hint)
                .about(versions: [model.name], entity: entity, property: property)
            finding.constraint = constraint
            findings.append(("\(check.rawValue)\u{0}\(subject)\u{0}\(message)", finding))
        }
        for entity in model.entities {
            for constraint in entity.uniquenessConstraints {
                add(
                    .cloudKitUniqueConstraint, entity: entity.name, property: nil,
                    "entity '\(entity.name)' has a uniqueness constraint on (\(constraint.joined(separator: ", "))): CloudKit does not support unique constraints",
                    hint:
                        "remove the constraint: devices create objects independently and CloudKit cannot enforce uniqueness across them; deduplicate in app code after import (for example on NSPersistentStoreRemoteChange, keep one object per key and merge or delete the others)",
                    constraint: constraint
                )
            }
            for attribute in entity.attributes {
                if attribute.type == .undefined || attribute.type == .objectID {
                    add(
                        .cloudKitUnsupportedType, entity: entity.name, property: attribute.name,
                        "attribute '\(entity.name).\(attribute.name)' has type \(attribute.type.xcodeName)\(attribute.isTransient ? " (transient)" : ""), which CloudKit does not support",
                        hint:
                            attribute.type == .objectID
                            ? "store a reference another way: a relationship (optional, with an inverse), or the object's URI representation in a URI or String attribute"
                            : "give the attribute a concrete type (Transformable with a secure value transformer for arbitrary values), or compute the value in code instead of modelling it"
                    )
                }
                if !attribute.isTransient, !attribute.isOptional, attribute.defaultValue == nil {
                    add(
                        .cloudKitRequiredAttribute, entity: entity.name, property: attribute.name,
                        "attribute '\(entity.name).\(attribute.name)' is required and has no default value: CloudKit needs every attribute optional or with a default",
                        hint:
                            "make it optional (Xcode: Optional; model files: '\(attribute.type.modelFileName)?'), or give it a default value ('\(attribute.type.modelFileName) = …'); records can arrive without the field, for example from an older app version"
                    )
                }
            }
            for relationship in entity.relationships where !relationship.isTransient {
                let name = "'\(entity.name).\(relationship.name)'"
                if !relationship.isOptional {
                    add(
                        .cloudKitRequiredRelationship, entity: entity.name, property: relationship.name,
                        "relationship \(name) is required: CloudKit needs every relationship optional",
                        hint:
                            "make the relationship optional (Xcode: Optional; model files: '\(relationship.destination)\(relationship.isToMany ? "[]" : "?")' or 'optional: true') and check for the related object in app code: CloudKit may save and deliver the two sides of a relationship in different operations"
                    )
                }
                if relationship.inverse == nil {
                    add(
                        .cloudKitMissingInverse, entity: entity.name, property: relationship.name,
                        "relationship \(name) has no inverse: CloudKit needs an inverse for every relationship",
                        hint:
                            "add a relationship on '\(relationship.destination)' back to '\(entity.name)' and name each as the other's inverse (model files: 'inverse <name>'): records may sync out of order, and Core Data links them from either side"
                    )
                }
                if relationship.deleteRule == .deny {
                    add(
                        .cloudKitDenyDeleteRule, entity: entity.name, property: relationship.name,
                        "relationship \(name) uses the Deny delete rule, which CloudKit does not support",
                        hint:
                            "use Nullify (or Cascade when the related objects belong to this one), and check before deleting in app code: another device may delete the object regardless"
                    )
                }
                if relationship.isToMany, relationship.isOrdered {
                    add(
                        .cloudKitOrderedRelationship, entity: entity.name, property: relationship.name,
                        "relationship \(name) is ordered: CloudKit does not support ordered relationships",
                        hint:
                            "make it unordered and keep the order in an attribute of '\(relationship.destination)' (for example 'position: double = 0'), sorting by it when you read"
                    )
                }
            }
        }
        return findings
    }

    // MARK: - Step rules

    struct StepRule {
        var check: LintFinding.Check
        var message: String
        var hint: String
    }

    static let keepIt =
        "older app versions on the user's other devices still sync it, and CloudKit's production schema cannot drop it"

    /// What CloudKit makes of one change after release; nil for changes it allows.
    static func stepRule(_ change: Change) -> StepRule? {
        let subject = change.subject
        let oldSubject = change.oldName.map { old in change.property == nil ? old : "\(change.entity).\(old)" } ?? subject
        switch change.kind {
        case .entityRemoved:
            return StepRule(
                check: .cloudKitRemoved, message: "entity '\(subject)' is removed",
                hint: "keep the entity (stop using it in app code if it is obsolete): \(keepIt)")
        case .attributeRemoved, .relationshipRemoved:
            if change.kind == .attributeRemoved, !change.dropsData { return nil }  // a transient attribute
            let kind = change.kind == .attributeRemoved ? "attribute" : "relationship"
            return StepRule(
                check: .cloudKitRemoved, message: "\(kind) '\(subject)' is removed",
                hint:
                    "keep the \(kind) (make it optional and stop using it in app code if it is obsolete): \(keepIt)")
        case .attributeTransientChanged where change.after == "transient":
            return StepRule(
                check: .cloudKitRemoved, message: "attribute '\(subject)' becomes transient, so it is no longer synced",
                hint: "keep it stored and add a separate transient attribute if you need one: \(keepIt)")
        case .entityRenamed:
            return StepRule(
                check: .cloudKitRenamed, message: "entity '\(oldSubject)' is renamed to '\(subject)'",
                hint:
                    "keep the entity's name (its CloudKit record type is derived from it; the class name may differ), or add a new entity and copy the objects in app code, keeping the old one"
            )
        case .attributeRenamed, .relationshipRenamed:
            let kind = change.kind == .attributeRenamed ? "attribute" : "relationship"
            return StepRule(
                check: .cloudKitRenamed, message: "\(kind) '\(oldSubject)' is renamed to '\(subject)'",
                hint:
                    "add a new \(kind) instead of renaming and copy the values in app code, keeping the old one: its CloudKit field is named after it, and \(keepIt)"
            )
        case .attributeTypeChanged:
            return StepRule(
                check: .cloudKitTypeChanged,
                message: "attribute '\(subject)' changes type from \(change.before ?? "?") to \(change.after ?? "?")",
                hint:
                    "add a new attribute of the new type and convert the values in app code, keeping the old one: a CloudKit field's type is fixed once in production"
            )
        case .propertyKindChanged:
            return StepRule(
                check: .cloudKitTypeChanged,
                message: "'\(subject)' changes from \(change.before ?? "?") to \(change.after ?? "?")",
                hint: "add a new property under a new name and copy the values in app code, keeping the old one")
        case .relationshipDestinationChanged, .relationshipCardinalityChanged:
            let what = change.kind == .relationshipDestinationChanged ? "destination" : "cardinality"
            return StepRule(
                check: .cloudKitTypeChanged,
                message: "relationship '\(subject)' changes \(what) from \(change.before ?? "?") to \(change.after ?? "?")",
                hint:
                    "add a new relationship (optional, with an inverse) and relink the objects in app code, keeping the old one: CloudKit stores to-one and to-many relationships differently, and older app versions still sync the old one"
            )
        case .entityParentChanged, .hierarchyMerged:
            return StepRule(
                check: .cloudKitHierarchyChanged,
                message: change.kind == .hierarchyMerged
                    ? "entities of separate hierarchies (\(change.before ?? "?")) are merged under '\(subject)'"
                    : "entity '\(subject)' changes parent from \(change.before ?? "?") to \(change.after ?? "?")",
                hint:
                    "keep the hierarchy as released: CloudKit stores every entity of a hierarchy as a record of its root entity's type, so moving an entity changes where its records live; add a new entity and copy the objects in app code instead"
            )
        default:
            return nil
        }
    }
}
