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

    /// How many versions' storage maps the estimator keeps now: at most ``storageMapsKeptAtMost``,
    /// however long the history it prices (``StorageMapCache``).
    package var storageMapsKept: Int { maps.count }

    /// The most storage maps an estimator keeps.
    package static var storageMapsKeptAtMost: Int { StorageMapCache.capacity }

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

/// The storage maps of the versions a search is pricing, kept while they are in use.
///
/// Pricing a step compiles it against both versions' maps, and a search asks for a version's map
/// several times, close together: the single steps on either side of it (priced in version order),
/// then the skips a chain check tries, which reach at most `maxSkip` (64 by default) versions ahead.
/// Keeping every version's map for the whole search held most of `instar plan`'s memory on a long
/// history (147 of its 215 MB of heap at 1,000 versions of 40 entities, about 150 KB a version), yet a
/// map is needed only around its version. So only the ``capacity`` most recently used maps are kept;
/// one asked for again after it was dropped is built again, equal to the first (a layout's map
/// depends on the model alone), so prices do not depend on what was kept. Maps are asked for with
/// ``StorageLayout/storageMapNotKept(for:)``: a layout that keeps each model's map in the model (Core
/// Data's) would otherwise keep every version's anyway.
final class StorageMapCache: Sendable {
    /// Maps kept at most: one search's window of skips (``PlanOptions/maxSkip``'s default, 64) and the
    /// pairs the cores price at once, so that a search builds each map about once.
    static let capacity = 80

    private struct Entry {
        var map: StorageMap
        /// When the map was last asked for (``State/clock``); the least recent is dropped first.
        var lastUse: Int
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var clock = 0
    }

    private let state = Locked(State())
    private let capacity: Int

    init(capacity: Int = StorageMapCache.capacity) {
        self.capacity = max(1, capacity)
    }

    /// How many maps are kept now (at most the capacity).
    var count: Int { state.withLock { $0.entries.count } }

    func map(for model: Model, layout: any StorageLayout) -> StorageMap? {
        let key = model.name + "\u{0}" + (model.source ?? "")
        let cached = state.withLock { state -> StorageMap? in
            guard let map = state.entries[key]?.map else { return nil }
            state.clock += 1
            state.entries[key]!.lastUse = state.clock
            return map
        }
        if let cached { return cached }
        // Built outside the lock, so that the planner's threads build different versions' maps at once
        // (two threads may build the same one; either result is the same).
        guard let map = try? layout.storageMapNotKept(for: model) else { return nil }
        state.withLock { state in
            state.clock += 1
            state.entries[key] = Entry(map: map, lastUse: state.clock)
            if state.entries.count > capacity, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                state.entries[oldest] = nil
            }
        }
        return map
    }
}
