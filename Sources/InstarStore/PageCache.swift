import GRDB

extension SQLiteStore {
    /// Sizes this connection's page cache to hold the whole store, when the store is no larger than
    /// `limit` bytes; a larger store, or a `limit` of 0, keeps the connection's cache as it is.
    /// Returns the cache now set, in KiB (nil when nothing was changed).
    ///
    /// Why: a step passes over the same pages more than once in one transaction. An in-place
    /// `DROP COLUMN` rewrites every row of its table, a second one rewrites them again, and each index
    /// built after reads the table once more. SQLite's default cache (2,000 KiB) holds a few hundred
    /// pages, so each pass reads the table again from the file, and dirty pages spill before the
    /// commit. With the store's pages in the cache, the later passes read memory. Measured on
    /// `Scripts/bench-launch`'s store (40 MB, a 20 MB table losing two columns, four indexes built):
    /// 40,516 reads and 72,475 writes become 25,468 and 62,835, and the launch takes 0.9 of the time.
    /// A cache smaller than a table read in order is evicted before each page is read again (16 MiB
    /// for that 20 MB table gained little), so a store that does not fit keeps the default, and
    /// memory stays bounded by `limit` plus what the run needs without it.
    ///
    /// The cache is memory only: the commit writes and syncs what it did before, so durability and the
    /// result are unchanged. The setting belongs to this connection and ends with it.
    @discardableResult
    package func fitPageCache(toStoreWithin limit: Int) throws(StoreError) -> Int? {
        guard limit > 0 else { return nil }
        do {
            return try withDatabase { db -> Int? in
                let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                let bytes = pages * pageSize
                guard bytes > 0, bytes <= limit else { return nil }
                // Room for the tables a step builds beside the ones it replaces, within the limit.
                let kib = min(limit, bytes + bytes / 4) / 1024
                let current = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
                let currentKiB = current < 0 ? -current : current * pageSize / 1024
                guard kib > currentKiB else { return nil }
                // An integer computed here, not a value from the store: PRAGMA takes no bound parameters.
                try db.execute(sql: "PRAGMA cache_size = -\(kib)")
                return kib
            }
        } catch {
            throw StoreError.from(error, path: path, doing: .sizingPageCache)
        }
    }
}
