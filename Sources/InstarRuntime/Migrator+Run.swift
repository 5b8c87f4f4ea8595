import Foundation
import GRDB
import InstarModel
import InstarPlanner
import InstarStore

/// What the read-only look before a run decided.
enum RunDecision {
    /// The store is at the target and no run is unfinished: nothing to write.
    case upToDate
    /// An unfinished run continues from its journal.
    case resume(JournalEntry)
    /// A new run of these steps.
    case start([Step])
}

extension Migrator {
    /// Runs (or resumes) the migration of the store at `path` to `target`.
    ///
    /// Each step, hook and batch commits with its journal record, so a run that is killed, fails, or
    /// stops for its time budget or a cancellation continues exactly where it stopped the next time
    /// this is called. A store with nothing to do is only read: not a byte of it changes.
    ///
    /// One run per store: a second call for the same store in this process waits until the first has
    /// ended (then usually finds nothing to do); another process's run makes this one wait up to `wait`
    /// seconds, then throw ``LeaseError``. A dead owner's lease is taken over.
    ///
    /// - Parameters:
    ///   - timeBudget: seconds from this call, checks before the first write included; when they run
    ///     out, the statement in flight is interrupted and rolled back, and the result is
    ///     `.paused(.timeBudget)` with every earlier unit of work committed.
    ///   - wait: seconds to wait for another process's run to end.
    ///   - backup: take an online backup to this path before the first step (fresh runs only).
    ///   - stop: a request to stop now (signal handlers and apps set it): the statement in flight is
    ///     interrupted and rolled back, and the result is `.paused(reason)`.
    ///   - configuration: the app's GRDB configuration for its connections to this store
    ///     (`prepareDatabase` — an encryption key, SQL functions its views or triggers call — and its busy
    ///     timeout); Instar's own connection uses it.
    ///   - progress: events as they happen (also on ``progressEvents()``).
    /// - Throws: an ``InstarError``: ``StoreError``, ``HookError``, ``LeaseError``, ``ResumeRefused``,
    ///   ``NoChain``; never a raw SQLite error. A missing hook is found before anything is written.
    @discardableResult
    public func migrate(
        storeAt path: String, to target: String? = nil, timeBudget: TimeInterval? = nil, wait: TimeInterval = 0,
        backup: String? = nil, stop: StopRequest = StopRequest(), configuration: Configuration? = nil,
        progress: ((ProgressEvent) -> Void)? = nil
    ) throws -> MigrationResult {
        let deadline = timeBudget.map { Deadline(seconds: $0, clock: budgetClock) }
        defer { hub.finishAll() }  // finished, paused or failed: the progress streams end with the run
        if let target, plan.index(of: target) == nil {
            throw StoreError(
                .unknownVersion, path: plan.file, "the target '\(target)' is not a version of the plan; nothing was changed",
                hint: Spelling.suggestion(for: target, among: plan.versions.map(\.name)))
        }
        let identity = StoreIdentity(path: path)
        let lease = Lease.mine()
        guard let token = lease.token, ActiveRuns.shared.enter(identity, token: token, stopWaiting: { stop.reason(by: deadline) != nil })
        else { return .paused(stop.reason(by: deadline) ?? .cancelled) }
        defer { ActiveRuns.shared.leave(identity, token: lease.token ?? "") }
        do {
            let run = RunRequest(
                path: path, target: target, deadline: deadline, wait: wait, backup: backup, stop: stop,
                configuration: configuration, lease: lease, progress: progress)
            return try self.run(run)
        } catch {
            if let reason = stop.requested, ChainExecutor.isInterruption(error) { return .paused(reason) }
            throw MigrationErrors.typed(error, path: path)
        }
    }

    /// One call's request, as the run needs it.
    struct RunRequest {
        var path: String
        var target: String?
        var deadline: Deadline?
        var wait: TimeInterval
        var backup: String?
        var stop: StopRequest
        var configuration: Configuration?
        var lease: Lease
        var progress: ((ProgressEvent) -> Void)?

        /// The reason to stop now, if any (a spent budget becomes a stop request).
        func stopReason() -> PauseReason? { stop.reason(by: deadline) }
    }

