import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore

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
                .unknownVersion, path: plan.file, reason: .targetNotInPlan(target: target, versions: plan.versions.map(\.name)))
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
        let layout = try plan.storeLayout(path: path)
        guard case .work(var look) = try readOnlyLook(request, layout: layout) else { return .finished(steps: 0) }
        defer { try? look?.close() }
        if let reason = request.stopReason() { return .paused(reason) }  // nothing written yet

        // From here on the run may write: it holds the store's lock (the kernel's word that it lives)
        // until it returns, and every attempt below reads the store afresh under it.
        let giveUp = Date().addingTimeInterval(request.wait)
        var lock: StoreLock?
        // Another run holds the store: the look's counts will not outlive its commits, and a look kept
        // open would keep that run's connection from being the last one to close (the one that
        // checkpoints a WAL store's log).
        let closeLook = {
            try? look?.close()
            look = nil
        }
        switch StoreLock.acquire(store: path, until: giveUp, willWait: closeLook, shouldStop: { request.stopReason() != nil }) {
        case .acquired(let held): lock = held
        case .unavailable: lock = nil
        case .stopped: return .paused(request.stopReason() ?? .cancelled)
        case .timedOut: throw LeaseError(path: path, holder: try holderHoldingTheLock(request, layout: layout))
        }
        defer { lock?.release() }  // after the attempt released the lease row: a live row always has its lock
        var lease = request.lease
        lease.holdsLock = lock != nil

        var steps = 0
        // A paused run towards an earlier target is finished first (its hooks are part-way), then a new
        // run goes on to the target asked for: at most two runs, plus retries after contention.
        while true {
            switch try attempt(request, layout: layout, lease: lease, giveUp: giveUp, look: &look) {
            case .paused(let reason):
                return .paused(reason)
            case .finished(let done, let atTarget):
                steps += done
                if atTarget { return .finished(steps: steps) }
            case .contended:
                if let reason = request.stopReason() { return .paused(reason) }
                Thread.sleep(forTimeInterval: min(0.2, max(0.01, giveUp.timeIntervalSinceNow)))
            }
        }
    }

    /// What the read-only look before a run found.
    private enum Look {
        /// The store is at the target, no run is unfinished and no retired table is left.
        case nothingToDo
        /// There is work: the look's connection, still open, whose row counts the first attempt may
        /// take (``SQLiteStore/adoptCounts(from:)``); nil when the look could not read the store.
        case work(SQLiteStore?)
    }

    /// Whether a read-only look finds nothing to write: the store at the target, no run unfinished, no
    /// retired table left. Decided on a read-only connection: a read-write one would checkpoint a WAL
    /// store's log into the database file when it closes, and the files would change although nothing
    /// was migrated. A store left with a hot journal by a killed run cannot be read read-only (the
    /// journal must be rolled back first): it is looked at once opened for writing, as any opening would.
    private func readOnlyLook(_ request: RunRequest, layout: any StoreLayout) throws -> Look {
        guard !FileManager.default.fileExists(atPath: request.path + "-journal") else { return .work(nil) }
        var kept: SQLiteStore?
        do {
            let reader = try SQLiteStore.open(
                at: request.path, layout: layout, readOnly: true, configuration: request.configuration)
            defer { if kept == nil { try? reader.close() } }
            // A look that straddled another run's commit decides nothing: the attempt decides again
            // under the store's lock. A refusal on a store nobody wrote meanwhile is made here, before
            // the store is opened for writing.
            guard case .upToDate? = try settledDecision(reader, target: request.target, checkingHooks: true, tries: 1),
                try !Self.hasRetiredTables(reader)
            else {
                kept = reader
                return .work(reader)
            }
            return .nothingToDo
        } catch let error as StoreError where [.readOnly, .needsRecovery, .locked].contains(error.kind) {
            return .work(nil)  // another run is committing: decided again under the lock, after the wait
        }
    }

    /// What one attempt came to.
    private enum Attempt {
        /// A run ended at its target after `steps` steps; `atTarget` when that is the target asked for.
        case finished(steps: Int, atTarget: Bool)
        case paused(PauseReason)
        /// Another writer got there first and this attempt wrote nothing: the next one reads again.
        case contended
    }

    /// One attempt: a new connection, so that nothing is decided on what an earlier attempt saw (row
    /// counts alone are taken from the read-only look, and only when it proves nothing was committed
    /// since); the decision made again on it; then the executor runs the decided work, claiming the
    /// lease in its first write transaction.
    private func attempt(_ request: RunRequest, layout: any StoreLayout, lease: Lease, giveUp: Date, look: inout SQLiteStore?) throws -> Attempt {
        let store = try SQLiteStore.open(at: request.path, layout: layout, configuration: request.configuration)
        defer { try? store.close() }
        // The read-only look priced the same chain: its counts stand if nothing was committed since.
        // Closed before anything is written, so that this connection, the last one open, checkpoints
        // a WAL store's log when it closes.
        if let reader = look {
            look = nil
            try? store.adoptCounts(from: reader)
            try? reader.close()
        }
        let decision = try decide(store, target: request.target)
        let retired = try Self.hasRetiredTables(store)
        if case .upToDate = decision, !retired { return .finished(steps: 0, atTarget: true) }
        let settings = self.settings
        try store.fitPageCache(toStoreWithin: settings.pageCacheLimit)
        if let mode = settings.secureDelete ?? plan.options.secureDelete {
            try store.setSecureDelete(mode)
        }
        let hub = self.hub
        let progress = request.progress
        let executor = ChainExecutor(
            plan: plan, store: store, hooks: settings.swiftHooks, mappingHooks: settings.mappingHooks,
            allowCommands: settings.allowCommands, fuse: settings.fuse, slicing: settings.slicing, stop: request.stop,
            deadline: request.deadline, lease: lease,
            emit: { event in
                progress?(event)
                hub.yield(event)
            })
        try store.interruptStatements(when: executor.interruptCheck, every: 10_000)
        defer {
            try? store.interruptStatements(when: nil)  // releasing must not be interrupted
            executor.committer.releaseLease()
        }
        guard try executor.awaitLease(until: giveUp) else { return .paused(request.stopReason() ?? .cancelled) }
        // At the target with retired tables left: only the tidy-up runs, within the budget.
        if case .upToDate = decision {
            try executor.tidyUp()
            return .finished(steps: 0, atTarget: true)
        }
        let asked = request.target ?? plan.targetVersion
        do {
            let result = try executor.run {
                let (_, chain, _) = try self.chain(for: store, to: request.target)
                try self.checkHooks(chain.steps.map { ($0.from, $0.to) }, store: store)
                if let backup = request.backup, !chain.steps.isEmpty {
                    try store.backup(to: backup)
                    try Lease.removeAll(fromCopyAt: backup)  // the backup is the store before the run, not held by it
                }
                return chain.steps
            }
            switch result {
            case .paused(let reason): return .paused(reason)
            case .finished(let steps): return .finished(steps: steps, atTarget: executor.runTarget.map { $0 == asked } ?? true)
            }
        } catch where executor.committer.claimPending && ChainExecutor.isClaimContention(error) && Date() < giveUp {
            return .contended
        }
    }

    /// Who holds the store when its lock could not be had in time: the lease row's owner, or (before
    /// that owner's first commit makes its row readable) the lock file's.
    private func holderHoldingTheLock(_ request: RunRequest, layout: any StoreLayout) throws -> Lease {
        let reader = try? SQLiteStore.open(at: request.path, layout: layout, readOnly: true, configuration: request.configuration)
        defer { try? reader?.close() }
        if let holder = try? reader?.withDatabase({ db in try Lease.holder(db) }) { return holder }
        let now = Date()
        return Lease(
            owner: "another migration (it holds \(StoreLock.path(forStore: request.path)))", pid: 0,
            host: ProcessInfo.processInfo.hostName, since: now, heartbeat: now, token: nil, processStart: nil)
    }

    /// Whether the store holds tables a sliced run retired and has not deleted yet (``ChainExecutor/tidyUp()``).
    static func hasRetiredTables(_ store: SQLiteStore) throws -> Bool {
        try StoreError.wrapping(path: store.path, doing: .readingRetiredTables) {
            try store.withDatabase { db in try !store.retiredTables(db).isEmpty }
        }
    }

    /// What a run of this store would do, decided without writing: nothing (at the target), resume
    /// an unfinished run, or start a chain. Refuses what would fail before the first write: a resumed
    /// run whose target differs; a store at an unknown version or with drift; a target no chain
    /// reaches; a hook the chain needs that nobody provides; a schema resting on assumed SwiftData
    /// mappings the store does not prove; data the first step cannot take.
    func decide(_ store: SQLiteStore, target: String?, checkingHooks: Bool = true) throws -> RunDecision {
        if let unfinished = try StoreError.wrapping(path: store.path, doing: .readingJournal, { try store.withDatabase { db in try Journal.unfinished(db) } }) {
            try checkTargets(unfinished: unfinished.target, asked: target ?? plan.targetVersion, path: store.path)
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
        try checkAssumedMappings(chain.steps, store: store)
        if let first = chain.steps.first, first.kind != .mapping, first.stage?.before.isEmpty ?? true,
            let next = plan.versions.first(where: { $0.name == first.to })
        {
            try store.checkDataConditions(from: current, to: next)
        }
        return .start(chain.steps)
    }

    /// A run's target is part of what it is. A call that asks for another target than an unfinished
    /// run's (a plain launch after a paused `--to`, or the other way round) either finishes that run
    /// first and then goes on — when the asked target lies beyond, as the unfinished run's hooks are
    /// part-way and cannot be undone — or is refused before anything is written, when it lies before.
    /// Either way the call reports `.finished` only at the target it asked for.
    func checkTargets(unfinished: String, asked: String?, path: String) throws {
        guard let asked, asked != unfinished else { return }
        if let from = plan.index(of: unfinished), let to = plan.index(of: asked), to > from { return }
        throw ResumeRefused(path: path, reason: .otherTarget(unfinishedTarget: unfinished, requested: asked))
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
        return StoreError.from(error, path: path, doing: .migrating(step: nil))
    }
}

extension StoreError {
    /// Runs `body`, turning SQLite's failures into store errors.
    package static func wrapping<T>(path: String, doing action: Operation, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StoreError.from(error, path: path, doing: action)
        }
    }
}
