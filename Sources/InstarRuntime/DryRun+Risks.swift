import Foundation
import GRDB
import InstarInference
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// What a chain could lose or be blocked by, counted in the store.
extension DryRun {
    /// Values lost and NULLs or rows that block the step, counted in the store. Names in the step's
    /// first version are traced back to the store's version through the earlier steps (`lineage`);
    /// what did not exist in the store yet cannot be counted.
    static func dataRisks(
        step: Step, label: String, store: SQLiteStore?, current: Model, lineage: Lineage, layout: any StoreLayout,
        counted: [DataViolation]? = nil
    ) throws -> [DryRunReport.Risk] {
        /// A condition's count on the store's rows, when the step starts at the store's version (0: it holds).
        func violation(_ condition: DataCondition) -> (count: Int?, samples: String) {
            guard let counted else { return (nil, "") }
            guard let found = counted.first(where: { $0.condition == condition }) else { return (0, "") }
            let samples = found.samples.map { "(" + $0.joined(separator: ", ") + ")" }.joined(separator: ", ")
            return (found.count, samples.isEmpty ? "" : ", for example " + samples)
        }
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
            case .propertyHashModifierChanged, .entityHashModifierChanged:
                let w = locate(oldEntity(change), change.property)
                let n = w.flatMap { w in
                    change.property == nil
                        ? count("1", table: w.table, filter: w.filter)
                        : w.column.flatMap { count("\(SQLIdentifier.quoted($0)) IS NOT NULL", table: w.table, filter: w.filter) }
                }
                let what = change.property == nil ? "row(s) of '\(change.entity)'" : "non-NULL value(s) of '\(change.subject)'"
                risks.append(
                    DryRunReport.Risk(
                        kind: .meaningChange, step: label,
                        message: "\(n.map { "\($0) \(what)" } ?? "the \(what)") keep their stored form while the version hash modifier says their meaning changed (\(change.before ?? "none") → \(change.after ?? "none")): confirm, or convert them in a hook or a mapping model",
                        count: n))
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
                        message: "\(n.map { "\($0) existing '\(entity)' row(s)" } ?? "existing '\(entity)' rows") would block the step ("
                            + (change.kind == .relationshipAdded
                                ? "the required relationship \(change.subject) is added, and no existing row has one)"
                                : "\(change.subject) is required without a default)"),
                        count: n))
            case .linked(let entity, let owner, let relationship)?:
                let (n, _) = violation(.linked(entity: entity, by: owner, relationship: relationship))
                risks.append(
                    DryRunReport.Risk(
                        kind: .blockingRows, step: label,
                        message: "\(n.map { "\($0) '\(entity)' row(s)" } ?? "'\(entity)' rows") without a link from '\(owner).\(relationship)' would block the step (\(change.subject) is required and takes over those links)",
                        count: n))
            case .unique(let entity, let properties)?:
                let (n, samples) = violation(.unique(entity: entity, properties: properties))
                risks.append(
                    DryRunReport.Risk(
                        kind: .duplicates, step: label,
                        message: "\(n.map { "\($0) group(s) of duplicate" } ?? "duplicate") '\(entity)' values in (\(properties.joined(separator: ", ")))\(samples) would block the new uniqueness constraint",
                        count: n))
            case nil:
                break
            }
        }
        return risks.filter { $0.count != 0 }
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

extension DryRunReport {
    /// Rows a step's rebuild rewrites per second, for ``unitsExceeding(timeBudget:rowsPerSecond:slicing:launchSeconds:)``
    /// when the store's journal has no measured rate: what a release build rewrote on the measurement
    /// machine (`Scripts/bench-budget`, 2026-11-29: a 1M-row rebuild finished in one 2 s launch, its final
    /// transaction fitted 0.15 s and not 0.05 s, Measurements.md). 200,000 (the peer benchmark's fused
    /// rate, which parses JSON) predicted 2–4× too many launches and "no fit" where 12 launches finished.
    /// A slower device is proportionally slower; after its first sliced launch its own rate is used.
    public static let typicalRowsPerSecond = 1_000_000.0

