import Foundation
import GRDB
import InstarInference
import InstarModel
import InstarPlanner
import InstarStore

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
            if index == 0, let store {
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
            let label = "\(step.from) → \(step.to)"
            report.steps.append(
                DryRunReport.StepReport(
                    from: step.from, to: step.to, kind: step.kind, changes: step.diff.changes,
                    warnings: step.diff.warnings, sql: sql, tablesRebuilt: step.cost.tablesRebuilt,
                    rowsTouched: step.cost.rowsRewritten, extraBytes: step.cost.rowsRewritten * bytesPerRow,
                    hooks: hooks))
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

    /// The transactions of the chain that cover two steps or more, planned as `migrate` will run them
    /// (``TransactionPlan``), with their SQL.
    static func fusedSegments(chain: Chain, plan: Plan, layout: any StoreLayout, actual: StoreSchema?) throws
        -> [DryRunReport.Segment]
    {
        var segments: [DryRunReport.Segment] = []
        let stageHooks = chain.steps.map { StageHooks(plan: plan, from: $0.from, to: $0.to) }
        var start = 0
        var schema = actual
        while start < chain.steps.count {
            var end = start
            while end + 1 < chain.steps.count, StageHooks.canShareTransaction(stageHooks[end], stageHooks[end + 1]) {
                end += 1
            }
            defer { start = end + 1 }
            let names = [chain.steps[start].from] + chain.steps[start...end].map(\.to)
            let versions = names.compactMap { name in plan.versions.first { $0.name == name } }
            guard versions.count == names.count else { continue }
            var hooks: [Int: [InlineHook]] = [:]
            for index in start...end {
                let position = index - start
                for name in stageHooks[index].beforeInside {
                    hooks[position, default: []].append(InlineHook(name: name, statements: StageHooks.statements(of: name, in: plan)))
                }
                for name in stageHooks[index].afterInside {
                    hooks[position + 1, default: []].append(InlineHook(name: name, statements: StageHooks.statements(of: name, in: plan)))
                }
            }
            let transaction = try TransactionPlan.make(versions: versions, hooks: hooks, layout: layout, fuse: true)
            var current = try schema ?? layout.storageMap(for: versions[0]).schema
            var sql: [String] = []
            var rebuilt: [String: Int] = [:]
            for part in transaction.parts {
                switch part {
                case .steps(let unit):
                    let planned = StepSQLPlanner.plan(unit.program, actual: current, viewsAndTriggers: [])
                    sql += planned.statements.map(\.description)
                    for table in planned.rebuiltTables { rebuilt[table, default: 0] += 1 }
                    current = unit.program.targetSchema
                case .hooks(let hooks, _, let access):
                    for hook in hooks {
                        sql.append("-- hook \(hook.name)" + (access.opaqueReason.map { " (nothing moves across it: \($0))" } ?? ""))
                    }
                }
            }
            schema = current
            guard end > start else { continue }
            segments.append(
                DryRunReport.Segment(
                    from: names.first!, to: names.last!, steps: end - start + 1, sql: sql, 
                    tablesRebuilt: rebuilt.keys.sorted().map { rebuilt[$0]! > 1 ? "\($0) (\(rebuilt[$0]!) times)" : $0 },
                    moved: transaction.moves.map { move in
                        let what = move.work.tables.map { "rebuild of \($0) (fused with the steps after it)" }
                            + move.work.indexes.map { "index \($0)" }
                        return "after hook \(move.hooks.joined(separator: ", ")) at \(versions[move.position].name): "
                            + what.joined(separator: "; ")
                    }))
        }
        return segments
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

    /// Values lost and NULLs or rows that block the step, counted in the store where the entity and
    /// property can be found in its current version (matched by canonical name).
    /// Values lost and NULLs or rows that block the step, counted in the store. Names in the step's
    /// first version are traced back to the store's version through the earlier steps (`lineage`);
    /// what did not exist in the store yet cannot be counted.
    static func dataRisks(
        step: Step, label: String, store: SQLiteStore?, current: Model, lineage: Lineage, layout: any StoreLayout
    ) throws -> [DryRunReport.Risk] {
        var risks: [DryRunReport.Risk] = []
        let map = try layout.storageMap(for: current)
        func locate(_ entity: String, _ property: String?) -> (table: String, column: String?, filter: (String, SQLValue)?)? {
            guard store != nil, let storeEntity = lineage.entity(entity), let storage = map.entities[storeEntity] else {
                return nil
            }
            var column: String?
            if let property {
                guard let storeProperty = lineage.property(property, of: entity), let c = storage.columns[storeProperty]
                else { return nil }
                column = c
            }
            let filter = map.entityTables[storage.table]?.discriminator.flatMap { d in storage.discriminatorValue.map { (d, $0) } }
            return (storage.table, column, filter)
        }
        func count(_ where_: String, table: String, filter: (String, SQLValue)?) -> Int? {
            guard let store else { return nil }
            var sql = "SELECT count(*) FROM \(SQLIdentifier.quoted(table)) WHERE \(where_)"
            var arguments: [DatabaseValue] = []
            if let (column, value) = filter {
                sql += " AND \(SQLIdentifier.quoted(column)) = ?"
                arguments.append(value.databaseValue)
            }
            return try? store.withDatabase { db in try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) }
        }
        // Removed attributes are reported under the entity's newer name; the store knows the older one.
        let oldEntity = { (change: Change) in step.diff.source(ofEntity: change.entity) ?? change.entity }
        for change in step.diff.changes {
            switch change.kind {
            case .attributeRemoved where change.dropsData:
                let where_ = locate(oldEntity(change), change.property)
                let n = where_.flatMap { w in w.column.flatMap { count("\(SQLIdentifier.quoted($0)) IS NOT NULL", table: w.table, filter: w.filter) } }
                risks.append(
                    DryRunReport.Risk(
                        kind: .droppedValues, step: label,
                        message: "\(n.map { "\($0) non-NULL value(s)" } ?? "the values") of '\(change.subject)' will be dropped",
                        count: n))
            case .entityRemoved:
                let where_ = locate(change.entity, nil)
                let n = where_.flatMap { count("1", table: $0.table, filter: $0.filter) }
                risks.append(
                    DryRunReport.Risk(
                        kind: .dataDropped, step: label,
                        message: "\(n.map { "\($0) row(s)" } ?? "the rows") of '\(change.entity)' will be deleted", count: n))
            default:
                break
            }
            switch change.verdict.condition {
            case .noNulls(let entity, let property)?:
                let w = locate(entity, property)
                let n = w.flatMap { w in w.column.flatMap { count("\(SQLIdentifier.quoted($0)) IS NULL", table: w.table, filter: w.filter) } }
                risks.append(
                    DryRunReport.Risk(
                        kind: .blockingNulls, step: label,
                        message: "\(n.map { "\($0) row(s)" } ?? "rows") with NULL in '\(entity).\(property)' would block the step (it becomes required without a default)",
                        count: n))
            case .noRows(let entity)?:
                let n = locate(entity, nil).flatMap { count("1", table: $0.table, filter: $0.filter) }
                risks.append(
                    DryRunReport.Risk(
                        kind: .blockingRows, step: label,
                        message: "\(n.map { "\($0) existing '\(entity)' row(s)" } ?? "existing '\(entity)' rows") would block the step (\(change.subject) is required without a default)",
                        count: n))
            case .unique(let entity, let properties)?:
                risks.append(
                    DryRunReport.Risk(
                        kind: .duplicates, step: label,
                        message: "duplicate '\(entity)' values in (\(properties.joined(separator: ", "))) would block the new uniqueness constraint",
                        count: nil))
            case nil:
                break
            }
        }
        return risks.filter { $0.count != 0 }
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

/// Traces entity and property names of a later version back to the store's version, step by step.
struct Lineage {
    /// Entity name in the version being looked at → entity name in the store's version.
    private var entities: [String: String]
    /// Entity (looked-at version) → property (looked-at) → property (store's version).
    private var properties: [String: [String: String]]

    init(current: Model) {
        entities = Dictionary(uniqueKeysWithValues: current.entities.map { ($0.name, $0.name) })
        properties = Dictionary(
            uniqueKeysWithValues: current.entities.map { e in
                (e.name, Dictionary(uniqueKeysWithValues: current.properties(of: e.name).map { ($0.name, $0.name) }))
            })
    }

    func entity(_ name: String) -> String? { entities[name] }
    func property(_ name: String, of entity: String) -> String? { properties[entity]?[name] }

    /// Moves the view one step later: names of the step's second version.
    mutating func advance(through diff: ModelDiff) {
        var nextEntities: [String: String] = [:]
        var nextProperties: [String: [String: String]] = [:]
        for mapping in diff.mappings {
            guard let s = mapping.source, let d = mapping.destination, let origin = entities[s] else { continue }
            nextEntities[d] = origin
            var map: [String: String] = [:]
            for p in mapping.properties {
                if let sp = p.source, let dp = p.destination, let originProperty = properties[s]?[sp.name] {
                    map[dp.name] = originProperty
                }
            }
            nextProperties[d] = map
        }
        entities = nextEntities
        properties = nextProperties
    }
}
