import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// Decides every row a seed writes, and refuses what the model cannot satisfy, before any is written.
///
/// Row counts come from ``SeedOptions``; each root table's new keys start after its highest key (and
/// after Core Data's recorded `Z_MAX`), one block per concrete entity of the hierarchy in the layout's
/// depth-first order, so that every entity's descendants are consecutive and a pool is a few blocks.
package struct SeedPlanner {
    let model: Model
    let map: StorageMap
    let layout: any StoreLayout
    let options: SeedOptions
    let random: SeedRandom
    let encoding: SeedEncoding
    package private(set) var refusals: [SeedError.Refusal] = []
    var counts: [String: Int64] = [:]
    /// Table → its new blocks, in the hierarchy's order.
    var tableBlocks: [String: [SeedBlock]] = [:]
    /// Table → the first and last new key.
    var tableKeys: [String: ClosedRange<Int64>] = [:]
    /// Constraint columns → the free combinations of a Booleans-only uniqueness constraint.
    var combinations: [[String]: [UInt64]] = [:]

    package init(model: Model, map: StorageMap, layout: any StoreLayout, options: SeedOptions) {
        self.model = model
        self.map = map
        self.layout = layout
        self.options = options
        self.random = SeedRandom(seed: options.seed)
        self.encoding = SeedEncoding(layout: layout)
    }

    /// The plan; check ``refusals`` before using it.
    package mutating func plan(_ db: Database) throws -> SeedPlan {
        decideCounts()
        var keyRanges: [SeedKeyRange] = []
        for table in entityTableOrder {
            let info = map.entityTables[table]!
            let highest = try SeedKeys.highestKey(db, table: table, info: info, map: map, layout: layout)
            var next = highest &+ 1
            var blocks: [SeedBlock] = []
            for kind in map.entities[info.root]?.kinds ?? [info.root] {
                let count = counts[kind] ?? 0
                blocks.append(SeedBlock(entity: kind, firstKey: next, count: count, discriminator: map.entities[kind]?.discriminatorValue))
                let (after, overflow) = next.addingReportingOverflow(count)
                // The store's own keys decide where new ones start: near 2^63 they cannot follow.
                guard highest < Int64.max, !overflow else {
                    refuse(kind, nil, .keysOverflow(highest: highest))
                    return SeedPlan(entities: [], joins: [], keyRanges: [])
                }
                next = after
            }
            tableBlocks[table] = blocks
            if next - 1 > highest {
                tableKeys[table] = (highest + 1)...(next - 1)
                keyRanges.append(SeedKeyRange(table: table, root: info.root, lastKey: next - 1))
            }
        }
        var entities: [SeedEntityPlan] = []
        for table in entityTableOrder {
            for block in tableBlocks[table]! where block.count > 0 {
                if let plan = try entityPlan(block, table: table, db) { entities.append(plan) }
            }
        }
        return SeedPlan(entities: entities, joins: joinPlans(), keyRanges: keyRanges)
    }

    /// Entity tables in the order the layout creates them.
    var entityTableOrder: [String] {
        map.schema.tables.map(\.name).filter { map.entityTables[$0] != nil }
    }

    /// The most rows seeded per entity: far beyond any test store, and small enough that keys and the
    /// seeders' index arithmetic (multiplied by small primes) stay far from overflowing.
    static let maximumRows = 1_000_000_000

    /// Rows per entity: the request, abstract entities none; unknown or impossible requests refused.
    mutating func decideCounts() {
        if options.rows < 0 { refuse(nil, nil, .negativeRows(options.rows)) }
        if options.rows > Self.maximumRows {
            refuse(nil, nil, .tooManyRows(options.rows, maximum: Self.maximumRows))
        }
        for name in options.rowsPerEntity.keys.sorted() {
            guard let entity = model.entity(named: name) else {
                refuse(name, nil, .unknownEntity(version: model.name))
                continue
            }
            let rows = options.rowsPerEntity[name]!
            if rows < 0 || rows > Self.maximumRows {
                refuse(name, nil, .rowCountOutOfRange(rows, maximum: Self.maximumRows))
            }
            if entity.isAbstract && rows > 0 {
                refuse(name, nil, .abstractEntity)
            }
        }
        for entity in model.entities {
            let requested = options.rowsPerEntity[entity.name] ?? options.rows
            counts[entity.name] = entity.isAbstract ? 0 : Int64(min(max(0, requested), Self.maximumRows))
        }
    }

    /// The new rows that can be linked to as `entity`: its own and its descendants'.
    func pool(of entity: String) -> SeedPool {
        guard let storage = map.entities[entity] else { return SeedPool(blocks: []) }
        let kinds = Set(storage.kinds)
        return SeedPool(blocks: (tableBlocks[storage.table] ?? []).filter { kinds.contains($0.entity) })
    }

    mutating func refuse(_ entity: String?, _ property: String?, _ reason: SeedError.Refusal.Reason) {
        refusals.append(SeedError.Refusal(entity: entity, property: property, reason: reason))
    }
}
