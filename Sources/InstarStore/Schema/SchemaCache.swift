import GRDB
@_spi(Layouts) import InstarLayouts

/// When a store's schema was read: SQLite's schema cookie (`PRAGMA schema_version`, bumped by every
/// DDL statement, this connection's uncommitted ones included, and restored by a rollback) with the
/// connection's `PRAGMA data_version` (changed by every commit of another connection). Two reads
/// with the same stamp see the same schema: this connection changed none of it, and no other
/// connection committed anything — so no rolled-back change can share a cookie value with a schema
/// another connection committed meanwhile.
struct SchemaStamp: Hashable {
    var schemaVersion: Int
    var dataVersion: Int

    static func read(_ db: Database) throws -> SchemaStamp {
        SchemaStamp(
            schemaVersion: try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0,
            dataVersion: try SQLiteStore.dataVersion(db))
    }
}

extension SQLiteStore {
    /// The store's schema without the layout's bookkeeping tables, read again only when the stamp
    /// says it may have changed. Reading a schema costs a few statements per table (about 30 ms for
    /// 60 tables); a run reads it to detect the version, to decide, to plan each unit and to verify,
    /// and `instar test` does that for every version of a bundle, so most reads find it unchanged.
    package func readSchema(_ db: Database) throws -> StoreSchema {
        let stamp = try SchemaStamp.read(db)
        if let cached = schemaCache.withLock({ $0 }), cached.stamp == stamp { return cached.schema }
        let schema = try SchemaReader.read(db, skipping: layout.isBookkeepingTable)
        schemaCache.withLock { $0 = (stamp, schema) }
        return schema
    }
}
