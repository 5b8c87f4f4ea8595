import Foundation
import GRDB
import InstarInference
import InstarModel
import InstarPlanner
import InstarStore

/// Runs a plan's chain on a store: the Swift API behind `instar migrate <plan>`.
///
/// From an app, at launch:
///
/// ```swift
/// let migrator = Migrator(plan: try PlanFileReader.read(path: planPath))
/// migrator.register(hook: "fillArtists") { context in
///     let names = try await catalog.artistNames()  // a hook may await
///     try context.write { db in try db.execute(sql: "…", arguments: [names.joined()]) }
/// }
/// let result = try await migrator.migrate(store: storeURL) { event in log(event) }
/// ```
///
/// `Sendable`: its configuration and hooks sit behind a lock, so one migrator can be shared between
/// tasks. Cancelling the task running ``migrate(store:to:timeBudget:progress:)`` stops the run at the
/// next safe point (``PauseReason/cancelled``); calling it again resumes there.
public final class Migrator: Sendable {
    /// The plan this migrator follows: its versions, steps, hooks and options.
    public let plan: Plan

    struct State {
        var allowCommands: Bool
        var secureDelete: String?
        var fuse: Bool
        var swiftHooks: [String: SwiftHook] = [:]
        var mappingHooks: [String: MappingSwiftHook] = [:]
    }

    private let state: Locked<State>
    private let hub = ProgressHub()

    /// - Parameters:
    ///   - allowCommands: lets command hooks run (they execute outside the transaction, so the user must opt in).
    ///   - secureDelete: overrides the plan's `secureDelete` option: `on`, `off` or `fast`.
    ///   - fuse: step fusion (see ``fuse``).
    public init(plan: Plan, allowCommands: Bool = false, secureDelete: String? = nil, fuse: Bool = true) {
        self.plan = plan
        self.state = Locked(State(allowCommands: allowCommands, secureDelete: secureDelete, fuse: fuse))
    }

    /// Lets command hooks run (they execute outside the transaction, so the user must opt in).
    public var allowCommands: Bool {
        get { state.current.allowCommands }
        set { state.withLock { $0.allowCommands = newValue } }
    }
    /// Overrides the plan's `secureDelete` option: `on`, `off` or `fast` (see ``SQLiteStore/setSecureDelete(_:)``).
    public var secureDelete: String? {
        get { state.current.secureDelete }
        set { state.withLock { $0.secureDelete = newValue } }
    }
    /// Runs consecutive steps with only inline SQL hooks between them as one transaction, each table
    /// rewritten at most once (step fusion), moving work across hooks that cannot see it
    /// (``TransactionPlan``). Off, every step commits on its own (for comparison and debugging).
    public var fuse: Bool {
        get { state.current.fuse }
        set { state.withLock { $0.fuse = newValue } }
    }

    /// A new migrator for the same plan with these settings and the same hooks (nil keeps a setting).
    public func configured(allowCommands: Bool? = nil, secureDelete: String?? = nil, fuse: Bool? = nil) -> Migrator {
        let copy = Migrator(plan: plan)
        var settings = state.current
        if let allowCommands { settings.allowCommands = allowCommands }
        if let secureDelete { settings.secureDelete = secureDelete }
        if let fuse { settings.fuse = fuse }
        copy.state.withLock { $0 = settings }
        return copy
    }

    /// Registers a synchronous Swift hook. It runs on the thread running the engine: the caller's for
    /// ``migrate(storeAt:to:timeBudget:wait:backup:stop:progress:)``, the engine's own thread for the
    /// async `migrate(store:)`, so what it captures must not be used elsewhere during the run.
    public func register(hook name: String, _ body: @escaping SwiftHook) {
        state.withLock { $0.swiftHooks[name] = body }
    }

    /// Registers an async Swift hook. The engine is synchronous inside its transactions, so it runs
    /// `body` to completion as a detached task while the engine's thread waits (``AsyncBridge``).
    public func register(hook name: String, _ body: @escaping AsyncSwiftHook) {
        state.withLock {
            $0.swiftHooks[name] = { context in try AsyncBridge.run { try await body(context) } }
        }
    }

    /// Registers the Swift code of a mapping step's hook (a custom policy `Model.EntityMapping`, or an
    /// expression `Model.EntityMapping.property` SQL cannot compute), run inside the step's transaction.
    public func register(mappingHook name: String, _ body: @escaping MappingSwiftHook) {
        state.withLock { $0.mappingHooks[name] = body }
    }

    /// Registers an async mapping hook: it may await between its database calls, which it makes
    /// through ``AsyncMappingHookContext/withDatabase(_:)`` and which run inside the step's transaction.
    public func register(mappingHook name: String, _ body: @escaping AsyncMappingSwiftHook) {
        state.withLock {
            $0.mappingHooks[name] = { context in
                try AsyncMappingHookContext.run(body, hook: context.hook, step: context.step, db: context.db)
            }
        }
    }