    private func run(_ request: RunRequest) throws -> MigrationResult {
        let path = request.path
        // Decided on a read-only connection: a read-write one would checkpoint a WAL store's log into
        // the database file when it closes, and the files would change although nothing was
        // migrated. A store left with a hot journal by a killed run cannot be read read-only (the
        // journal must be rolled back first): it is looked at once opened for writing, which
        // recovers it, as any opening would.
        let layout = try plan.storeLayout(path: path)
        var decision: RunDecision?
        // A store at the target may still hold tables a sliced run retired: the call deletes them.
        var leftRetiredTables = false
        if !FileManager.default.fileExists(atPath: path + "-journal") {
            do {
                let reader = try SQLiteStore.open(
                    at: path, layout: layout, readOnly: true, configuration: request.configuration)
                defer { try? reader.close() }
                decision = try decide(reader, target: request.target)
                leftRetiredTables = try Self.hasRetiredTables(reader)
            } catch let error as StoreError where [.readOnly, .needsRecovery].contains(error.kind) {
                decision = nil
            }
        }
        if case .upToDate? = decision, !leftRetiredTables { return .finished(steps: 0) }
        if let reason = request.stopReason() { return .paused(reason) }  // nothing written yet

        let store = try SQLiteStore.open(at: path, layout: layout, configuration: request.configuration)
        defer { try? store.close() }
        if decision == nil {
            decision = try decide(store, target: request.target)
            leftRetiredTables = try Self.hasRetiredTables(store)
        }
        if case .upToDate? = decision, !leftRetiredTables { return .finished(steps: 0) }
        let settings = self.settings
        if let mode = settings.secureDelete ?? plan.options.secureDelete {
            try store.setSecureDelete(mode)
        }
        let hub = self.hub
        let progress = request.progress
        let executor = ChainExecutor(
            plan: plan, store: store, hooks: settings.swiftHooks, mappingHooks: settings.mappingHooks,
            allowCommands: settings.allowCommands, fuse: settings.fuse, slicing: settings.slicing, stop: request.stop,
            deadline: request.deadline,
            lease: request.lease,
            emit: { event in
                progress?(event)
                hub.yield(event)
            })
        try store.interruptStatements(when: executor.interruptCheck, every: 10_000)
        defer { try? store.interruptStatements(when: nil) }
        defer {
            try? store.interruptStatements(when: nil)  // releasing must not be interrupted
            executor.releaseLease()
        }
        // At the target with retired tables left: only the tidy-up runs, within the budget. It claims
        // no lease: it writes no journal, and deletes only Instar's retired tables.
        if case .upToDate? = decision {
            try executor.tidyUp()
            return .finished(steps: 0)
        }
        // The lease is claimed by the run's first write transaction, not by a commit of its own; until
        // then another run may get there first (its claim is not readable before its first commit): a
        // run that committed nothing waits for it and starts again, within `wait`.
        let giveUp = Date().addingTimeInterval(request.wait)
        while true {
            guard try executor.awaitLease(until: giveUp) else { return .paused(request.stopReason() ?? .cancelled) }
            do {
                return try executor.run {
                    let (_, chain, _) = try self.chain(for: store, to: request.target)
                    try self.checkHooks(chain.steps.map { ($0.from, $0.to) }, store: store)
                    if let backup = request.backup, !chain.steps.isEmpty {
                        try store.backup(to: backup)
                        try Lease.removeAll(fromCopyAt: backup)  // the backup is the store before the run, not held by it
                    }
                    return chain.steps
                }
            } catch where executor.claimPending && ChainExecutor.isClaimContention(error) && Date() < giveUp {
                if let reason = request.stopReason() { return .paused(reason) }
                Thread.sleep(forTimeInterval: min(0.2, max(0.01, giveUp.timeIntervalSinceNow)))
            }
        }
    }

    /// Whether the store holds tables a sliced run retired and has not deleted yet (``ChainExecutor/tidyUp()``).
    static func hasRetiredTables(_ store: SQLiteStore) throws -> Bool {
        try StoreError.wrapping(path: store.path, doing: "reading the retired tables") {
            try store.withDatabase { db in try !store.retiredTables(db).isEmpty }
        }
    }

    /// What a run of this store would do, decided without writing: nothing (at the target), resume
    /// an unfinished run, or start a chain. Refuses what would fail before the first write: a resumed
    /// run whose target differs; a store at an unknown version or with drift; a target no chain
    /// reaches; a hook the chain needs that nobody provides; data the first step cannot take.
    func decide(_ store: SQLiteStore, target: String?, checkingHooks: Bool = true) throws -> RunDecision {
        if let unfinished = try StoreError.wrapping(path: store.path, doing: "reading the journal", { try store.withDatabase { db in try Journal.unfinished(db) } }) {
            if let target, unfinished.target != target {
                throw ResumeRefused(path: store.path, reason: .otherTarget(unfinishedTarget: unfinished.target, requested: target))
            }
            let remaining = unfinished.chain[min(unfinished.step, unfinished.chain.count)...].map { ($0.from, $0.to) }
            if checkingHooks { try checkHooks(Array(remaining), store: store) }
            return .resume(unfinished)
        }
        // At the target: answered from the schema and metadata alone, without pricing a chain (which
        // counts every table's rows), so that a launch with nothing to do stays cheap on a big store.
        let (version, _) = try currentVersion(of: store)
        if version.name == (target ?? plan.targetVersion) { return .upToDate }
        let (current, chain, _) = try self.chain(for: store, to: target, from: version)
        if chain.steps.isEmpty { return .upToDate }
        if checkingHooks { try checkHooks(chain.steps.map { ($0.from, $0.to) }, store: store) }
        if let first = chain.steps.first, first.kind != .mapping, first.stage?.before.isEmpty ?? true,
            let next = plan.versions.first(where: { $0.name == first.to })
        {
            try store.checkDataConditions(from: current, to: next)
        }
        return .start(chain.steps)
    }

    /// Every hook the steps need is there (stage hooks defined and registered, mapping hooks provided,
    /// command hooks allowed and possible), or the error naming each one that is not.
    func checkHooks(_ steps: [(from: String, to: String)], store: SQLiteStore) throws {
        let missing = missingStageHooks(in: steps) + (try missingMappingHooks(in: steps, store: store))
        if !missing.isEmpty { throw HookError(missing: missing) }
        if let refused = refusedCommandHook(in: steps) { throw refused }
    }
}

/// Turns whatever a run threw into the errors ``Migrator`` documents: an ``InstarError`` as it is, and
/// anything else (SQLite's errors, a package-only error of a lower layer) as a ``StoreError`` that keeps
/// it, so that an app never receives an error type it cannot name.
enum MigrationErrors {
    static func typed(_ error: any Error, path: String) -> any Error {
        if error is any InstarError || error is CancellationError { return error }
        return StoreError.from(error, path: path, doing: "migrating")
    }
}

extension StoreError {
    /// Runs `body`, turning SQLite's failures into store errors.
    package static func wrapping<T>(path: String, doing action: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StoreError.from(error, path: path, doing: action)
        }
    }
}
