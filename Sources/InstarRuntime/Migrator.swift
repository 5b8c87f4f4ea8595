import Foundation
import GRDB
import InstarInference
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

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
/// tasks. Cancelling the task running `migrate(store:to:timeBudget:progress:)` stops the run at the
/// next safe point (``PauseReason/cancelled``); calling it again resumes there.
///
/// ## Topics
///
/// ### Making a migrator
///
/// - ``init(plan:allowCommands:secureDelete:fuse:)``
/// - ``plan``
/// - ``configured(allowCommands:secureDelete:fuse:slicing:acceptsAssumedMappings:)``
///
/// ### Registering the app's hooks
///
/// - ``register(hook:_:)-(_,SwiftHook)``
/// - ``register(hook:_:)-(_,AsyncSwiftHook)``
/// - ``register(mappingHook:_:)-(_,MappingSwiftHook)``
/// - ``register(mappingHook:_:)-(_,AsyncMappingSwiftHook)``
///
/// ### Asking before writing
///
/// - ``pendingWork(store:to:configuration:)``
/// - ``pendingWork(storeAt:to:configuration:)``
///
/// ### Migrating
///
/// - ``migrate(store:to:timeBudget:wait:backup:stop:configuration:progress:)``
/// - ``migrate(storeAt:to:timeBudget:wait:backup:stop:configuration:progress:)``
/// - ``migrate(database:to:timeBudget:wait:backup:stop:progress:)``
/// - ``progressEvents()``
///
/// ### Options
///
/// - ``slicing``
/// - ``fuse``
/// - ``secureDelete``
/// - ``pageCacheLimit``
/// - ``defaultPageCacheLimit``
/// - ``allowCommands``
/// - ``acceptsAssumedMappings``
public final class Migrator: Sendable {
    /// The plan this migrator follows: its versions, steps, hooks and options.
    public let plan: Plan

    struct State {
        var allowCommands: Bool
        var secureDelete: SecureDelete?
        var fuse: Bool
        var slicing: Slicing = .default
        var acceptsAssumedMappings = false
        var pageCacheLimit = Migrator.defaultPageCacheLimit
        var budgetClock = BudgetClock.system
        var swiftHooks: [String: RegisteredHook] = [:]
        var mappingHooks: [String: MappingSwiftHook] = [:]
    }

    private let state: Locked<State>
    let hub = ProgressHub()
    /// The plan's step diffs, inferred once for every store this migrator plans for.
    let diffs = StepDiffs()

    /// - Parameters:
    ///   - allowCommands: lets command hooks run (they execute outside the transaction, so the user must opt in).
    ///   - secureDelete: overrides the plan's `secureDelete` option: `on`, `off` or `fast`.
    ///   - fuse: step fusion (see ``fuse``).
    public init(plan: Plan, allowCommands: Bool = false, secureDelete: SecureDelete? = nil, fuse: Bool = true) {
        self.plan = plan
        self.state = Locked(State(allowCommands: allowCommands, secureDelete: secureDelete, fuse: fuse))
    }

    /// Lets command hooks run (they execute outside the transaction, so the user must opt in).
    public var allowCommands: Bool {
        get { state.current.allowCommands }
        set { state.withLock { $0.allowCommands = newValue } }
    }
    /// Overrides the plan's `secureDelete` option: `on`, `off` or `fast` (see `SQLiteStore.setSecureDelete(_:)`).
    public var secureDelete: SecureDelete? {
        get { state.current.secureDelete }
        set { state.withLock { $0.secureDelete = newValue } }
    }
    /// Runs consecutive steps with only inline SQL hooks between them as one transaction, each table
    /// rewritten at most once (step fusion), moving work across hooks that cannot see it
    /// (`TransactionPlan`). Off, every step commits on its own (for comparison and debugging).
    public var fuse: Bool {
        get { state.current.fuse }
        set { state.withLock { $0.fuse = newValue } }
    }

    /// Whether a step's table rewrites are copied ahead of its transaction in slices that each commit,
    /// so that a migration longer than a launch moves forward launch by launch (``Slicing``; by
    /// default when the run has a time budget and a step rewrites 10,000 rows or more).
    ///
    /// A table is sliced when its rows correspond one to one by rowid (an entity table whose key is
    /// kept) and every value is computed from its own row; other rewrites (a join table, a value
    /// looked up in another table, a mapping model's step) run whole in the step's transaction,
    /// as ``DryRun`` reports.
    public var slicing: Slicing {
        get { state.current.slicing }
        set { state.withLock { $0.slicing = newValue } }
    }