    /// The hooks the mapping steps of `chain` need that are neither declared in the plan nor
    /// registered: one line each, naming the hook, its entity mapping, property and mapping model.
    public func missingMappingHooks(in chain: Chain, store: SQLiteStore) throws -> [String] {
        let resolver = MappingHookResolver(plan: plan, swift: state.current.mappingHooks)
        var missing: [String] = []
        for step in chain.steps where step.kind == .mapping {
            guard let mapping = step.mapping, let from = plan.versions.first(where: { $0.name == step.from }),
                let to = plan.versions.first(where: { $0.name == step.to })
            else { continue }
            let program = try store.compileMapping(mapping.model, from: from, to: to)
            missing += resolver.missing(in: program).map { "step \(step.from) → \(step.to): \($0)" }
        }
        return missing
    }

    /// The store layout the plan names (`instar` when it names none or an unknown one); an opened store
    /// may adapt it to what it finds.
    public var layout: any StoreLayout {
        Layouts.named(plan.layout) ?? InstarLayout()
    }

    /// The store's version among the plan's versions, or an error saying what the store looks like.
    public func currentVersion(of store: SQLiteStore) throws -> (Model, VersionDetection) {
        plan.prepareVersionHashes()
        let detection = try store.detectVersion(among: plan.versions)
        // The detected version itself when it is the plan's (ties between hash-identical versions are
        // broken by the store's identifiers), else the plan's version with its hashes.
        guard let version = detection.version,
            let known = plan.versions.first(where: { $0.name == version.name && VersionHashes(model: $0) == VersionHashes(model: version) })
                ?? plan.versions.first(where: { VersionHashes(model: $0) == VersionHashes(model: version) })
        else {
            var message = "the store's version is not one of the plan's versions"
            if let name = detection.metadataVersionName { message += " (its metadata says '\(name)')" }
            if let closest = detection.closest {
                message += "; closest is \(closest), differing by:\n  " + detection.drift.map(\.description).joined(separator: "\n  ")
            }
            throw StoreError(.unknownVersion, path: store.path, message, hint: "add the store's version to the plan's versions")
        }
        if !detection.drift.isEmpty {
            throw StoreError(
                .schemaDrift, path: store.path,
                "the store is at \(known.name) but its schema differs:\n  " + detection.drift.map(\.description).joined(separator: "\n  "),
                hint: "repair the schema, or restore a backup, before migrating")
        }
        return (known, detection)
    }

    /// The cheapest chain from the store's version to `target` (default: the plan's target).
    public func chain(for store: SQLiteStore, to target: String? = nil) throws -> (current: Model, chain: Chain, graph: VersionGraph) {
        let (current, _) = try currentVersion(of: store)
        let rows = StoreRowCounts(store: store, model: current)
        let graph = VersionGraph(plan: plan, costModel: StepCostEstimator(layout: layout, rows: rows.rows(ofCanonical:)))
        guard let targetName = target ?? plan.targetVersion else {
            throw StoreError(.unknownVersion, path: store.path, "the plan has no versions")
        }
        guard plan.index(of: targetName) != nil else {
            throw StoreError(
                .unknownVersion, path: store.path, "the target '\(targetName)' is not a version of the plan",
                hint: Spelling.suggestion(for: targetName, among: plan.versions.map(\.name)))
        }
        let chain = try ChainFinder(graph: graph).cheapestChain(from: current.name, to: targetName)
        return (current, chain, graph)
    }

    /// Runs (or resumes) the migration of the store at `path` to `target`.
    ///
    /// Each step, hook and batch commits with its journal record, so a run that is killed, fails, or
    /// stops for its time budget or a signal continues exactly where it stopped the next time this is
    /// called. A second migrator on the same store gets a ``LeaseError`` naming the owner (or waits up
    /// to `wait` seconds); a dead owner's lease is taken over.
    ///
    /// - Parameters:
    ///   - timeBudget: stop at the next safe point once this many seconds have passed.
    ///   - backup: take an online backup to this path before the first step (fresh runs only).
    ///   - stop: a request to stop at the next safe point (signal handlers and apps set it).
    ///   - progress: events as they happen (also on ``progressEvents()``).
    @discardableResult
    public func migrate(
        storeAt path: String, to target: String? = nil, timeBudget: TimeInterval? = nil, wait: TimeInterval = 0,
        backup: String? = nil, stop: StopRequest = StopRequest(), progress: ((ProgressEvent) -> Void)? = nil
    ) throws -> MigrationResult {
        defer { hub.finishAll() }  // finished, paused or failed: the progress streams end with the run
        if let target, plan.index(of: target) == nil {
            throw StoreError(
                .unknownVersion, path: plan.file, "the target '\(target)' is not a version of the plan; nothing was changed",
                hint: Spelling.suggestion(for: target, among: plan.versions.map(\.name)))
        }
        // Refusals are decided on a read-only connection: a read-write one would checkpoint a WAL
        // store's log into the database file when it closes, and the files would change although
        // nothing was migrated. A store left with a hot journal by a killed run cannot be read
        // read-only (the journal must be rolled back first): it is checked once opened for writing,
        // which recovers it, as any opening would.
        var checked = false
        if !FileManager.default.fileExists(atPath: path + "-journal") {
            do {
                let reader = try SQLiteStore.open(at: path, layout: layout, readOnly: true)
                defer { try? reader.close() }
                try preflight(reader, target: target)
                checked = true
            } catch let error as StoreError where error.kind == .readOnly {
                checked = false
            }
        }
        let store = try SQLiteStore.open(at: path, layout: layout)
        defer { try? store.close() }
        if !checked { try preflight(store, target: target) }
        let settings = state.current
        if let mode = settings.secureDelete ?? plan.options.secureDelete {
            try store.setSecureDelete(mode)
        }
        let hub = self.hub
        let executor = ChainExecutor(
            plan: plan, store: store, hooks: settings.swiftHooks, mappingHooks: settings.mappingHooks,
            allowCommands: settings.allowCommands, fuse: settings.fuse, stop: stop,
            deadline: timeBudget.map { Date().addingTimeInterval($0) },
            emit: { event in
                progress?(event)
                hub.yield(event)
            })
        try executor.claimLease(wait: wait)
        defer { executor.releaseLease() }
        let result = try executor.run {
            let (_, chain, _) = try self.chain(for: store, to: target)
            if let backup, !chain.steps.isEmpty {
                try store.backup(to: backup)
                try Lease.removeAll(fromCopyAt: backup)  // the backup is the store before the run, not held by it
            }
            return chain.steps
        }
        return result
    }

