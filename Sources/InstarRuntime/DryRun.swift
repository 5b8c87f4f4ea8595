import Foundation
import GRDB
import InstarInference
import InstarModel
import InstarPlanner
import InstarStore
import InstarSQL

/// Everything `instar plan` tells before touching a store: which steps, lightweight or not, what SQL,
/// how many rows, how much disk, and what could be lost. Built from a read-only view of the store.
public struct DryRunReport: Sendable {
    public struct StepReport: Sendable {
        public var from: String
        public var to: String
        public var kind: Step.Kind
        public var changes: [Change]
        public var warnings: [Warning]
        public var sql: [String]
        public var tablesRebuilt: [String]
        public var rowsTouched: Int
        /// Extra disk space the step needs while it runs (a rebuilt table exists twice until commit).
        public var extraBytes: Int
        public var hooks: [(name: String, phase: String, kind: String)]
        /// The mapping model a `.mapping` step runs (its pair is never skipped), nil otherwise.
        public var mappingModel: String? = nil
        /// A mapping step's hooks with an SQL template each, for `--scaffold` (empty for other steps).
        package var mappingHookTemplates: [MappingHookTemplate] = []
    }

    public struct Alternative: Sendable {
        public var versions: [String]
        public var cost: Int
    }

    public struct Risk: Sendable {
        public enum Kind: String, Sendable {
            case droppedValues, blockingNulls, blockingRows, duplicates, probableRename, identicalChecksums, dataDropped
        }
        public var kind: Kind
        public var step: String?
        public var message: String
        public var count: Int?
    }

    public var plan: String
    public var layout: String
    public var store: String?
    public var detectedVersion: String?
    public var matchedBy: String?
    public var from: String
    public var to: String
    public var steps: [StepReport]
    public var totalCost: Int
    public var alternatives: [Alternative]
    public var risks: [Risk]
    /// Runs of two or more steps that `migrate` runs as one transaction (only inline SQL hooks between
    /// them), fused so that every table is rewritten at most once, with the work moved across hooks.
    public var segments: [Segment] = []

    public struct Segment: Sendable {
        public var from: String
        public var to: String
        public var steps: Int
        /// The transaction's SQL in order, hooks shown as `-- hook <name>` lines.
        public var sql: [String]
        public var tablesRebuilt: [String]
        /// Work moved past hooks, e.g. "after hook artistsFromJSON: rebuild of track (fused with the
        /// steps after it); index track_artist_artist_idx".
        public var moved: [String] = []
    }
    /// Set when no chain exists: why.
    public var noChain: NoChain?
    /// When no chain exists: a proposed decomposition per gap (see ``Decomposer``).
    public var proposals: [Decomposition] = []
}

/// Builds a ``DryRunReport``. Opens the store read-only; never writes.
public enum DryRun {
    public static func report(plan: Plan, storePath: String?, from: String? = nil, to: String? = nil) throws -> DryRunReport {
        let layout = Layouts.named(plan.layout) ?? InstarLayout()
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
            throw StoreError(.unknownVersion, path: plan.file, "the plan has no versions")
        }
        defer { try? store?.close() }
        let estimator =
            store.map { StepCostEstimator(layout: layout, rows: StoreRowCounts(store: $0, model: current).rows(ofCanonical:)) }
            ?? StepCostEstimator(layout: layout, nominalRows: 1000)
        let graph = VersionGraph(plan: plan, costModel: estimator)
        let target = to ?? plan.targetVersion ?? current.name
        var report = DryRunReport(
            plan: plan.name, layout: layout.name, store: storePath, detectedVersion: store == nil ? nil : current.name,
            matchedBy: matchedBy, from: current.name, to: target, steps: [], totalCost: 0, alternatives: [], risks: [],
            noChain: nil)
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
        var lineage = Lineage(current: current)
        for (index, step) in chain.steps.enumerated() {
            guard let old = plan.versions.first(where: { $0.name == step.from }),
                let new = plan.versions.first(where: { $0.name == step.to })
            else { continue }
            let sql: [String]
            var mappingHooks: [(String, String, String)] = []
            var templates: [MappingHookTemplate] = []
            if step.kind == .mapping, let mapping = step.mapping {
                let program = try mappingProgram(mapping, from: old, to: new, layout: store?.layout ?? layout)
                sql = program.renderedSQL
                templates = MappingHookTemplate.templates(for: program, mapping: mapping.model, layout: store?.layout ?? layout)
                mappingHooks = program.hooks.map { hook in
                    (hook.name, "mapping \(hook.point.rawValue)", plan.hooks[hook.name]?.kindName ?? "not declared")
                }
            } else if index == 0, let store {
                sql = try store.planStep(from: old, to: new).1.statements.map(\.description)
            } else {
                // An opened store may adapt its layout (a Core Data store keeps its framework's conventions).
                let stepLayout = store?.layout ?? layout
                let program = try StepCompiler(diff: step.diff, from: old, to: new, layout: stepLayout).compile()
                let schema = try stepLayout.storageMap(for: old).schema
                sql = StepSQLPlanner.plan(program, actual: schema, viewsAndTriggers: []).statements.map(\.description)
            }
            var hooks: [(String, String, String)] = []
            for name in step.stage?.before ?? [] { hooks.append((name, "before", plan.hooks[name]?.kindName ?? "?")) }
            for name in step.stage?.after ?? [] { hooks.append((name, "after", plan.hooks[name]?.kindName ?? "?")) }
            hooks += mappingHooks
            let label = "\(step.from) → \(step.to)"
            report.steps.append(
                DryRunReport.StepReport(
                    from: step.from, to: step.to, kind: step.kind, changes: step.diff.changes,
                    warnings: step.diff.warnings, sql: sql, tablesRebuilt: step.cost.tablesRebuilt,
                    rowsTouched: step.cost.rowsRewritten, extraBytes: step.cost.rowsRewritten * bytesPerRow,
                    hooks: hooks, mappingModel: step.mapping?.model.name, mappingHookTemplates: templates))
            // A mapping step's data goes where its entity mappings say, not where inference would.
            if step.kind == .mapping {
                lineage.advance(through: step.diff)
                continue
            }
            report.risks += step.diff.warnings.map {
                DryRunReport.Risk(kind: .probableRename, step: label, message: $0.message, count: nil)
            }
            report.risks += try dataRisks(
                step: step, label: label, store: store, current: current, lineage: lineage, layout: layout)
            lineage.advance(through: step.diff)
        }
        let actual = try store.map { store in
            try store.withDatabase { db in try SchemaReader.read(db, skipping: store.layout.isBookkeepingTable) }
        }
        report.segments = try fusedSegments(chain: chain, plan: plan, layout: store?.layout ?? layout, actual: actual)
        return report
    }

    /// The statements and hooks of a mapping step, for the report.
    static func mappingProgram(_ mapping: PlannedMapping, from: Model, to: Model, layout: any StoreLayout) throws
        -> MappingProgram
    {
        do {
            var compiler = try MappingCompiler(mapping: mapping.model, from: from, to: to, layout: layout)
            return try compiler.compile()
        } catch {
            throw StoreError(.notInferable, path: mapping.model.file, error.description)
        }
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
