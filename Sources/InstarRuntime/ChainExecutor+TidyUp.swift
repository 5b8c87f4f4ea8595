import Foundation
import GRDB
@_spi(Layouts) import InstarStore

/// Tidying up after the target: deleting the old tables a sliced run retired, and giving back the
/// pages they held.
///
/// A sliced run's swap does not drop the old table, it retires it (``SlicedCopy/retiredName(_:)``):
/// dropping a big table is a long write (SQLite built with `SECURE_DELETE`, as Debian's is, zero-fills
/// every freed page) and the swap has to fit a launch's budget. When the swap commits, the store is at
/// the target version: the run is finished and the app may open the store. What is left is space,
/// which is no reason to keep the app waiting. So it is given back after the finish, within the time
/// left in the call, and again by every later call that finds a retired table (one that finds the
/// store at the target included), as gh-ost leaves its old table for a later drop by default.
///
/// Each unit is a commit of its own that needs no journal: the retired table itself says what is
/// left, so a call killed or stopped anywhere leaves work that the next call finds. On a store with
/// `auto_vacuum = INCREMENTAL` the emptied table stays until the free pages are given back and goes
/// in the last commit, for the same reason. Without a budget, everything is done before the call
/// returns, as before: a retired table dropped in one commit, then the pages.
extension ChainExecutor {
    /// Deletes the retired tables and gives back their pages within the time left; true when nothing
    /// is left. A stop (the budget, a cancel) ends it between units, or interrupts the unit in flight,
    /// which is rolled back: the store is at the target either way.
    @discardableResult
    func tidyUp() throws -> Bool {
        do {
            return try tidyUpRetiredTables()
        } catch where pauseReason() != nil && Self.isInterruption(error) {
            return false
        }
    }

    private func tidyUpRetiredTables() throws -> Bool {
        let (retired, vacuums) = try StoreError.wrapping(path: store.path, doing: .readingRetiredTables) {
            try store.withDatabase { db in
                (try store.retiredTables(db).map { ($0, try store.retiredRowsAtMost($0, db)) }, try Self.readIncrementalVacuum(db))
            }
        }
        guard !retired.isEmpty else { return true }
        var rowsLeft = retired.reduce(0) { $0 &+ $1.1 }
        for (table, rows) in retired {
            var left = rows
            if left > 0, dropFits(rows: left) {
                // All rows at once: a drop frees the table's pages without visiting its rows. On an
                // incremental store the table stays, empty, as the mark that pages are to be given back
                // (`DELETE` without a `WHERE` frees the pages the same way: SQLite's truncate optimisation).
                try tidyCommit { db in
                    try db.execute(sql: vacuums ? "DELETE FROM \(table.sqlQuoted)" : "DROP TABLE \(table.sqlQuoted)")
                }
                rowsLeft -= left
                left = 0
                emit(.reclaiming(rowsLeft: rowsLeft, freePagesLeft: nil))
                if !vacuums { continue }
            }
            while left > 0 {
                if pauseReason() != nil { return false }
                let rows = sliceRows(rate: rates.retire ?? rates.copy)
                let began = Date()
                var deleted = 0
                // The rate of the statement alone, before the commit: the commit's fsyncs cost the same
                // whatever the slice's size, and would make a first small slice look slow.
                try tidyCommit { db in
                    deleted = try store.deleteRetiredSlice(table, rows: rows, db)
                    rates.retire = Self.rate(rates.retire, rows: deleted, since: began)
                }
                // `left` is an upper bound (the rowid span): a short slice means the table is empty.
                let done = deleted < rows ? left : min(left, deleted)
                left -= done
                rowsLeft -= done
                emit(.reclaiming(rowsLeft: rowsLeft, freePagesLeft: nil))
            }
            if vacuums {
                guard try givePagesBack() else { return false }
            }
            try tidyCommit { db in
                try db.execute(sql: "DROP TABLE IF EXISTS \(table.sqlQuoted)")
                if vacuums { try db.execute(sql: "PRAGMA incremental_vacuum") }
            }
        }
        emit(.reclaiming(rowsLeft: 0, freePagesLeft: 0))
        return true
    }

    /// Gives back the store's free pages, a slice per commit sized like a row slice (pages are
    /// moved, then the file is truncated); true when none is left, false when a stop came first.
    func givePagesBack() throws -> Bool {
        while true {
            let free = try store.withDatabase { db in try Self.freePages(db) }
            emit(.reclaiming(rowsLeft: 0, freePagesLeft: free))
            if free == 0 { return true }
            if pauseReason() != nil { return false }
            let pages = sliceRows(rate: rates.page)
            let began = Date()
            try tidyCommit(.reclaim) { db in
                try db.execute(sql: "PRAGMA incremental_vacuum(\(pages))")
                rates.page = Self.rate(rates.page, rows: min(pages, free), since: began)
            }
        }
    }

    /// One unit of tidying up: a commit of its own with no journal record
    /// (``RunCommitter/commitWithoutRecord(_:_:)``).
    private func tidyCommit(_ unit: CommitUnit = .retire, _ work: (Database) throws -> Void) throws {
        try committer.commitWithoutRecord(unit, work)
    }

    /// Whether deleting `rows` retired rows at once fits: always without a budget; with one and
    /// fixed slices (``Slicing/rows(_:)``), when they are no more than a slice; otherwise when twice
    /// the time it is estimated to take is left (a drop frees pages at about twice the rate a copy
    /// writes rows, measured at 1M rows with `secure_delete` on: Measurements.md).
    private func dropFits(rows: Int) -> Bool {
        guard let deadline else { return true }
        if case .rows(let slice) = slicing { return rows <= slice }
        let rate = (rates.retire ?? rates.copy).map { $0 * 2 } ?? 400_000
        return deadline.remaining > 2 * Double(rows) / rate
    }
}
