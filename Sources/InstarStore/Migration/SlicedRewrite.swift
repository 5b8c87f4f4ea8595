import GRDB
import InstarCompiler
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel

/// The store's side of a sliced rewrite (``SlicedCopy``): what to copy ahead, the copy slice by
/// slice inside the runtime's commits, and the staging tables taken by the step's transaction.
///
/// Between slices the store stays at its old version and the app's writes to a source table are
/// recorded by triggers (their rowids, in a side table); the step's transaction copies those rows
/// again before it takes the staging table, so the copy is never stale, whoever wrote meanwhile.
extension SQLiteStore {
    /// The tables the transaction through `versions` rebuilds in its first run of steps and that can
    /// be copied ahead in slices, planned on the store as it is now (reading only).
    package func sliceableCopies(through versions: [Model], fuse: Bool, hooks: [Int: [InlineHook]]) throws(StoreError)
        -> [SlicedCopy]
    {
        do {
            let transaction = try TransactionPlan.make(versions: versions, hooks: hooks, layout: layout, fuse: fuse)
            guard let unit = transaction.firstUnit else { return [] }
            return try withDatabase { db in StepSQLPlanner.sliceable(unit.program, actual: try readSchema(db)) }
        } catch {
            throw StoreError.from(error, path: path, doing: .planningSlicedCopy)
        }
    }

    /// Inside the caller's transaction: creates each staging table and the capture of later changes
    /// to its source.
    package func startSlicedCopies(_ copies: [SlicedCopy], _ db: Database) throws {
        for copy in copies {
            try db.execute(sql: "DROP TABLE IF EXISTS \(copy.staging.sqlQuoted)")
            for sql in copy.dropChangeCaptureSQL { try db.execute(sql: sql) }
            try db.executeSingle(copy.createSQL)
            for sql in copy.changeCaptureSQL { try db.executeSingle(sql) }
        }
    }

    /// The source rows `copy` has to copy in all (those its filter keeps are fewer).
    package func sourceRows(of copy: SlicedCopy, _ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM \(copy.source.sqlQuoted)") ?? 0
    }

    /// Inside the caller's transaction: copies up to `rows` rows from the source rowid `from` on
    /// (inclusive; `Int64.min` for the start). Returns the rowid of the last row copied (nil when none
    /// was left) and how many rows were copied.
    package func copySlice(_ copy: SlicedCopy, from start: Int64, rows: Int, _ db: Database) throws -> (end: Int64?, copied: Int) {
        let arguments = copy.insertArguments.map(\.databaseValue) + [start.databaseValue]
            + copy.filterArguments.map(\.databaseValue) + [rows.databaseValue]
        try db.executeSingle(copy.sliceSQL, arguments: StatementArguments(arguments))
        let copied = db.changesCount
        guard copied > 0 else { return (nil, 0) }
        // The rightmost key of the staging table: the staging rowid is the source rowid.
        return (try Int64.fetchOne(db, sql: "SELECT max(rowid) FROM \(copy.staging.sqlQuoted)"), copied)
    }

    /// Inside the step's transaction, before its first run of steps is planned: each staging table
    /// still as `copies` made it is brought up to date (rows whose source changed since their slice
    /// are copied again) and offered to the planner by its target's name; anything else — a table
    /// the step no longer copies the same way — is dropped and the step copies it itself. The
    /// change capture goes in both cases.
    func takeSlicedCopies(_ copies: [SlicedCopy], unit: TransactionPlan.Unit, _ db: Database) throws -> [String: String] {
        guard !copies.isEmpty else { return [:] }
        let wanted = Set(StepSQLPlanner.sliceable(unit.program, actual: try readSchema(db)))
        var taken: [String: String] = [:]
        for copy in copies {
            let existing = try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [copy.staging])
            if wanted.contains(copy), existing == copy.createSQL {
                try db.execute(sql: copy.forgetChangedSQL)
                let arguments = (copy.insertArguments + copy.filterArguments).map(\.databaseValue)
                try db.executeSingle(copy.recopySQL, arguments: StatementArguments(arguments))
                taken[copy.target] = copy.staging
            } else {
                try db.execute(sql: "DROP TABLE IF EXISTS \(copy.staging.sqlQuoted)")
            }
            for sql in copy.dropChangeCaptureSQL { try db.execute(sql: sql) }
        }
        return taken
    }
}

extension TransactionPlan {
    /// The transaction's first run of steps: the only one that reads the store as it is before the
    /// transaction (hooks at the start aside), and so the only one whose copies can be made ahead.
    var firstUnit: Unit? {
        for part in parts { if case .steps(let unit) = part { return unit } }
        return nil
    }
}

extension SQLiteStore {
    /// Inside the caller's transaction: drops every staging table and change capture of a sliced
    /// copy (an earlier attempt's, when the step's copies changed).
    package func dropSlicedCopies(_ db: Database) throws {
        let objects = try Row.fetchAll(
            db, sql: "SELECT type, name FROM sqlite_master WHERE name LIKE '\\_instar\\_slice\\_%' ESCAPE '\\' AND type IN ('trigger', 'table') ORDER BY type DESC")
        for object in objects {
            let type: String = object["type"]
            let name: String = object["name"]
            try db.execute(sql: "DROP \(type == "trigger" ? "TRIGGER" : "TABLE") IF EXISTS \(name.sqlQuoted)")
        }
    }
}

extension SQLiteStore {
    /// The tables the step's transaction retired (``SlicedCopy/retiredName(_:)``) that still exist.
    package func retiredTables(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ? ORDER BY name",
            arguments: [SlicedCopy.retiredPrefix.count, SlicedCopy.retiredPrefix])
    }

    /// At most how many rows the retired `table` still has: the span of its rowids, read from the
    /// two ends of its b-tree (a count would read every page, a launch's budget on a big table).
    package func retiredRowsAtMost(_ table: String, _ db: Database) throws -> Int {
        let name = table.sqlQuoted
        // Two subqueries: SQLite reads a lone min() or max() from the b-tree's end, but scans the
        // whole table for both in one SELECT.
        let span = try Row.fetchOne(db, sql: "SELECT (SELECT min(rowid) FROM \(name)) AS low, (SELECT max(rowid) FROM \(name)) AS high")
        guard let low: Int64 = span?["low"], let high: Int64 = span?["high"] else { return 0 }
        let (width, overflow) = high.subtractingReportingOverflow(low)
        return overflow || width >= Int64(Int.max) ? Int.max : Int(width) + 1
    }

    /// Inside the caller's transaction: deletes up to `rows` rows of the retired `table`, in rowid
    /// order. Returns the rows deleted: fewer than `rows` when the table is now empty.
    package func deleteRetiredSlice(_ table: String, rows: Int, _ db: Database) throws -> Int {
        let name = table.sqlQuoted
        try db.execute(sql: "DELETE FROM \(name) WHERE rowid IN (SELECT rowid FROM \(name) ORDER BY rowid LIMIT ?)", arguments: [rows])
        return db.changesCount
    }
}
