import Foundation
import GRDB
import InstarInference
import InstarModel
import InstarPlanner
import InstarStore
import InstarSQL
import InstarLayouts

/// What a chain could lose or be blocked by, counted in the store.
extension DryRun {
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
            case .linked(let entity, let owner, let relationship)?:
                risks.append(
                    DryRunReport.Risk(
                        kind: .blockingRows, step: label,
                        message: "'\(entity)' rows without a link from '\(owner).\(relationship)' would block the step (\(change.subject) is required and takes over those links)",
                        count: nil))
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
    /// Rows a step's rebuild rewrites per second, for ``unitsExceeding(timeBudget:rowsPerSecond:)``: about
    /// what a fused rebuild reaches on the peer benchmark's machine (Measurements.md), rounded down.
    public static let typicalRowsPerSecond = 200_000.0

    /// The steps whose rewrite is estimated to take longer than `timeBudget` seconds: a launch with that
    /// budget is interrupted inside them every time and makes no progress there (the budget holds to
    /// within a statement, and an interrupted step is rolled back). Estimated from the rows the store
    /// has, at `rowsPerSecond`; a slower device needs a proportionally larger budget.
    public func unitsExceeding(timeBudget: Double, rowsPerSecond: Double = typicalRowsPerSecond) -> [Risk] {
        // A fused run of steps is one transaction: its rows add up.
        var units: [(label: String, rows: Int)] = []
        var index = 0
        while index < steps.count {
            let count = segments.first { $0.from == steps[index].from && $0.steps > 1 }?.steps ?? 1
            let covered = steps[index..<min(steps.count, index + count)]
            units.append(("\(covered.first!.from) → \(covered.last!.to)", covered.map(\.rowsTouched).reduce(0, +)))
            index += count
        }
        return units.compactMap { unit in
            let seconds = Double(unit.rows) / rowsPerSecond
            guard seconds > timeBudget else { return nil }
            return Risk(
                kind: .exceedsTimeBudget, step: unit.label,
                message: "rewrites \(unit.rows) row(s): about \(String(format: "%.1f", seconds)) s at \(Int(rowsPerSecond)) rows/s, "
                    + "more than the \(String(format: "%g", timeBudget)) s budget; a launch with that budget makes no progress here "
                    + "(give it a longer budget, or a background task)",
                count: unit.rows)
        }
    }
}
