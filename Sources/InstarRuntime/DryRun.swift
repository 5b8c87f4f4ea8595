import Foundation
import GRDB
import InstarInference
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
import InstarCompiler

/// Everything `instar plan` tells before touching a store: which steps, lightweight or not, what SQL,
/// how many rows, how much disk, and what could be lost. Built from a read-only view of the store.
public struct DryRunReport: Sendable {
    /// A hook a step runs: which, when, and what the plan defines it as.
    public struct HookUse: Sendable, Hashable, Codable {
        /// When in the step it runs.
        public enum Phase: Sendable, Hashable, CustomStringConvertible {
            /// A stage's hook before the step's schema change.
            case before
            /// A stage's hook after it.
            case after
            /// A mapping model's hook at `point` (a custom policy's, or an expression SQL cannot compute):
            /// the app registers it (`Migrator.register(mappingHook:_:)`).
            case mapping(point: String)

            /// `before`, `after` or `mapping <point>`, as the command line prints it.
            public var description: String {
                switch self {
                case .before: "before"
                case .after: "after"
                case .mapping(let point): "mapping \(point)"
                }
            }
        }

        /// The hook's name, as the plan gives it.
        public var name: String
        /// When it runs.
        public var phase: Phase
        /// What the plan defines it as: `sql`, `batchedSQL`, `command`, `swift`; `?` (stage hooks) or
        /// `not declared` (mapping hooks) when the plan lacks it.
        public var kind: String
    }

    /// One step of the chosen chain: what it changes and what it will cost when `migrate` runs it.
    public struct StepReport: Sendable {
        /// The version the step starts from.
        public var from: String
        /// The version the step ends at.
        public var to: String
        /// How the step runs: inferred alone, inferred with the plan's hooks, through a mapping model, or
        /// proposed by Instar.
        public var kind: Step.Kind
        /// The model differences the step applies, entity by entity.
        public var changes: [Change]
        /// Guesses the inference made that a person should confirm, such as a probable rename.
        public var warnings: [Warning]
        /// The statements the step runs, in order. Only the first step's are planned against the store's
        /// actual schema; later steps' are planned from their models.
        public var sql: [String]
        /// Tables the step copies into a new table (rather than altering in place).
        public var tablesRebuilt: [String]
        /// Rows the step rewrites: counted in the store when one was given, else 1,000 per table.
        public var rowsTouched: Int
        /// Extra disk space the step needs while it runs (a rebuilt table exists twice until commit, and
        /// until the step commits when its copies are made ahead in slices).
        public var extraBytes: Int
        /// The hooks the step runs, in order.
        public var hooks: [HookUse]
        /// The mapping model a `.mapping` step runs (its pair is never skipped), nil otherwise.
        public var mappingModel: String? = nil
        /// Which rule of the planner chose the step.
        public var choice: StepChoice = .cheapest
        /// A mapping step's hooks with an SQL template each, for `--scaffold` (empty for other steps).
        package var mappingHookTemplates: [MappingHookTemplate] = []
        /// Rebuilt tables whose rows can be copied ahead of the step's transaction in slices
        /// (``Migrator/slicing``), by their name after the step.
        public var slicedTables: [String] = []
        /// Rows of ``slicedTables``' sources, counted in the store (0 without a store): the part of
        /// ``rowsTouched`` that a budgeted run can spread over several launches.
        public var slicedRows: Int = 0
    }

    /// Another chain to the same target that the planner did not choose, so the choice can be checked.
    public struct Alternative: Sendable {
        /// The versions the chain passes through, first to last.
        public var versions: [String]
        /// Its total cost, in the same units as ``DryRunReport/totalCost``.
        public var cost: Int
    }

