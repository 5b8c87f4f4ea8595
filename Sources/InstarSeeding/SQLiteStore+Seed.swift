import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

extension SQLiteStore {
    /// Fills the store, which must be at `model`'s version, with synthetic rows: `options.rows` per
    /// concrete entity (see ``SeedOptions``), every attribute type with its edge values, NULLs and
    /// defaults, every to-one, to-many, ordered and many-to-many relationship linked, uniqueness
    /// constraints kept. New keys follow the highest existing one, so a store with rows gets more.
    ///
    /// Deterministic: the same seed on the same store writes the same bytes. Streaming: rows are
    /// computed from their index and written a batch at a time, so memory does not grow with the count.
    /// Everything happens in one transaction: a request the model cannot satisfy is refused before the
    /// first row, and any failure rolls back, so the store is never left half-filled. For speed, tables
    /// that start empty load without their secondary indexes (re-created from the same SQL before the
    /// commit, see ``SeedIndexes``); foreign keys are checked once at the end (store connections do not
    /// enforce them per row).
    package func seed(model: Model, options: SeedOptions) throws(SeedError) -> SeedReport {
        if isReadOnly { throw SeedError(StoreError(.readOnly, path: path, reason: .openedReadOnly(.seeding))) }
        let map: StorageMap
        do {
            map = try layout.storageMap(for: model)
        } catch {
            throw SeedError(StoreError.layout(error, path: path))
        }
        let drift = SchemaComparison.differences(
            expected: map.schema, actual: try storeSchema(), ignoringExtraIndexes: layout.toleratesExtraIndexes)
        if !drift.isEmpty {
            throw SeedError(
                path: path,
                refusals: drift.map { SeedError.Refusal(reason: .storeNotAtVersion(model.name, difference: $0)) })
        }
        do {
            return try queue.inDatabase { db in try seed(db, model: model, map: map, options: options) }
        } catch let error as SeedError {
            throw error
        } catch {
            throw SeedError(StoreError.from(error, path: path, doing: .seeding))
        }
    }

    private func storeSchema() throws(SeedError) -> StoreSchema {
        do {
            return try schema()
        } catch {
            throw SeedError(error)
        }
    }

    /// Page cache while seeding, in KiB. SQLite's default (2 MiB) makes every index insert past the
    /// first few hundred thousand rows a read and a spill to the journal; a fixed, larger cache keeps
    /// them in memory. Fixed, so memory still does not grow with the row count.
    static let seedingCacheKiB = 64 * 1024

    private func seed(_ db: Database, model: Model, map: StorageMap, options: SeedOptions) throws -> SeedReport {
        var report = SeedReport(version: model.name, rows: [:], linkRows: [:])
        let cache = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -\(Self.seedingCacheKiB)")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cache)") }
        try db.inTransaction(.immediate) {
            var planner = SeedPlanner(model: model, map: map, layout: layout, options: options)
            let plan = try planner.plan(db)
            if !planner.refusals.isEmpty { throw SeedError(path: path, refusals: planner.refusals) }
            let indexes = try SeedIndexes.setAside(db, tables: plan.entities.map(\.table) + plan.joins.map(\.table))
            let writer = SeedWriter(db: db)
            for entity in plan.entities {
                report.rows[entity.block.entity] = try writer.write(entity)
            }
            for join in plan.joins {
                report.linkRows[join.table] = try writer.write(join)
            }
            try indexes.restore(db)
            try SeedKeys.record(db, plan: plan, map: map, layout: layout)
            let tables = Set(plan.entities.map(\.table) + plan.joins.map(\.table))
            for table in tables.sorted() {
                if let violation = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check(\(SQLIdentifier.quoted(table)))") {
                    throw StoreError(
                        .verificationFailed, path: path,
                        reason: .foreignKeyBroken(
                            after: .seeding, table: table, row: (violation[1] as DatabaseValue).description,
                            parent: (violation[2] as DatabaseValue).description))
                }
            }
            return .commit
        }
        for entity in model.entities where !entity.isAbstract && report.rows[entity.name] == nil {
            report.rows[entity.name] = 0
        }
        return report
    }
}
