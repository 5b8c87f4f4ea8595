import Foundation
import GRDB
@_spi(Layouts) import InstarStore

/// Giving back the disk a run freed, where the store allows it.
///
/// A rebuilt table leaves the old table's pages free inside the file: a 49.6 MB Core Data store was
/// 73.8 MB after its migration, a third of its pages free. Core Data creates its stores with
/// `auto_vacuum = INCREMENTAL`, which lets `PRAGMA incremental_vacuum(N)` truncate the file by N free
/// pages at a time, in an ordinary write transaction. The run does that before it ends, a slice of
/// pages per commit, sized like a slice of rows from the rate measured (each with the journal record,
/// so a budget, a cancel or a kill keeps the slices done and the next call continues), the last
/// slice carrying the finished record: a run that freed
/// nothing, or little, makes no extra commit. (A sliced run's retired tables and their pages go after
/// the finish instead: ``tidyUp()``.) A store without incremental auto-vacuum keeps its free
/// pages (SQLite reuses them); only a full `VACUUM`, which rewrites the whole file outside any
/// transaction, would shrink it, and the dry run says so.
extension ChainExecutor {
    /// Whether the store gives free pages back (`auto_vacuum = INCREMENTAL`), read when the run
    /// reads the store (``run(start:)``).
    static func readIncrementalVacuum(_ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") == 2
    }

    /// The store's free pages.
    static func freePages(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
    }

    /// Truncates the file by its free pages, a slice per commit, then ends the run in the last one;
    /// returns the pause when a stop comes first.
    func reclaimThenFinish(_ entry: inout JournalEntry) throws -> MigrationResult? {
        while entry.status != .finished {
            if let reason = pauseReason() { return try pause(&entry, reason) }
            let pages = sliceRows(rate: rates.page)
            let began = Date()
            entry = try committer.commit(.reclaim) { [entry] db in
                let free = try Self.freePages(db)
                try db.execute(sql: "PRAGMA incremental_vacuum(\(pages))")
                var next = entry
                if try Self.freePages(db) == 0 { next.status = .finished }
                rates.page = Self.rate(rates.page, rows: min(pages, free), since: began)
                return next
            }
        }
        return nil
    }
}
