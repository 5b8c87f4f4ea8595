import Foundation
import InstarInference
@_spi(Layouts) import InstarModel

/// The framework a fix is spelled in: the same loss is fixed with a renaming identifier in Xcode, with
/// `@Attribute(originalName:)` in SwiftData, and with `renamedFrom:` in an Instar model file.
public enum FixFramework: String, Sendable, Hashable, Codable {
    case coreData
    case swiftData
    case instar

    /// The framework a plan's versions are written for: Core Data's layout means an Xcode model.
    public init(plan: Plan) {
        self = plan.layout.hasPrefix("coredata") ? .coreData : .instar
    }
}

/// Values a step loses silently, and meanings it changes silently.
///
/// Core Data and SwiftData infer a migration that drops an attribute and adds another without a word:
/// a type change done as drop + add, a to-one turned into a new entity, attributes split out into a new
/// entity all migrate "successfully" with every value gone. Such a step is a finding unless the intent
/// file declares the drop; a changed version hash modifier (the same schema, now meaning something else)
/// is one to confirm.
package enum UndeclaredChanges {
    /// The findings of every step along the plan's versions up to the target, in order.
    package static func check(_ plan: Plan, intent: ChangeIntent, framework: FixFramework) -> [ReleaseFinding] {
        check(plan, steps: consecutiveSteps(of: plan), intent: intent, framework: framework)
    }

    /// The findings of the given steps (pairs of version names), in order, each step once.
    ///
    /// A release check judges the steps stores really take: a drop between two versions that the chain
    /// goes straight past (Core Data infers from the store's version to the target in one step) loses
    /// nothing, so it is no finding for a store that takes that chain.
    package static func check(_ plan: Plan, steps: [[String]], intent: ChangeIntent, framework: FixFramework) -> [ReleaseFinding] {
        var seen: Set<[String]> = []
        var findings: [ReleaseFinding] = []
        for step in steps where step.count == 2 && seen.insert(step).inserted {
            guard let old = plan.index(of: step[0]), let new = plan.index(of: step[1]) else { continue }
            var found = check(from: plan.versions[old], to: plan.versions[new], intent: intent, framework: framework)
            // The app's mapping model says where each entity's values go: what it leaves behind it drops on
            // purpose, so the step's losses are no finding (its meaning changes still are).
            if plan.mappings.contains(where: { $0.from == step[0] && $0.to == step[1] }) {
                found.removeAll { $0.kind == .undeclaredDataLoss || ($0.kind == .acknowledged && $0.check == "droppedWhileAdding") }
            }
            findings += found
        }
        return findings
    }

    /// The plan's consecutive versions up to the target, as steps: what a release check judges when no
    /// store tells which chain is taken.
    package static func consecutiveSteps(of plan: Plan) -> [[String]] {
        let target = plan.targetVersion.flatMap(plan.index(of:)) ?? plan.versions.count - 1
        guard target > 0 else { return [] }
        return (0..<target).map { [plan.versions[$0].name, plan.versions[$0 + 1].name] }
    }

    /// The findings of one step.
    package static func check(from old: Model, to new: Model, intent: ChangeIntent, framework: FixFramework) -> [ReleaseFinding] {
        let diff = ModelDiff(from: old, to: new)
        let step = [old.name, new.name]
        var findings: [ReleaseFinding] = []
        for loss in Losses(old: old, new: new, diff: diff).found {
            var finding = loss.finding(step: step, framework: framework)
            if let declared = intent.entry(.drop, entity: loss.entity, property: loss.property) {
                finding.kind = .acknowledged
                finding.declared = declared
                finding.hint = nil
            }
            findings.append(finding)
        }
        for change in diff.changes where change.kind == .entityHashModifierChanged || change.kind == .propertyHashModifierChanged {
            var finding = ReleaseFinding(
                .meaningChange, check: "hashModifierChanged",
                "the version hash modifier of '\(change.subject)' changes (\(change.before ?? "none") → \(change.after ?? "none")): "
                    + "its values are kept as they are, but the version says they now mean something else",
                hint: "if the stored values must change with the meaning, convert them in a hook (or a custom stage); "
                    + "then confirm it in \(ChangeIntent.fileName): '- meaning: \(change.subject)' with a reason",
                location: new.location(ofEntity: change.entity, property: change.property), step: step,
                entity: change.entity, property: change.property)
            if let declared = intent.entry(.meaning, entity: change.entity, property: change.property) {
                finding.kind = .acknowledged
                finding.declared = declared
                finding.hint = nil
            }
            findings.append(finding)
        }
        return findings
    }
}

extension UndeclaredChanges {
    /// A release check's findings without a store: lint's, then the undeclared losses and meaning
    /// changes (and the declared ones, acknowledged). Lint's probable-rename warning about a value a
    /// loss finding already names is left out: the loss says the same with its destination and fix.
    package static func releaseFindings(
        _ plan: Plan, steps: [[String]]? = nil, lint: [LintFinding], intent: ChangeIntent, framework: FixFramework
    ) -> [ReleaseFinding] {
        let changes = check(plan, steps: steps ?? consecutiveSteps(of: plan), intent: intent, framework: framework)
        let covered = Set(changes.compactMap { $0.kind == .meaningChange ? nil : $0.subject })
        let kept = lint.filter { finding in
            guard finding.check == .probableRename, let dropped = finding.dropped else { return true }
            return !covered.contains(dropped.property.map { "\(dropped.entity).\($0)" } ?? dropped.entity)
        }
        return kept.map(ReleaseFinding.init(lint:)) + changes
    }
}
