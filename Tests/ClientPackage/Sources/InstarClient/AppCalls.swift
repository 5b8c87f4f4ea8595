import Foundation
import Instar

// Calls an app makes besides the launch example, written as an app would write them: if one of these
// names stops being public, or two public types share a name, this package stops compiling.

/// What the app tells its user (or its log) when a migration fails: one catch, one switch on the domain.
func explain(_ error: any Error) -> String {
    guard let error = error as? any InstarError else { return "unexpected: \(error)" }
    switch error.domain {
    case .store(let store) where store.kind == .locked:
        return "busy (SQLite code \(store.sqlite?.code ?? 0)); try again later"
    case .store(let store) where store.kind == .schemaDrift:
        return "the store's schema drifted: " + store.drift.map { "\($0.kind.rawValue) \($0.table)" }.joined(separator: ", ")
    case .store(let store):
        return "store \(store.path): \(store.kind.rawValue)"
    case .hook(let hook):
        return "hook \(hook.hook) in \(hook.step): \(hook.underlying.map { "\($0)" } ?? hook.message)"
    case .lease(let lease):
        return "another run holds the store: \(lease)"
    case .noChain(let noChain):
        return "no chain from \(noChain.from) to \(noChain.to) (\(noChain.gaps.count) gap(s))"
    case .model(let model):
        return model.problems.map(\.description).joined(separator: "\n")
    case .plan(let plan):
        return plan.problems.map(\.description).joined(separator: "\n")
    case .mapping, .expressionSyntax, .mappingStep, .layout, .resumeRefused, .assumedMapping, .other:
        return error.description
    }
}

/// Asks, without writing, whether the store needs work, and what a dry run would do.
func preview(plan url: URL, store: URL) async throws -> String {
    let plan = try PlanFileReader.read(url: url)
    let migrator = Migrator(plan: plan)
    let pending = try await migrator.pendingWork(store: store)
    guard pending.isNeeded else { return "up to date" }
    let report = try DryRun.report(plan: plan, storePath: store.path)  // throws only StoreError
    return "\(report.from) → \(report.to): \(report.steps.count) step(s), \(report.risks.count) risk(s)"
}

/// A batched Swift hook with progress and cancellation, and a progress stream.
func registerBackfill(on migrator: Migrator) -> Task<Void, Never> {
    migrator.register(hook: "backfill") { (context: HookContext) in
        try context.batches(of: "Track", size: 500) { db, keys in
            try db.execute(
                sql: #"UPDATE "Track" SET "plays" = 0 WHERE "plays" IS NULL AND rowid BETWEEN ? AND ?"#,
                arguments: [keys.lowerBound, keys.upperBound])
        }
    }
    let events = migrator.progressEvents()
    return Task {
        for await event in events {
            if case .stepFinished(let index, let count, let seconds) = event {
                print("step \(index + 1)/\(count) in \(seconds) s")
            }
        }
    }
}

/// A run that stops on request, and what the app does with the result.
func migrateInBackground(_ migrator: Migrator, store: URL, stop: StopRequest) throws -> Bool {
    switch try migrator.migrate(storeAt: store.path, timeBudget: 30, stop: stop) {
    case .finished: return true
    case .paused(let reason):
        print("paused (\(reason.rawValue)): the next launch continues")
        return false
    }
}

/// What a dry run tells the app about hooks, as values (no strings to re-parse).
func hookPlan(_ report: DryRunReport) -> [String] {
    report.steps.flatMap { step in
        step.hooks.map { hook in
            switch hook.phase {
            case .before, .after: "\(hook.name) \(hook.phase) \(step.from) → \(step.to)"
            case .mapping(let point): "\(hook.name) inside the mapping at \(point)"
            }
        }
    }
}