    /// Something the chain could lose or be blocked by, for a person to look at before migrating.
    public struct Risk: Sendable {
        /// What sort of risk it is.
        public enum Kind: String, Sendable {
            /// Non-NULL values of a removed attribute will be dropped.
            case droppedValues
            /// Rows with NULL in an attribute that becomes required without a default would fail the step.
            case blockingNulls
            /// Existing rows of an entity that gains a required attribute without a default would fail the step.
            case blockingRows
            /// Duplicate values would violate a new uniqueness constraint and fail the step.
            case duplicates
            /// A warning of the inference for the step, most often a guessed rename, for a person to confirm.
            case probableRename
            /// Versions share a version checksum, which Core Data's staged migration cannot tell apart.
            case identicalChecksums
            /// The rows of a removed entity will be deleted.
            case dataDropped
            /// A version hash modifier changed: Core Data's way of saying that values of the same shape mean
            /// something new (a unit, an encoding). The values are kept as they are, so a person confirms that
            /// nothing needs converting (``DryRunReport/Risk/count`` is the values or rows concerned).
            case meaningChange
            /// The step writes a schema resting on a SwiftData type mapping no real store shows, which the
            /// store does not prove: `migrate` refuses it (``AssumedMappingError``) unless accepted.
            case assumedMapping
            /// The step's transaction is estimated to take longer than the launch's time budget.
            case exceedsTimeBudget
            /// The pages the chain's rebuilds free stay inside the file: the store has no incremental
            /// auto-vacuum for the run to give them back (``DryRunReport/Risk/count`` is the bytes).
            case freePagesKept
        }
        /// What sort of risk it is.
        public var kind: Kind
        /// The step it belongs to, as `"from → to"`; nil for a risk of the plan as a whole.
        public var step: String?
        /// The risk in words, for a person.
        public var message: String
        /// Values or rows affected, counted in the store; nil when not counted (no store, the data does
        /// not exist yet, or the risk is not countable). Risks counted as 0 are left out of the report.
        public var count: Int?
    }

    /// The plan's name.
    public var plan: String
    /// The name of the store layout the SQL is written for (e.g. `instar`, `coredata`).
    public var layout: String
    /// The store's path; nil when the report was built from the plan alone.
    public var store: String?
    /// The version detected in the store; nil without a store.
    public var detectedVersion: String?
    /// How the version was detected (a `VersionDetection.Method` raw value); nil without a store.
    public var matchedBy: String?
    /// The version the chain starts from: the detected one, else the one asked for, else the plan's first.
    public var from: String
    /// The target version: the one asked for, else the plan's target, else ``from``.
    public var to: String
    /// The chosen chain's steps, in order; empty when no chain exists.
    public var steps: [StepReport]
    /// The chain's cost: rows rewritten plus the plan's fixed cost per step; what the planner minimises.
    public var totalCost: Int
    /// Other chains to the target, for comparison.
    public var alternatives: [Alternative]
    /// What could be lost or could block a step, counted in the store where possible.
    public var risks: [Risk]
    /// Runs of two or more steps that `migrate` runs as one transaction (only inline SQL hooks between
    /// them), fused so that every table is rewritten at most once, with the work moved across hooks.
    public var segments: [Segment] = []
    /// Source rows per second that the slices of an unfinished sliced run measured on this store
    /// (`SlicedProgress.rowsPerSecond` in its journal); nil when no earlier launch sliced. The
    /// budget estimates prefer it to ``typicalRowsPerSecond``: it is this device and these rows.
    public var measuredRowsPerSecond: Double? = nil

    /// Consecutive steps that `migrate` fuses into one transaction.
    public struct Segment: Sendable {
        /// The version the segment starts from.
        public var from: String
        /// The version it ends at.
        public var to: String
        /// How many steps it fuses (two or more).
        public var steps: Int
        /// The transaction's SQL in order, hooks shown as `-- hook <name>` lines.
        public var sql: [String]
        /// Tables the transaction rebuilds, with a count where it rebuilds one more than once (its steps
        /// could not all be fused: see ``notFused``).
        public var tablesRebuilt: [String]
        /// Work moved past hooks, e.g. "after hook artistsFromJSON: rebuild of track (fused with the
        /// steps after it); index track_artist_artist_idx".
        public var moved: [String] = []
        /// Where consecutive steps of the transaction were not fused, and why, e.g. "at V2: the second
        /// step has data conditions, checked on the data the first step leaves".
        public var notFused: [String] = []
    }
    /// Set when no chain exists: why.
    public var noChain: NoChain?
    /// When no chain exists: a proposed decomposition per gap (see ``Decomposer``).
    package var proposals: [Decomposition] = []
    /// The files `instar plan --scaffold` wrote for this report (nil without `--scaffold`), so that its
    /// JSON lists them beside the report they were written from.
    package var scaffold: [Scaffold.File]? = nil
}