    /// Of a sliced table's rewrite, the share left to the step's transaction after its rows are copied
    /// ahead: the renames and the checks, without secondary indexes to build (Measurements.md, sliced
    /// rewrites: the step's transaction fitted a tenth of the unsliced time at 1M rows).
    public static let swapShareOfSlicedRewrite = 0.1

    /// The work a budgeted run spreads over its launches for a sliced table until the store is at the
    /// target, in multiples of the unsliced rewrite's time: the slices' copy (1.10× at 1M rows,
    /// Measurements.md). The retired old table is deleted after the finish, within later launches'
    /// budgets, and is not counted: the app runs meanwhile.
    public static let slicedWorkFactor = 1.1

    /// A launch's fixed work before its first unit of work, in seconds: opening the store, taking the
    /// lease, finding the store's version and the chain. It is spent from the budget of every launch
    /// (the budget counts from the call), so a budget no longer than this makes no progress at all, and
    /// a short one holds less work than its length. The smallest budget in which a release build's one
    /// launch finished a one-row rebuild on the measurement machine (`Scripts/bench-budget --floor`,
    /// 2026-11-29: median 13.5 ms of five bisections, 8.6–21.1 ms, 2 cores under load; Measurements.md);
    /// a plan of many versions or a slower device spends more.
    public static let typicalLaunchSeconds = 0.0135

    /// The rewrite rate the budget estimates use when not given one: the slices' rate measured on
    /// this store by an earlier launch, scaled to an unsliced rewrite's (slices cost
    /// ``slicedWorkFactor`` of it), else ``typicalRowsPerSecond``.
    public var estimateRowsPerSecond: Double {
        measuredRowsPerSecond.map { $0 * Self.slicedWorkFactor } ?? Self.typicalRowsPerSecond
    }

    /// One transaction of the chain as the budget sees it: rows it rewrites, and of those the rows
    /// copied ahead in slices when the run slices.
    struct BudgetUnit {
        var label: String
        var rows: Int
        var slicedRows: Int
        var unsliced: [String]
    }

    /// The chain's transactions: a fused run of steps is one, its rows added up; its copies made ahead
    /// are its first step's (those read the store as it is).
    func budgetUnits(slicing: Slicing, budgeted: Bool) -> [BudgetUnit] {
        var units: [BudgetUnit] = []
        var index = 0
        while index < steps.count {
            let count = segments.first { $0.from == steps[index].from && $0.steps > 1 }?.steps ?? 1
            let covered = steps[index..<min(steps.count, index + count)]
            let rows = covered.map(\.rowsTouched).reduce(0, +)
            let first = covered.first!
            let slices: Bool
            switch slicing {
            case .off: slices = false
            case .rows, .seconds: slices = true
            case .automatic(let minimumRows): slices = budgeted && rows >= minimumRows
            }
            let sliced = slices && first.kind != .mapping ? min(rows, first.slicedRows) : 0
            let unsliced = covered.flatMap(\.tablesRebuilt).filter { !(sliced > 0 && first.slicedTables.contains($0)) }
            units.append(BudgetUnit(label: "\(first.from) → \(covered.last!.to)", rows: rows, slicedRows: sliced, unsliced: unsliced))
            index += count
        }
        return units
    }

