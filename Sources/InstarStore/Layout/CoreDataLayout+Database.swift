import Foundation
import GRDB
import InstarSQL
import InstarModel
import InstarLayouts

// What the layout reads and writes in a store (its bookkeeping); the rest of the layout needs no database.
extension CoreDataLayout: StoreLayout {
    public func recognizes(_ db: Database) throws -> Bool {
        try db.tableExists(Self.metadataTable) && db.tableExists(Self.primaryKeyTable)
    }

    /// The conventions of the framework version recorded in the store, and the store's table names.
    public func adapted(to db: Database) throws -> any StoreLayout {
        guard try recognizes(db) else { return self }
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        return CoreDataLayout(
            frameworkVersion: try CoreDataMetadata.read(db)?.frameworkVersion ?? frameworkVersion,
            storeTables: Set(tables.map(\.sqliteFolded)))
    }

    public func createBookkeeping(_ db: Database, model: Model) throws {
        try CoreDataMetadata.createTables(db, modelCache: keepsModelCache)
    }

    public func readMetadata(_ db: Database) throws -> StoreMetadata? {
        guard try recognizes(db), let stored = try CoreDataMetadata.read(db) else { return nil }
        return StoreMetadata(
            layout: name, versionName: nil, entityHashes: stored.entityHashes,
            versionChecksum: stored.versionChecksum, versionIdentifiers: stored.versionIdentifiers)
    }

    /// Rewrites `Z_METADATA` (keeping the store's UUID and every key this layout does not own), renumbers
    /// `Z_PRIMARYKEY` with each root's highest key, empties `Z_MODELCACHE`, and unlinks rows that a
    /// step removed (see `CoreDataMetadata.write(_:model:layout:)`).
    public func writeMetadata(_ db: Database, model: Model) throws {
        try CoreDataMetadata.write(db, model: model, layout: self)
    }
}