/// Builds a ``DryRunReport``. Opens the store read-only; never writes.
public enum DryRun {
    /// Plans the chain from the store's version (or `from`, or the plan's first version, without a store)
    /// to `to` (or the plan's target) and reports it. `storePath` nil reports from the plan alone, with
    /// nominal row counts. No chain is not an error: the report says why in ``DryRunReport/noChain``.
    ///
    /// Throws only ``StoreError``, whose ``StoreError/kind`` an app can switch on: SQLite's failures
    /// keep their codes, a layout's refusal keeps the ``LayoutError`` as ``StoreError/underlying``, and
    /// a step whose SQL cannot be worked out is ``StoreError/Kind/notInferable``.
    public static func report(
        plan: Plan, storePath: String?, from: String? = nil, to: String? = nil
    ) throws(StoreError) -> DryRunReport {
        do {
            return try build(plan: plan, storePath: storePath, from: from, to: to)
        } catch {
            throw StoreError.from(error, path: storePath ?? plan.file, doing: .planningDryRun)
        }
    }

    static func build(plan: Plan, storePath: String?, from: String?, to: String?) throws -> DryRunReport {
        let layout = try plan.storeLayout(path: storePath)
        var store: SQLiteStore?
        var current: Model
        var matchedBy: String?
        if let storePath {
            let opened = try SQLiteStore.open(at: storePath, layout: layout, readOnly: true)
            store = opened
            let (version, detection) = try Migrator(plan: plan).currentVersion(of: opened)
            current = version
            matchedBy = detection.matchedBy?.rawValue
        } else if let from, let model = plan.versions.first(where: { $0.name == from }) {
            current = model
        } else if let first = plan.versions.first {
            current = first
        } else {
            throw StoreError(.unknownVersion, path: plan.file, reason: .planHasNoVersions)
        }
        defer { try? store?.close() }
        // The run sets the plan's `secureDelete` on its connection before deciding how to drop columns
        // (``DropColumnCost``); the dry run decides under the same setting.
        if let store, let mode = plan.options.secureDelete { try store.setSecureDelete(mode) }
        let freedPagesZeroed = try freedPagesZeroed(plan: plan, store: store)
        let estimator =
            store.map { StepCostEstimator(layout: layout, rows: StoreRowCounts(store: $0, model: current).rows(ofCanonical:)) }
            ?? StepCostEstimator(layout: layout, nominalRows: 1000)
        let graph = VersionGraph(plan: plan, costModel: estimator)
        let target = to ?? plan.targetVersion ?? current.name
        var report = DryRunReport(
            plan: plan.name, layout: layout.name, store: storePath, detectedVersion: store == nil ? nil : current.name,
            matchedBy: matchedBy, from: current.name, to: target, steps: [], totalCost: 0, alternatives: [], risks: [],
            noChain: nil)
        report.measuredRowsPerSecond = try store.flatMap { try measuredSliceRate($0) }
        report.risks += identicalChecksums(graph)
        let finder = ChainFinder(graph: graph)
        let chain: Chain
        do {
            chain = try finder.cheapestChain(from: current.name, to: target)
        } catch {
            report.noChain = error
            report.proposals = proposals(for: error, plan: plan, layout: layout, store: store, current: current)
            return report
        }
        report.totalCost = chain.totalCost
        report.alternatives = finder.alternatives(to: chain).map {
            DryRunReport.Alternative(versions: $0.versions, cost: $0.totalCost)
        }
        let bytesPerRow = try store.map { try averageRowBytes($0) } ?? 0
        report.risks += try assumedMappings(chain.steps, plan: plan, store: store)
        var lineage = Lineage(current: current)
        for (index, step) in chain.steps.enumerated() {
            guard let old = plan.versions.first(where: { $0.name == step.from }),
                let new = plan.versions.first(where: { $0.name == step.to })
            else { continue }
            let sql: [String]
            var sliced: [SlicedCopy] = []
            var mappingHooks: [DryRunReport.HookUse] = []
            var templates: [MappingHookTemplate] = []
            if step.kind == .mapping, let mapping = step.mapping {
                let program = try mappingProgram(mapping, from: old, to: new, layout: store?.layout ?? layout)
                sql = program.renderedSQL
                templates = MappingHookTemplate.templates(for: program, mapping: mapping.model, layout: store?.layout ?? layout)
                mappingHooks = program.hooks.map { hook in
                    DryRunReport.HookUse(
                        name: hook.name, phase: .mapping(point: hook.point.rawValue), kind: plan.hooks[hook.name]?.kindName ?? "not declared")
                }
            } else if index == 0, let store {
                let (program, planned) = try store.planStep(from: old, to: new)
                sql = planned.statements.map(\.description)
                sliced = StepSQLPlanner.sliceable(program, actual: try store.schema())
            } else {
                // An opened store may adapt its layout (a Core Data store keeps its framework's conventions).
                let stepLayout = store?.layout ?? layout
                let program = try StepCompiler(diff: step.diff, from: old, to: new, layout: stepLayout).compile()
                var schema = try stepLayout.storageMap(for: old).schema
                schema.freedPagesZeroed = freedPagesZeroed
                sql = StepSQLPlanner.plan(program, actual: schema, viewsAndTriggers: []).statements.map(\.description)
                sliced = StepSQLPlanner.sliceable(program, actual: schema)
            }
            var hooks: [DryRunReport.HookUse] = []
            for name in step.stage?.before ?? [] { hooks.append(.init(name: name, phase: .before, kind: plan.hooks[name]?.kindName ?? "?")) }
            for name in step.stage?.after ?? [] { hooks.append(.init(name: name, phase: .after, kind: plan.hooks[name]?.kindName ?? "?")) }
            hooks += mappingHooks
            let label = "\(step.from) → \(step.to)"
            report.steps.append(
                DryRunReport.StepReport(
                    from: step.from, to: step.to, kind: step.kind, changes: step.diff.changes,
                    warnings: graph.confirmedWarnings(of: step), sql: sql, tablesRebuilt: step.cost.tablesRebuilt,
                    rowsTouched: step.cost.rowsRewritten, extraBytes: step.cost.rowsRewritten * bytesPerRow,
                    hooks: hooks, mappingModel: step.mapping?.model.name, choice: step.choice,
                    mappingHookTemplates: templates, slicedTables: sliced.map(\.target),
                    slicedRows: try store.map { try sourceRows(of: sliced, in: $0) } ?? 0))
            // A mapping step's data goes where its entity mappings say, not where inference would.
            if step.kind == .mapping {
                lineage.advance(through: step.diff)
                continue
            }
            report.risks += graph.confirmedWarnings(of: step).map {
                DryRunReport.Risk(kind: .probableRename, step: label, message: $0.message, count: nil)
            }
            // The first step starts at the store's version: its conditions are counted on the rows as they
            // are (a clean store then shows no risk); later steps' rows are not there yet.
            let counted = try store.flatMap { store -> [DataViolation]? in
                guard step.from == current.name, let to = plan.index(of: step.to).map({ plan.versions[$0] }) else { return nil }
                return try store.dataViolations(from: current, to: to)
            }
            report.risks += try dataRisks(
                step: step, label: label, store: store, current: current, lineage: lineage, layout: layout, counted: counted)
            lineage.advance(through: step.diff)
        }
        let actual = try store.map { store in
            try store.schema()
        }
        report.segments = try fusedSegments(
            chain: chain, plan: plan, layout: store?.layout ?? layout, actual: actual, freedPagesZeroed: freedPagesZeroed)
        if let store, let kept = try freePagesKept(report, store: store) { report.risks.append(kept) }
        return report
    }

