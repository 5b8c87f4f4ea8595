import Foundation
import GRDB
import InstarPlanner
@_spi(Layouts) import InstarStore

extension Migrator {
    /// Runs (or resumes) the migration of the store at `store` to `target`, on a thread of its own (the
    /// caller's executor is never blocked).
    ///
    /// Cancelling the calling task stops the run at once: the statement in flight is interrupted and
    /// rolled back, an async hook's task is cancelled, and the result is `.paused(.cancelled)` with
    /// every earlier unit of work committed; calling this again continues from there. The app is ready
    /// to open the store only when the result is `.finished`.
    ///
    /// - Parameters:
    ///   - timeBudget: time from this call, checks included; when it is spent the run stops as for a
    ///     cancellation, with `.paused(.timeBudget)`. A budget shorter than the next unit of work makes
    ///     no progress: the dry run names such units.
    ///   - wait: how long to wait for another process's run of the same store (another call of this
    ///     process always waits for the first to end).
    ///   - backup: an online backup of the store taken before the first step of a new run.
    ///   - stop: a handle to stop the run from elsewhere (``StopRequest/request(_:)``).
    ///   - configuration: the app's GRDB configuration for this store (encryption key, functions, busy timeout).
    ///   - progress: events as they happen; steps are numbered from zero.
    /// - Throws: the errors of ``migrate(storeAt:to:timeBudget:wait:backup:stop:configuration:progress:)``.
    @discardableResult
    public func migrate(
        store: URL, to target: String? = nil, timeBudget: Duration? = nil, wait: Duration = .zero, backup: URL? = nil,
        stop: StopRequest = StopRequest(), configuration: Configuration? = nil,
        progress: (@Sendable (ProgressEvent) -> Void)? = nil
    ) async throws -> MigrationResult {
        // The budget starts now, not when the thread starts.
        let deadline = timeBudget.map { Deadline(seconds: Self.seconds($0), clock: budgetClock) }
        let path = store.path
        return try await onEngineThread(stop: stop) {
            try self.migrate(
                storeAt: path, to: target, timeBudget: deadline.map(\.remaining), wait: Self.seconds(wait),
                backup: backup?.path, stop: stop, configuration: configuration, progress: progress)
        }
    }

    /// Whether the store needs migrating and what would run, without writing anything (an unfinished
    /// run included). A launch can ask this first and show its migration screen only when needed.
    /// Hooks are not looked for: it may be asked before they are registered.
    public func pendingWork(store: URL, to target: String? = nil, configuration: Configuration? = nil) async throws -> PendingWork {
        let path = store.path
        return try await onEngineThread(stop: StopRequest()) {
            try self.pendingWork(storeAt: path, to: target, configuration: configuration)
        }
    }

    /// The synchronous ``pendingWork(store:to:configuration:)``.
    public func pendingWork(storeAt path: String, to target: String? = nil, configuration: Configuration? = nil) throws -> PendingWork {
        if FileManager.default.fileExists(atPath: path + "-journal") { return .interruptedWrite }
        do {
            let reader = try SQLiteStore.open(
                at: path, layout: try plan.storeLayout(path: path), readOnly: true, configuration: configuration)
            defer { try? reader.close() }
            let settled = try settledDecision(reader, target: target, checkingHooks: false, tries: 4)
            switch try settled ?? decide(reader, target: target, checkingHooks: false) {
            case .upToDate: return .none
            case .resume(let entry):
                let holder = try StoreError.wrapping(path: path, doing: .readingLease) {
                    try reader.withDatabase { db in try Lease.holder(db) }
                }
                return .unfinishedRun(entry, heldBy: holder.flatMap { $0.isAlive ? $0 : nil })
            case .start(let steps):
                return .migration(
                    from: steps.first?.from ?? "", to: steps.last?.to ?? "",
                    steps: steps.map { PendingStep(from: $0.from, to: $0.to, kind: $0.kind) })
            }
        } catch {
            throw MigrationErrors.typed(error, path: path)
        }
    }

    /// ``decide(_:target:checkingHooks:)`` on a connection that holds no lock, while another process may be
    /// migrating: each of its reads sees the store as committed at that moment, so a look whose reads
    /// straddled another connection's commit (a version read before it, a schema after it) may report a
    /// drift that is not there. Such a look decides nothing and is made again, up to `tries` times; nil
    /// when every try straddled a commit. A refusal on a store nobody wrote meanwhile stands.
    func settledDecision(_ reader: SQLiteStore, target: String?, checkingHooks: Bool, tries: Int) throws -> RunDecision? {
        for _ in 0..<tries {
            let seen = try reader.dataVersion()
            do {
                return try decide(reader, target: target, checkingHooks: checkingHooks)
            } catch where (try? reader.dataVersion()) != seen {
                continue
            }
        }
        return nil
    }

    /// Runs the engine's blocking work on a thread of its own: SQLite, lease waits and async hooks
    /// bridged by a condition must never block a thread of the cooperative pool.
    func onEngineThread<T: Sendable>(stop: StopRequest, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        // The thread sees the layouts the calling task sees (a test's `LayoutRegistry.withScope`).
        let layouts = LayoutRegistry.currentScope
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let thread = Thread { continuation.resume(with: Result { try LayoutRegistry.within(layouts) { try work() } }) }
                thread.name = "instar.migrate"
                thread.stackSize = 8 << 20
                thread.start()
            }
        } onCancel: {
            stop.request(.cancelled)
        }
    }
}

/// What migrating a store would do now, found without writing (``Migrator/pendingWork(store:to:configuration:)``).
public enum PendingWork: Sendable {
    /// The store is at the target and no run is unfinished: the app may open it. (It may still hold
    /// an old table a sliced run retired; the next `migrate` call deletes it within its budget.)
    case none
    /// A new run would take these steps (numbered from zero in progress events).
    case migration(from: String, to: String, steps: [PendingStep])
    /// A run stopped before the end (paused, failed or killed) and would continue where its journal
    /// says; `heldBy` is the live process or run working on it now, if any.
    case unfinishedRun(JournalEntry, heldBy: Lease?)
    /// A killed writer left a hot journal beside the store: the next run rolls that write back first,
    /// then continues (its journal cannot be read before).
    case interruptedWrite

    /// True unless the store is at the target with nothing unfinished.
    public var isNeeded: Bool {
        if case .none = self { return false }
        return true
    }
}

/// One step a new run would take.
public struct PendingStep: Sendable, Hashable {
    /// The version it starts from.
    public var from: String
    /// The version it ends at.
    public var to: String
    /// What runs it.
    public var kind: Step.Kind
}

extension MigrationResult {
    /// True when the store is at the target: the only result after which an app may open it.
    public var isFinished: Bool {
        if case .finished = self { return true }
        return false
    }
}