    /// What is refused before anything is written: a resumed run whose target differs from the one
    /// asked for; for a fresh run, a store at an unknown version or with drift, a target no chain
    /// reaches, a chain this version cannot run, or data the first step cannot take.
    private func preflight(_ store: SQLiteStore, target: String?) throws {
        if let unfinished = try store.withDatabase({ db in try Journal.unfinished(db) }) {
            if let target, unfinished.target != target {
                throw ResumeRefused(path: store.path, reason: .otherTarget(unfinishedTarget: unfinished.target, requested: target))
            }
            return
        }
        let (current, chain, _) = try self.chain(for: store, to: target)
        // A mapping step's hooks must all be there before anything is written.
        let missing = try missingMappingHooks(in: chain, store: store)
        if !missing.isEmpty {
            throw StoreError(
                .notInferable, path: store.path,
                "the chain's mapping models need hooks that are neither declared in the plan nor registered; nothing was changed:\n  "
                    + missing.joined(separator: "\n  ")
                    + "\n  \(missing.count) hook(s) missing; nothing was changed",
                hint: "declare each hook under its name in the plan's hooks (SQL runs inside the step's transaction), or register it with migrator.register(mappingHook:)")
        }
        if let first = chain.steps.first, first.kind != .mapping, first.stage?.before.isEmpty ?? true,
            let next = plan.versions.first(where: { $0.name == first.to })
        {
            try store.checkDataConditions(from: current, to: next)
        }
    }

    /// A new stream of the progress events of this migrator's run in progress, or of its next run if
    /// none is: every stream gets every event, and finishes when that run ends (finished, paused or
    /// failed). Ask for a new stream for each run.
    public func progressEvents() -> AsyncStream<ProgressEvent> {
        hub.stream()
    }

    /// Runs (or resumes) the migration of the store at `store` to `target`, on a thread of its own (the
    /// caller's executor is never blocked).
    ///
    /// Cancelling the calling task asks the run to stop at the next safe point: the current batch
    /// commits with its journal record and the result is `.paused(.cancelled)`; calling this again
    /// continues from there. Errors are those of the synchronous ``migrate(storeAt:to:timeBudget:wait:backup:stop:progress:)``.
    @discardableResult
    public func migrate(
        store: URL, to target: String? = nil, timeBudget: Duration? = nil,
        progress: (@Sendable (ProgressEvent) -> Void)? = nil
    ) async throws -> MigrationResult {
        let stop = StopRequest()
        let seconds = timeBudget.map(Self.seconds)
        let path = store.path
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MigrationResult, any Error>) in
                // A thread, not the cooperative pool: the engine blocks (SQLite, lease waits, async
                // hooks bridged by a semaphore).
                let thread = Thread {
                    continuation.resume(
                        with: Result { try self.migrate(storeAt: path, to: target, timeBudget: seconds, stop: stop, progress: progress) })
                }
                thread.name = "instar.migrate"
                thread.stackSize = 8 << 20
                thread.start()
            }
        } onCancel: {
            stop.request(.cancelled)
        }
    }

    /// The journal of the store's latest run (unfinished first), for `instar status`.
    public static func status(ofStoreAt path: String) throws -> (journal: JournalEntry?, lease: Lease?) {
        let store = try SQLiteStore.open(at: path, readOnly: true)
        defer { try? store.close() }
        return try store.withDatabase { db in
            (try Journal.unfinished(db) ?? Journal.latest(db), try Lease.holder(db))
        }
    }
}
