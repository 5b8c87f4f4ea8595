@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
import Foundation
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore
import InstarRuntime

/// What one step did to the rows, found by replaying the chain one step at a time.
struct StepFinding {
    var step: Step
    var outcome: RowComparison.Outcome
}

extension MigrationTester {
    /// Runs the chain again from the snapshot, one step at a time (`migrate --to` each step's version),
    /// comparing the store before and after each step. Only done when the whole run lost rows or changed
    /// values: it tells which step did it, and whether that step runs app code (hooks, a mapping model)
    /// that may compute values on purpose.
    func replay(snapshot: String, chain: Chain, folder: URL) throws -> [StepFinding] {
        let replayPath = folder.appendingPathComponent("replay.sqlite").path
        let copy = try SQLiteStore.open(at: snapshot, layout: try migrator.layout, readOnly: true)
        try copy.backup(to: replayPath)
        try copy.close()
        defer { StoreChecks.removeStore(at: replayPath) }
        var findings: [StepFinding] = []
        for (index, step) in chain.steps.enumerated() {
            guard let from = version(named: step.from), let to = version(named: step.to) else { break }
            let beforePath = folder.appendingPathComponent("replay-\(index).sqlite").path
            defer { StoreChecks.removeStore(at: beforePath) }
            do {
                let store = try SQLiteStore.open(at: replayPath, layout: try migrator.layout)
                try store.backup(to: beforePath)
                try store.close()
            }
            guard case .finished = try migrator.migrate(storeAt: replayPath, to: step.to) else { break }
            let before = try SQLiteStore.open(at: beforePath, layout: try migrator.layout, readOnly: true)
            let after = try SQLiteStore.open(at: replayPath, layout: try migrator.layout, readOnly: true)
            defer {
                try? before.close()
                try? after.close()
            }
            let comparison = RowComparison(
                before: .init(store: before, model: from, map: try before.layout.storageMap(for: from)),
                after: .init(store: after, model: to, map: try after.layout.storageMap(for: to)),
                correspondence: RowCorrespondence(source: from, steps: [step], versions: plan.versions, ordered: plan.versionsAreOrdered))
            findings.append(StepFinding(step: step, outcome: try comparison.run()))
        }
        return findings
    }

    /// The rows and values checks from the whole run's comparison, with the steps the replay blames.
    ///
    /// Rows that disappear fail, whichever step loses them (a hook that deletes rows on purpose is
    /// still reported: the report cannot tell purpose from a forgotten `WHERE`). Values changed in a step
    /// that runs app code are that code's results: noted, not compared. Values changed in a step without
    /// app code fail, naming the step.
    func judge(_ outcome: RowComparison.Outcome, findings: [StepFinding]?, chain: Chain) -> [MigrationCheck] {
        let kept = outcome.rowsBefore.values.reduce(0, +)
        var rows = MigrationCheck(.rows, .passed, "every row of the kept entities is there (\(kept) rows before)")
        if let first = outcome.firstMissing {
            let total = outcome.missing.values.reduce(0) { $0 + $1.count }
            let culprit = findings?.first { !$0.outcome.missing.isEmpty }
            let blamed = culprit.map { "step " + describe($0.step) } ?? "the chain run as a whole (no single step loses them)"
            rows = MigrationCheck(
                .rows, .failed, "\(total) row(s) missing after \(blamed); first: \(culprit?.outcome.firstMissing ?? first)",
                step: culprit.map { Self.label($0.step) }, difference: culprit?.outcome.firstMissing ?? first)
            rows.count = total
            rows.hooks = culprit?.step.stage.map(\.hooks).flatMap { $0.isEmpty ? nil : $0 }
        }
        rows.notes = outcome.notes.filter { !$0.contains(": dropped by step") }
        guard let first = outcome.firstChanged else {
            return [rows, MigrationCheck(.values, .passed, "kept and renamed properties read the same")]
        }
        var notes: [String] = []
        for finding in findings ?? [] where !finding.outcome.changed.isEmpty {
            let runsCode = (finding.step.stage?.hooks.isEmpty == false) || finding.step.mapping != nil
            let changed = finding.outcome.changed.keys.sorted()
            if runsCode {
                notes.append(changed.joined(separator: ", ") + ": changed by step \(describe(finding.step)), computed there, not compared")
                continue
            }
            let difference = finding.outcome.firstChanged!
            let total = finding.outcome.changed.values.reduce(0) { $0 + $1.count }
            var values = MigrationCheck(
                .values, .failed, "\(total) value(s) changed by step \(describe(finding.step)); first: \(difference)",
                step: Self.label(finding.step), difference: difference, notes: notes)
            values.count = total
            return [rows, values]
        }
        if findings?.isEmpty == false && !notes.isEmpty {
            return [rows, MigrationCheck(.values, .passed, "kept and renamed properties read the same, except values computed by app code", notes: notes)]
        }
        let total = outcome.changed.values.reduce(0) { $0 + $1.count }
        var values = MigrationCheck(
            .values, .failed, "\(total) value(s) changed by the chain run as a whole (no single step changes them); first: \(first)",
            step: chain.steps.map(Self.label).joined(separator: ", "), difference: first)
        values.count = total
        return [rows, values]
    }
}
