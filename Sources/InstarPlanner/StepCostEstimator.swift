import Foundation
import InstarInference
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
import InstarCompiler

/// The planner's cost model for a layout: a step costs the rows of the tables it rebuilds or fills.
///
/// Which tables a step rebuilds is decided exactly as the executor will decide it, against the layout's
/// schema of the step's first version. Row counts come from the store (by entity, carried across
/// renames through canonical names); without a store every table counts as `nominalRows`.
package struct StepCostEstimator: StepCostModel {
    package let layout: any StorageLayout
    /// Rows of an entity, by canonical entity name (renaming identifier, else name); nil when unknown.
    package let rows: @Sendable (String) -> Int?
    package let nominalRows: Int
    private let maps = StorageMapCache()

    package init(layout: any StorageLayout, rowsByEntity: [String: Int] = [:], nominalRows: Int = 1000) {
        self.init(layout: layout, rows: { rowsByEntity[$0] }, nominalRows: nominalRows)
    }

    /// With rows counted on demand (``StoreRowCounts``): only tables that a candidate step rewrites are
    /// ever counted, so planning a chain of adds and renames reads no table at all.
    package init(layout: any StorageLayout, rows: @escaping @Sendable (String) -> Int?, nominalRows: Int = 0) {
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

    package func knownRows(ofEntity canonicalName: String) -> Int? { rows(canonicalName) }

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

/// Storage maps by version, computed once: pricing a long history asks for each many times.
final class StorageMapCache: Sendable {
    private let maps = Locked<[String: StorageMap]>([:])

    func map(for model: Model, layout: any StorageLayout) -> StorageMap? {
        let key = model.name + "\u{0}" + (model.source ?? "")
        if let cached = maps.withLock({ $0[key] }) { return cached }
        // Built outside the lock, so that the planner's threads build different versions' maps at once
        // (two threads may build the same one; either result is the same).
        guard let map = try? layout.storageMap(for: model) else { return nil }
        maps.withLock { $0[key] = map }
        return map
    }
}