    /// The most memory, in bytes, the run may give SQLite's page cache so that the whole store fits in
    /// it (64 MiB by default; 0 keeps SQLite's 2,000 KiB).
    ///
    /// A step passes over the same pages more than once (a table losing two columns is rewritten
    /// twice, then read again for each index built), and with the store in the cache the later passes
    /// read memory: a 40 MB store's launch takes about 0.9 of the time. A store larger than the limit
    /// keeps the default cache (one that holds less than a table would be evicted before each page
    /// is read again). The cache is the run's own connection's, freed when the run ends, and changes
    /// neither the result nor what each commit syncs. Lower it where memory is scarce (an app
    /// extension): the run's peak memory grows by up to this much.
    public var pageCacheLimit: Int {
        get { state.current.pageCacheLimit }
        set { state.withLock { $0.pageCacheLimit = max(0, newValue) } }
    }

    /// ``pageCacheLimit``'s default: 64 MiB.
    public static let defaultPageCacheLimit = 64 << 20

    /// Lets a run write a schema resting on SwiftData type mappings no real store shows and this store
    /// does not prove (``AssumedMappingError``). Off by default: turn it on only once SwiftData has been
    /// seen to open a store migrated with them.
    public var acceptsAssumedMappings: Bool {
        get { state.current.acceptsAssumedMappings }
        set { state.withLock { $0.acceptsAssumedMappings = newValue } }
    }

    /// The clock time budgets are counted on: wall-clock time, unless a test counts them in work it
    /// controls (``ManualBudgetClock``).
    package var budgetClock: BudgetClock {
        get { state.current.budgetClock }
        set { state.withLock { $0.budgetClock = newValue } }
    }

    /// A new migrator for the same plan with these settings and the same hooks (nil keeps a setting).
    public func configured(
        allowCommands: Bool? = nil, secureDelete: SecureDelete?? = nil, fuse: Bool? = nil, slicing: Slicing? = nil,
        acceptsAssumedMappings: Bool? = nil
    ) -> Migrator {
        let copy = Migrator(plan: plan)
        var settings = state.current
        if let allowCommands { settings.allowCommands = allowCommands }
        if let secureDelete { settings.secureDelete = secureDelete }
        if let fuse { settings.fuse = fuse }
        if let slicing { settings.slicing = slicing }
        if let acceptsAssumedMappings { settings.acceptsAssumedMappings = acceptsAssumedMappings }
        copy.state.withLock { $0 = settings }
        return copy
    }

    /// Registers a synchronous Swift hook. It runs on the thread running the engine: the caller's for
    /// `migrate(storeAt:to:timeBudget:wait:backup:stop:progress:)`, the engine's own thread for the
    /// async `migrate(store:)`, so what it captures must not be used elsewhere during the run.
    public func register(hook name: String, _ body: @escaping SwiftHook) {
        state.withLock { $0.swiftHooks[name] = .sync(body) }
    }

