import Foundation
import GRDB
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts

// What the layout reads and writes in a store (its bookkeeping); the rest of the layout needs no database.
extension CoreDataLayout: StoreLayout {
    @_spi(Layouts) public func recognizes(_ db: Database) throws -> Bool {
        try db.tableExists(Self.metadataTable) && db.tableExists(Self.primaryKeyTable)
    }

    /// The conventions of the framework version recorded in the store, and the store's table names.
    @_spi(Layouts) public func adapted(to db: Database) throws -> any StoreLayout {
        guard try recognizes(db) else { return self }
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        let metadata = try CoreDataMetadata.read(db)
        return CoreDataLayout(
            frameworkVersion: metadata?.frameworkVersion ?? frameworkVersion,
            storeTables: Set(tables.map(\.sqliteFolded)), storeEntityHashes: metadata?.entityHashes)
    }

    @_spi(Layouts) public func createBookkeeping(_ db: Database, model: Model) throws {
        try CoreDataMetadata.createTables(db, modelCache: keepsModelCache)
    }

    @_spi(Layouts) public func readMetadata(_ db: Database) throws -> StoreMetadata? {
        guard try recognizes(db), let stored = try CoreDataMetadata.read(db) else { return nil }
        return StoreMetadata(
            layout: name, versionName: nil, entityHashes: stored.entityHashes,
            versionChecksum: stored.versionChecksum, versionIdentifiers: stored.versionIdentifiers)
    }

    /// Rewrites `Z_METADATA` (keeping the store's UUID and every key this layout does not own), renumbers
    /// `Z_PRIMARYKEY` with each root's highest key, writes the model into `Z_MODELCACHE` (framework 600 on;
    /// the old row stays when the model cannot be written), and unlinks rows that a
    /// step removed (see `CoreDataMetadata.write(_:model:layout:)`).
    @_spi(Layouts) public func writeMetadata(_ db: Database, model: Model) throws {
        try CoreDataMetadata.write(db, model: model, layout: self)
    }
}

/// A layout that keeps, in the store, the highest key each root entity has handed out (Core Data's
/// `Z_PRIMARYKEY.Z_MAX`): whatever writes rows outside a migration (seeding) continues from it and
/// raises it, so keys are never reused. Asked for by capability, not by layout type.
package protocol KeyCountingLayout {
    /// The recorded highest key of `root`'s hierarchy; nil when the store keeps no counter for it.
    func recordedHighestKey(_ db: Database, root: String, map: StorageMap) throws -> Int64?
    /// Raises `root`'s recorded highest key to `key` (never lowers it); nothing without a counter.
    func recordHighestKey(_ db: Database, _ key: Int64, root: String, map: StorageMap) throws
}

extension CoreDataLayout: KeyCountingLayout {
    package func recordedHighestKey(_ db: Database, root: String, map: StorageMap) throws -> Int64? {
        guard let number = try counterRow(db, root: root, map: map) else { return nil }
        return try Int64.fetchOne(
            db, sql: "SELECT \"Z_MAX\" FROM \(Self.primaryKeyTable.sqlQuoted) WHERE \"Z_ENT\" = ?", arguments: [number]) ?? 0
    }

    package func recordHighestKey(_ db: Database, _ key: Int64, root: String, map: StorageMap) throws {
        guard let number = try counterRow(db, root: root, map: map) else { return }
        try db.execute(
            sql: "UPDATE \(Self.primaryKeyTable.sqlQuoted) SET \"Z_MAX\" = ? WHERE \"Z_ENT\" = ? AND (\"Z_MAX\" IS NULL OR \"Z_MAX\" < ?)",
            arguments: [key, number, key])
    }

    /// The root's `Z_ENT`, when the store has `Z_PRIMARYKEY`.
    private func counterRow(_ db: Database, root: String, map: StorageMap) throws -> Int64? {
        guard try db.tableExists(Self.primaryKeyTable), case .integer(let number)? = map.entities[root]?.discriminatorValue
        else { return nil }
        return number
    }
}