    /// The steps whose transaction is estimated to take longer than `timeBudget` seconds leave after a
    /// launch's fixed work (`launchSeconds`, by default ``typicalLaunchSeconds``), even with `slicing`:
    /// a launch with that budget is interrupted inside it every time and makes no progress there (the
    /// budget holds to within a statement, and an interrupted transaction is rolled back). When the
    /// fixed work alone fills the budget, one risk says that no launch makes any progress.
    /// Rows copied ahead in slices leave only ``swapShareOfSlicedRewrite`` of their cost to the
    /// transaction. Estimated from the rows the store has, at `rowsPerSecond`; a slower device needs a
    /// proportionally larger budget.
    public func unitsExceeding(
        timeBudget: Double, rowsPerSecond: Double? = nil, slicing: Slicing = .default, launchSeconds: Double? = nil
    ) -> [Risk] {
        let rowsPerSecond = rowsPerSecond ?? estimateRowsPerSecond
        let fixed = launchSeconds ?? Self.typicalLaunchSeconds
        let budget = String(format: "%g", timeBudget)
        guard timeBudget > fixed else {
            return [
                Risk(
                    kind: .exceedsTimeBudget, step: nil,
                    message: "a launch's fixed work (opening the store, the lease, finding its version and the chain: "
                        + "about \(String(format: "%g", fixed)) s) takes the whole \(budget) s budget before any step "
                        + "starts; no launch with that budget makes progress (give it a longer budget, or none)",
                    count: nil)
            ]
        }
        return budgetUnits(slicing: slicing, budgeted: true).compactMap { unit in
            let seconds = transactionSeconds(unit, rowsPerSecond: rowsPerSecond)
            guard seconds > timeBudget - fixed else { return nil }
            let why =
                unit.slicedRows > 0
                ? "after copying \(unit.slicedRows) row(s) ahead in slices (those launches progress), its final transaction is estimated at \(String(format: "%.2f", seconds)) s"
                : "rewrites \(unit.rows) row(s) in one transaction: about \(String(format: "%.2f", seconds)) s"
            let unsliced = unit.unsliced.isEmpty ? "" : " (not sliceable: \(unit.unsliced.joined(separator: ", ")))"
            let stall =
                unit.slicedRows > 0
                ? "if it is, the launches stop progressing at that transaction"
                : "a launch with that budget makes no progress here"
            return Risk(
                kind: .exceedsTimeBudget, step: unit.label,
                message: "\(why) at \(Int(rowsPerSecond)) rows/s\(unsliced), more than the \(budget) s budget leaves "
                    + "after a launch's fixed work (about \(String(format: "%g", fixed)) s); "
                    + "\(stall) (give it a longer budget, or a background task)",
                count: unit.rows)
        }
    }

    /// Seconds a transaction takes once its sliceable rows are copied ahead.
    private func transactionSeconds(_ unit: BudgetUnit, rowsPerSecond: Double) -> Double {
        (Double(unit.rows - unit.slicedRows) + Double(unit.slicedRows) * Self.swapShareOfSlicedRewrite) / rowsPerSecond
    }

    /// How many launches of `timeBudget` seconds the chain needs with `slicing`, at `rowsPerSecond`:
    /// each launch first spends its fixed work (`launchSeconds`, by default ``typicalLaunchSeconds``),
    /// slices fill the rest, and each transaction must fit in what a launch leaves; nil when one never
    /// fits or the fixed work fills the budget
    /// (``unitsExceeding(timeBudget:rowsPerSecond:slicing:launchSeconds:)`` says which).
    /// Without `rowsPerSecond`, at ``estimateRowsPerSecond``.
    public func launches(
        timeBudget: Double, rowsPerSecond: Double? = nil, slicing: Slicing = .default, launchSeconds: Double? = nil
    ) -> Int? {
        let rowsPerSecond = rowsPerSecond ?? estimateRowsPerSecond
        let fixed = launchSeconds ?? Self.typicalLaunchSeconds
        guard timeBudget > fixed, rowsPerSecond > 0 else { return nil }
        var launches = 1
        var used = fixed
        for unit in budgetUnits(slicing: slicing, budgeted: true) {
            var ahead = Double(unit.slicedRows) * Self.slicedWorkFactor / rowsPerSecond
            while ahead > 0 {
                if used >= timeBudget {
                    launches += 1
                    used = fixed
                }
                let take = min(timeBudget - used, ahead)
                used += take
                ahead -= take
            }
            let whole = transactionSeconds(unit, rowsPerSecond: rowsPerSecond)
            if whole > timeBudget - fixed { return nil }
            if used + whole > timeBudget {
                launches += 1
                used = fixed
            }
            used += whole
        }
        return launches
    }
}