    /// Registers an async Swift hook. The engine is synchronous inside its transactions, so it runs
    /// `body` to completion as a task while the engine's thread waits; cancelling the migration (or
    /// its time budget running out) cancels that task.
    public func register(hook name: String, _ body: @escaping AsyncSwiftHook) {
        state.withLock { $0.swiftHooks[name] = .async(body) }
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
                try AsyncMappingHookContext.run(body, hook: context.hook, step: context.step, db: context.db, stop: context.stop)
            }
        }
    }

    /// The hooks the mapping steps among `steps` need and cannot find.
    func missingMappingHooks(in steps: [(from: String, to: String)], store: SQLiteStore) throws -> [MissingHook] {
        let resolver = MappingHookResolver(plan: plan, swift: state.current.mappingHooks)
        var missing: [MissingHook] = []
        for step in steps {
            guard let mapping = plan.mapping(from: step.from, to: step.to),
                let from = plan.versions.first(where: { $0.name == step.from }),
                let to = plan.versions.first(where: { $0.name == step.to })
            else { continue }
            let program = try store.compileMapping(mapping.model, from: from, to: to)
            missing += resolver.missing(in: program).map {
                MissingHook(hook: $0.requirement.name, step: "\(step.from) → \(step.to)", reason: .mapping($0.requirement, $0.gap))
            }
        }
        return missing
    }

    /// The hooks of the stages among `steps` that are not defined in the plan, or declared as Swift
    /// hooks the app has not registered.
    func missingStageHooks(in steps: [(from: String, to: String)]) -> [MissingHook] {
        let registered = state.current.swiftHooks
        var missing: [MissingHook] = []
        for step in steps {
            let stage = plan.stages.first { $0.from == step.from && $0.to == step.to }
            let label = "\(step.from) → \(step.to)"
            for name in (stage?.before ?? []) + (stage?.after ?? []) {
                switch plan.hooks[name] {
                case nil: missing.append(MissingHook(hook: name, step: label, reason: .notInPlan))
                case .swift(let swiftName)? where registered[swiftName] == nil:
                    missing.append(MissingHook(hook: name, step: label, reason: .notRegistered(swiftName)))
                default: break
                }
            }
        }
        return missing
    }

    /// The first command hook among `steps` when commands cannot run: not allowed, or no processes.
    func refusedCommandHook(in steps: [(from: String, to: String)]) -> HookError? {
        for step in steps {
            let stage = plan.stages.first { $0.from == step.from && $0.to == step.to }
            for name in (stage?.before ?? []) + (stage?.after ?? []) {
                guard case .command? = plan.hooks[name] else { continue }
                return ChainExecutor.commandRefusal(name, label: "\(step.from) → \(step.to)", allowed: allowCommands)
            }
        }
        return nil
    }

    /// The store layout the plan names; an opened store may adapt it to what it finds. A name that is
    /// neither built in nor registered is ``StoreError/Kind/unknownLayout`` here as everywhere
    /// (``LayoutRegistry/resolve(_:path:location:)``, at the plan's `layout` key), never the Instar
    /// layout in its place.
    package var layout: any StoreLayout {
        get throws(StoreError) { try plan.storeLayout() }
    }

    /// The store's version among the plan's versions, or an error saying what the store looks like.
    package func currentVersion(of store: SQLiteStore) throws -> (Model, VersionDetection) {
        plan.prepareVersionHashes()
        let detection = try store.detectVersion(among: plan.versions)
        // The detected version itself when it is the plan's (ties between hash-identical versions are
        // broken by the store's identifiers), else the plan's version with its hashes.
        guard let version = detection.version,
            let known = plan.versions.first(where: { $0.name == version.name && VersionHashes(model: $0) == VersionHashes(model: version) })
                ?? plan.versions.first(where: { VersionHashes(model: $0) == VersionHashes(model: version) })
        else {
            if detection.metadataVersionName == nil, try store.schema().tables.isEmpty {
                // An empty file is a valid, empty SQLite database: no version to start from, and
                // nothing a plan could add would make it one.
                var error = StoreError(.unknownVersion, path: store.path, reason: .emptyStore)
                error.storeIsEmpty = true
                throw error
            }
            var error = StoreError(
                .unknownVersion, path: store.path, reason: .versionNotInPlan(metadataName: detection.metadataVersionName))
            error.closestVersion = detection.closest
            error.drift = detection.closest == nil ? [] : detection.drift
            throw error
        }
        if !detection.drift.isEmpty {
            var error = StoreError(.schemaDrift, path: store.path, reason: .schemaDrift(version: known.name))
            error.drift = detection.drift
            throw error
        }
        return (known, detection)
    }

    /// The cheapest chain from the store's version to `target` (default: the plan's target).
    package func chain(for store: SQLiteStore, to target: String? = nil) throws -> (current: Model, chain: Chain, graph: VersionGraph) {
        try chain(for: store, to: target, from: try currentVersion(of: store).0)
    }

    /// The cheapest chain from `current`, the store's version as ``currentVersion(of:)`` just found it.
    package func chain(for store: SQLiteStore, to target: String?, from current: Model) throws -> (current: Model, chain: Chain, graph: VersionGraph) {
        let rows = StoreRowCounts(store: store, model: current)
        let graph = VersionGraph(
            plan: plan, costModel: StepCostEstimator(layout: try layout, rows: rows.rows(ofCanonical:)), sharing: diffs)
        guard let targetName = target ?? plan.targetVersion else {
            throw StoreError(.unknownVersion, path: store.path, reason: .planHasNoVersions)
        }
        guard plan.index(of: targetName) != nil else {
            throw StoreError(
                .unknownVersion, path: store.path, reason: .targetNotInPlan(target: targetName, versions: plan.versions.map(\.name)))
        }
        let chain = try ChainFinder(graph: graph).cheapestChain(from: current.name, to: targetName)
        return (current, chain, graph)
    }

    /// A new stream of the progress events of this migrator's run in progress, or of its next run if
    /// none is: every stream gets every event, and finishes when that run ends (finished, paused or
    /// failed). Ask for a new stream for each run.
    public func progressEvents() -> AsyncStream<ProgressEvent> {
        hub.stream()
    }

    var settings: State { state.current }

    /// The journal of the store's latest run (unfinished first) and its lease, for `instar status`.
    package static func status(ofStoreAt path: String) throws -> StoreStatus {
        let store = try SQLiteStore.open(at: path, readOnly: true)
        defer { try? store.close() }
        let (journal, lease) = try store.withDatabase { db in
            (try Journal.unfinished(db) ?? Journal.latest(db), try Lease.holder(db))
        }
        return StoreStatus(store: path, journal: journal, lease: lease)
    }
}

/// A Swift hook as the app registered it; the engine runs an async one as a task it can cancel.
enum RegisteredHook {
    case sync(SwiftHook)
    case async(AsyncSwiftHook)
}