    /// Whether the run would zero-fill freed pages: the plan's `secureDelete` option, else the store's
    /// connection, else what this SQLite library does by default.
    static func freedPagesZeroed(plan: Plan, store: SQLiteStore?) throws -> Bool {
        if let mode = plan.options.secureDelete { return mode == .on }
        if let store { return try store.freedPagesZeroed() }
        return SQLiteStore.libraryZeroesFreedPages
    }

    /// The statements and hooks of a mapping step, for the report.

    static func mappingProgram(_ mapping: PlannedMapping, from: Model, to: Model, layout: any StoreLayout) throws
        -> MappingProgram
    {
        do {
            var compiler = try MappingCompiler(mapping: mapping.model, from: from, to: to, layout: layout)
            return try compiler.compile()
        } catch {
            throw StoreError(.notInferable, path: mapping.model.file, reason: .underlying, underlying: error)
        }
    }

    /// The slice rate an unfinished sliced run kept in the store's journal, if one did.
    static func measuredSliceRate(_ store: SQLiteStore) throws -> Double? {
        let rate = try store.withDatabase { db in try Journal.unfinished(db)?.slices?.rowsPerSecond }
        return rate.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Core Data's staged migration cannot tell apart versions with the same checksum.
    static func identicalChecksums(_ graph: VersionGraph) -> [DryRunReport.Risk] {
        var byChecksum: [String: [String]] = [:]
        for (model, hashes) in zip(graph.versions, graph.hashes) {
            byChecksum[hashes.versionChecksum, default: []].append(model.name)
        }
        return byChecksum.values.filter { $0.count > 1 }.sorted { $0[0] < $1[0] }.map {
            DryRunReport.Risk(
                kind: .identicalChecksums, step: nil,
                message:
                    "versions \($0.joined(separator: ", ")) have identical version checksums: Core Data's staged migration fails on such a chain; change a versionHashModifier",
                count: nil)
        }
    }

    /// The bytes the chain's rebuilds free, when the store cannot give them back: without
    /// `auto_vacuum = INCREMENTAL` the run leaves them free inside the file (SQLite reuses them).
    static func freePagesKept(_ report: DryRunReport, store: SQLiteStore) throws -> DryRunReport.Risk? {
        let freed = report.steps.map(\.extraBytes).reduce(0, +)
        guard freed > 0, try store.withDatabase({ db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") }) != 2 else { return nil }
        return DryRunReport.Risk(
            kind: .freePagesKept, step: nil,
            message: "the rebuilds free about \(freed / 1_000_000) MB that stay inside the file: the store has no incremental "
                + "auto-vacuum to give them back (SQLite reuses them; a VACUUM, which rewrites the whole file, would shrink it)",
            count: freed)
    }

    /// Rows of the copies' sources the store has now (a source a later step creates counts 0).
    static func sourceRows(of copies: [SlicedCopy], in store: SQLiteStore) throws -> Int {
        try store.withDatabase { db in
            try copies.reduce(0) { total, copy in
                guard try db.tableExists(copy.source) else { return total }
                return total + (try store.sourceRows(of: copy, db))
            }
        }
    }

    static func averageRowBytes(_ store: SQLiteStore) throws -> Int {
        try store.withDatabase { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            var rows = 0
            for table in try SchemaReader.read(db).tables {
                rows += try Int.fetchOne(db, sql: "SELECT count(*) FROM \(SQLIdentifier.quoted(table.name))") ?? 0
            }
            return rows == 0 ? 0 : pages * size / rows
        }
    }
}
