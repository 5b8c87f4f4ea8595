import GRDB
import InstarModel
import InstarSQL
import InstarStore
import InstarLayouts

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
        if let number = try counterRow(db, root: info.root, map: map, layout: layout) {
            let recorded = try Int64.fetchOne(
                db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [number]) ?? 0
            highest = max(highest, recorded)
        }
        return max(highest, 0)
    }

    /// Raises each seeded root's `Z_MAX` to the last key written.
    static func record(_ db: Database, plan: SeedPlan, map: StorageMap, layout: any StoreLayout) throws {
        for range in plan.keyRanges {
            guard let number = try counterRow(db, root: range.root, map: map, layout: layout) else { continue }
            try db.execute(
                sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND (Z_MAX IS NULL OR Z_MAX < ?)",
                arguments: [range.lastKey, number, range.lastKey])
        }
    }

    /// The root's `Z_ENT` when the store keeps Core Data's key counter.
    private static func counterRow(_ db: Database, root: String, map: StorageMap, layout: any StoreLayout) throws -> Int64? {
        guard layout is CoreDataLayout, try db.tableExists(CoreDataLayout.primaryKeyTable),
            case .integer(let number)? = map.entities[root]?.discriminatorValue
        else { return nil }
        return number
    }
}
