import GRDB

/// Every decision a run makes rests on the store as it is now, not as this connection last saw it.
///
/// GRDB caches each connection's schema (which tables exist, their columns and indexes) and clears
/// that cache when *this* connection changes the schema; it cannot see another connection's DDL (its
/// `clearSchemaCache()` documentation says so; only `DatabasePool` readers refresh themselves). A
/// migration's connection lives through retries and waits while other processes commit: a run that
/// waited for another one's first commit once asked `tableExists("_instar_journal")` on a cache from
/// before that commit, saw no journal and no lease, and started a second run beside the first
/// (hooks ran twice, the store was stranded). So the cache is cleared whenever SQLite says another
/// connection committed since this one last looked (`PRAGMA data_version`, which changes exactly
/// then), at the start of every access and again right after `BEGIN IMMEDIATE`, when the write lock
/// is ours and nothing can change any more until we commit.
extension SQLiteStore {
    /// Clears GRDB's schema cache of this connection when another connection has committed since the
    /// last check. Costs one `PRAGMA data_version` (it reads the header page SQLite has cached).
    func refreshSchemaCache(_ db: Database) throws {
        let now = try Self.dataVersion(db)
        let changed = seenDataVersion.withLock { seen in
            defer { seen = now }
            return seen != now
        }
        if changed { db.clearSchemaCache() }
    }

    /// SQLite's count of other connections' commits as this connection sees it (`PRAGMA data_version`):
    /// it changes exactly when another connection commits, so two equal readings bracket reads that saw
    /// one state of the store.
    package static func dataVersion(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
    }

    /// ``dataVersion(_:)`` on this store's connection.
    package func dataVersion() throws -> Int {
        try withDatabase(Self.dataVersion)
    }

    /// The one way Instar writes a store: `body` in an immediate write transaction (the write lock is
    /// taken at `BEGIN`, so no other writer can commit between what the body reads and what it
    /// writes), on a schema cache refreshed after the lock was taken. The transaction commits when
    /// `body` returns `.commit` and rolls back when it throws.
    /// `setUp` runs on the connection just before, outside the transaction (SQL functions a step registers).
    package func inWriteTransaction(
        setUp: ((Database) throws -> Void)? = nil, _ body: (Database) throws -> Database.TransactionCompletion
    ) throws {
        try withDatabase { db in
            try setUp?(db)
            try db.inTransaction(.immediate) {
                try refreshSchemaCache(db)
                return try body(db)
            }
        }
    }

    /// Opens an immediate write transaction that stays open after this returns (a Swift hook's, which
    /// spans its awaits), on a refreshed schema cache; the caller commits or rolls it back.
    package func beginWriteTransaction(_ db: Database) throws {
        try db.beginTransaction(.immediate)
        do {
            try refreshSchemaCache(db)
        } catch {
            try? db.rollback()
            throw error
        }
    }
}
