import Foundation
import GRDB
import InstarInference
import InstarModel
import InstarPlanner
import InstarStore
import InstarSQL
import InstarLayouts
import InstarCompiler

/// The planner's cost model for a layout: a step costs the rows of the tables it rebuilds or fills.
///
/// Which tables a step rebuilds is decided exactly as the executor will decide it, against the layout's
/// schema of the step's first version. Row counts come from the store (by entity, carried across
/// renames through canonical names); without a store every table counts as `nominalRows`.
package struct StepCostEstimator: StepCostModel {
    package let layout: any StoreLayout
    /// Rows of an entity, by canonical entity name (renaming identifier, else name); nil when unknown.
    package let rows: @Sendable (String) -> Int?
    package let nominalRows: Int
    private let maps = StorageMapCache()

    package init(layout: any StoreLayout, rowsByEntity: [String: Int] = [:], nominalRows: Int = 1000) {
        self.init(layout: layout, rows: { rowsByEntity[$0] }, nominalRows: nominalRows)
    }

    /// With rows counted on demand (``StoreRowCounts``): only tables that a candidate step rewrites are
    /// ever counted, so planning a chain of adds and renames reads no table at all.
    package init(layout: any StoreLayout, rows: @escaping @Sendable (String) -> Int?, nominalRows: Int = 0) {
        self.layout = layout
        self.rows = rows
        self.nominalRows = nominalRows
    }

    package func cost(from old: Model, to new: Model, diff: ModelDiff) -> StepCost {
        guard diff.isInferable, let oldMap = maps.map(for: old, layout: layout), let newMap = maps.map(for: new, layout: layout),
            let program = try? StepCompiler(diff: diff, from: old, to: new, oldMap: oldMap, newMap: newMap, layout: layout)
                .compile()
        else { return StepCost(rowsRewritten: 0) }
        let plan = StepSQLPlanner.plan(program, actual: oldMap.schema, viewsAndTriggers: [])
        var rows = 0
        var rebuilt: [String] = []
        for t in program.transformations {
            guard let source = t.source else { continue }
            switch plan.tables[t.target.name] {
            case .rebuilt?, .created?:
                rebuilt.append(t.target.name)
                rows += rowCount(ofTable: source, map: oldMap, model: old)
            case .altered(let kinds)? where kinds.contains("DROP COLUMN"):
                // SQLite rewrites the whole table to drop a column.
                rows += rowCount(ofTable: source, map: oldMap, model: old)
            default: break
            }
        }
        return StepCost(rowsRewritten: rows, tablesRebuilt: rebuilt.sorted())
    }

    /// Rows of a table of `model`: its entities' counts, or the nominal weight when unknown.
    package func rowCount(ofTable table: String, map: StorageMap, model: Model) -> Int {
        let entities = map.entities.filter { $0.value.table == table }.map(\.key)
        if entities.isEmpty { return nominalRows }  // a join table
        var total = 0
        var known = false
        for name in entities {
            if let count = rows(model.entity(named: name)?.canonicalName ?? name) {
                total += count
                known = true
            }
        }
        return known ? total : nominalRows
    }
}

/// Rows per entity of a store at a version, counted the first time the planner asks (`count(*)` reads
/// the whole table, which on a large store costs more than planning a chain of adds and renames).
package final class StoreRowCounts: @unchecked Sendable {
    private let store: SQLiteStore
    private let model: Model
    private let map: StorageMap?
    private var counted: [String: Int?] = [:]
    private let lock = NSLock()

    package init(store: SQLiteStore, model: Model) {
        self.store = store
        self.model = model
        map = try? store.layout.storageMap(for: model)
    }

    /// Rows of the entity whose canonical name is `canonical` (renaming identifier, else name),
    /// summed over the store's entities that share it; nil when the store has none.
    package func rows(ofCanonical canonical: String) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        if let known = counted[canonical] { return known }
        var total: Int?
        if let map {
            for entity in model.entities where entity.canonicalName == canonical {
                guard let storage = map.entities[entity.name] else { continue }
                var sql = "SELECT count(*) FROM \(storage.table.sqlQuoted)"
                var arguments: [DatabaseValueConvertible] = []
                if let column = map.entityTables[storage.table]?.discriminator, let value = storage.discriminatorValue {
                    sql += " WHERE \(column.sqlQuoted) = ?"
                    arguments.append(value.databaseValue)
                }
                let n = try? store.withDatabase { db in try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) }
                if let n = n ?? nil { total = (total ?? 0) + n }
            }
        }
        counted[canonical] = total
        return total
    }
}

extension SQLiteStore {
    /// Rows per entity of a store at `model`, keyed by canonical entity name, for the cost model.
    package func rowsByEntity(at model: Model) throws(StoreError) -> [String: Int] {
        let map: StorageMap
        do {
            map = try layout.storageMap(for: model)
        } catch {
            throw StoreError(.layout, path: path, error.description)
        }
        do {
            return try withDatabase { db in
                var result: [String: Int] = [:]
                for (name, storage) in map.entities {
                    var sql = "SELECT count(*) FROM \(storage.table.sqlQuoted)"
                    var arguments: [DatabaseValueConvertible] = []
                    if let column = map.entityTables[storage.table]?.discriminator, let value = storage.discriminatorValue {
                        sql += " WHERE \(column.sqlQuoted) = ?"
                        arguments.append(value.databaseValue)
                    }
                    let canonical = model.entity(named: name)?.canonicalName ?? name
                    result[canonical, default: 0] += try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0
                }
                return result
            }
        } catch {
            throw StoreError.from(error, path: path, doing: "counting rows")
        }
    }
}

/// Storage maps by version, computed once: pricing a long history asks for each many times.
final class StorageMapCache: @unchecked Sendable {
    private var maps: [String: StorageMap] = [:]
    private let lock = NSLock()

    func map(for model: Model, layout: any StoreLayout) -> StorageMap? {
        let key = model.name + "\u{0}" + (model.source ?? "")
        lock.lock()
        let cached = maps[key]
        lock.unlock()
        if let cached { return cached }
        // Built outside the lock, so that the planner's threads build different versions' maps at once
        // (two threads may build the same one; either result is the same).
        guard let map = try? layout.storageMap(for: model) else { return nil }
        lock.lock()
        maps[key] = map
        lock.unlock()
        return map
    }
}
