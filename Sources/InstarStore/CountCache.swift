import GRDB

/// What a `count(*)` read outside a transaction depends on: the schema, this connection's own row
/// changes, and every other connection's commits.
///
/// A run prices its chain before it writes, and it does so more than once on one connection: to decide
/// what to do, then again as the executor starts (on the store as it is then: another run may have
/// committed meanwhile). Pricing counts the rows of every table a step rewrites, and on a large store
/// those counts are most of what a launch does before its first write (three tables of 240,000 rows:
/// 17 ms a pricing). The stamp says when a count read earlier is still the count now:
/// the schema's stamp (``SchemaStamp``: `PRAGMA data_version` changes exactly when another connection
/// commits, `PRAGMA schema_version` grows with each schema change this connection commits) and
/// `total_changes()`, which grows with each row this connection inserts, updates or deletes (even in a
/// transaction later rolled back). A transaction that changes the schema without changing a row and is
/// rolled back leaves the schema version where it was, and the store as it was.
struct CountStamp: Hashable {
    var schema: SchemaStamp
    var totalChanges: Int

    static func read(_ db: Database) throws -> CountStamp {
        CountStamp(schema: try SchemaStamp.read(db), totalChanges: db.totalChangesCount)
    }
}

/// Counts read under one ``CountStamp``, by statement and arguments.
struct CountCache {
    var stamp: CountStamp
    var counts: [Key: Int] = [:]

    struct Key: Hashable {
        var sql: String
        var arguments: [DatabaseValue]
    }
}

extension SQLiteStore {
    /// The single integer `sql` selects (a `count(*)`), read again only when the store may have changed
    /// since the same statement was last read on this connection (``CountStamp``). Inside a transaction
    /// it is always read: a rolled-back schema change takes the schema version back to a number a later,
    /// different change may reach again.
    package func count(_ db: Database, sql: String, arguments: [DatabaseValue] = []) throws -> Int {
        let read = { try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0 }
        guard !db.isInsideTransaction else { return try read() }
        let stamp = try CountStamp.read(db)
        let key = CountCache.Key(sql: sql, arguments: arguments)
        if let known = countCache.withLock({ $0?.stamp == stamp ? $0?.counts[key] : nil }) { return known }
        let count = try read()
        countCache.withLock { cache in
            if cache?.stamp != stamp { cache = CountCache(stamp: stamp) }
            cache!.counts[key] = count
        }
        return count
    }
}

extension SQLiteStore {
    /// Takes the counts a read-only connection to the same store read, when nothing has been committed
    /// since: a launch looks at the store read-only first (refusing bad input before it opens it for
    /// writing), then decides again on its own new connection, and both price the same chain.
    ///
    /// `look` must still be open. Its `PRAGMA data_version` changes when any other connection commits,
    /// this one included; it is read after this connection's stamp, so an unchanged value means the
    /// store was as `look` counted it when this connection's stamp was taken. Otherwise nothing is
    /// taken and this connection counts for itself.
    package func adoptCounts(from look: SQLiteStore) throws {
        guard look.isReadOnly, look.path == path, let seen = look.countCache.withLock({ $0 }), !seen.counts.isEmpty else { return }
        try withDatabase { db in
            guard !db.isInsideTransaction else { return }
            let stamp = try CountStamp.read(db)
            guard try look.withDatabase({ try CountStamp.read($0) }) == seen.stamp else { return }
            countCache.withLock { cache in
                var adopted = cache?.stamp == stamp ? cache! : CountCache(stamp: stamp)
                adopted.counts.merge(seen.counts) { mine, _ in mine }
                cache = adopted
            }
        }
    }
}
