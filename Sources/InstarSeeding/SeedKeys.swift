import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// The keys a table has handed out, and the layout's record of them.
///
/// Core Data hands out `Z_PK`s from `Z_PRIMARYKEY.Z_MAX` of the hierarchy's root and never reuses one
/// (object IDs of deleted rows stay dead), so new keys start after both that and the table's highest
/// key, and the counter is raised to the last key written. Sub-entities' rows keep 0, as in Core Data.
/// Other layouts keep no counter: the table's highest key is all there is.
enum SeedKeys {
    static func highestKey(
        _ db: Database, table: String, info: EntityTable, map: StorageMap, layout: any StoreLayout
    ) throws -> Int64 {
        var highest = try Int64.fetchOne(
            db, sql: "SELECT max(\(SQLIdentifier.quoted(info.primaryKey))) FROM \(SQLIdentifier.quoted(table))") ?? 0
        if let counting = layout as? any KeyCountingLayout,
            let recorded = try counting.recordedHighestKey(db, root: info.root, map: map)
        {
            highest = max(highest, recorded)
        }
        return max(highest, 0)
    }

    /// Raises each seeded root's recorded highest key (Core Data's `Z_MAX`) to the last key written.
    static func record(_ db: Database, plan: SeedPlan, map: StorageMap, layout: any StoreLayout) throws {
        guard let counting = layout as? any KeyCountingLayout else { return }
        for range in plan.keyRanges {
            try counting.recordHighestKey(db, range.lastKey, root: range.root, map: map)
        }
    }
}
