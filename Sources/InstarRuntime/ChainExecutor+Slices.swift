import Foundation
import GRDB
import InstarCompiler
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore

/// Sliced rewrites: the rows of the tables a step rebuilds are copied ahead of the step's
/// transaction, slice by slice, each slice committed with its cursor in the journal.
///
/// A launch that runs out of time keeps its slices; the next continues at the journal's cursor, so a
/// rewrite longer than any launch finishes in as many launches as it needs. The step's transaction
/// then takes the staging tables instead of copying (after copying again the rows the app wrote
/// meanwhile, which triggers recorded), and does the rest as before: drop, rename, indexes,
/// metadata, checks. Its result is the unsliced run's (``SlicedCopy`` says when that holds and which
/// tables are therefore never sliced).
extension ChainExecutor {
    /// What copying ahead left: the copies for the step's transaction to take, or a pause.
    enum SliceOutcome {
        case copied([SlicedCopy])
        case paused(MigrationResult)
    }

    /// Copies the rows of the transaction through `versions` ahead in slices when slicing applies
    /// (``Slicing``) or a sliced copy is under way; returns the copies, all done, or the pause.
    func copyAhead(_ entry: inout JournalEntry, versions: [Model], hooks: [Int: [InlineHook]], reach: Int) throws
        -> SliceOutcome
    {
        guard entry.slices != nil || shouldSlice(entry, reach: reach) else { return .copied([]) }
        let copies = try store.sliceableCopies(through: versions, fuse: fuse, hooks: hooks)
        let under = entry.slices.map { progress in
            progress.tables.map { [$0.target, $0.source, $0.staging] } == copies.map { [$0.target, $0.source, $0.staging] }
        }
        if under != true {
            guard !copies.isEmpty || entry.slices != nil else { return .copied([]) }
            try startCopies(&entry, copies)
        }
        for (index, copy) in copies.enumerated() {
            while let from = entry.slices?.tables[index].next {
                if let reason = pauseReason() { return .paused(try pause(&entry, reason)) }
                try copySlice(&entry, index: index, copy: copy, from: from)
            }
        }
        return .copied(copies)
    }

    /// Whether this step's rewrite is sliced: always with ``Slicing/seconds(_:)`` or ``Slicing/rows(_:)``;
    /// with ``Slicing/automatic(minimumRows:)`` when the run has a time budget and the step rewrites
    /// that many rows or more.
    private func shouldSlice(_ entry: JournalEntry, reach: Int) -> Bool {
        switch slicing {
        case .off: false
        case .seconds, .rows: true
        case .automatic(let minimumRows): deadline != nil && estimatedRows(entry, through: reach) >= minimumRows
        }
    }

    /// Starts the copies (or starts them again, when the step's copies are not those the journal
    /// recorded): staging tables and change capture, with the record, in one commit. Staging tables of
    /// an earlier attempt go first.
    private func startCopies(_ entry: inout JournalEntry, _ copies: [SlicedCopy]) throws {
        let totals = try StoreError.wrapping(path: store.path, doing: .countingRowsToCopy) {
            try store.withDatabase { db in try copies.map { try store.sourceRows(of: $0, db) } }
        }
        var started = entry
        started.slices = copies.isEmpty ? nil : SlicedProgress(
            tables: zip(copies, totals).map {
                .init(target: $0.target, source: $0.source, staging: $0.staging, next: Int64.min, rowsCopied: 0, rowsTotal: $1)
            }, rowsPerSecond: nil)
        try commit(started, .sliceStart) { db in
            try store.dropSlicedCopies(db)
            try store.startSlicedCopies(copies, db)
        }
        entry = started
    }

    /// One slice of `copy` from the rowid `from`, committed with the journal's new cursor.
    private func copySlice(_ entry: inout JournalEntry, index: Int, copy: SlicedCopy, from: Int64) throws {
        let rows = sliceRows(rate: entry.slices?.rowsPerSecond)
        let began = Date()
        // Left set when the slice throws: the pause reads it (``rateAfterInterruptedSlice(_:)``).
        sliceInFlight = true
        entry = try committer.commit(.slice) { [entry] db in
            var next = entry
            let (end, copied) = try store.copySlice(copy, from: from, rows: rows, db)
            // Fewer rows than asked: the copy reached the end. Rows the app adds later are recorded by
            // the change capture and copied by the step's transaction.
            var table = next.slices!.tables[index]
            table.rowsCopied += copied
            table.next = end.flatMap { copied < rows || $0 == Int64.max ? nil : $0 + 1 }
            // The step's filter may leave rows out: a finished copy counts as all of them.
            if table.next == nil { table.rowsCopied = max(table.rowsCopied, table.rowsTotal) }
            next.slices!.tables[index] = table
            next.slices!.rowsPerSecond = Self.rate(next.slices!.rowsPerSecond, rows: copied, since: began)
            return next
        }
        sliceInFlight = false
        let progress = entry.slices!
        rates.copy = progress.rowsPerSecond
        emit(.slice(table: copy.target, copied: progress.rowsCopied, of: progress.rowsTotal, secondsLeft: progress.secondsLeft))
    }

    /// The rate a launch records when its budget interrupted a slice: a quarter of the one that sized
    /// it. The rate kept in the journal was measured on earlier launches; on a machine now slower (or
    /// loaded) it sizes a first slice that never fits, and without this every launch would try the
    /// same slice again and make no progress.
    static func rateAfterInterruptedSlice(_ rate: Double?) -> Double? {
        rate.map { $0 / 4 }
    }

    /// The rate after a slice of `rows` that began at `began`: the mean of the last rate and this
    /// slice's, so one slow slice (a checkpoint, another process) moves the next sizes only halfway.
    static func rate(_ last: Double?, rows: Int, since began: Date) -> Double? {
        let seconds = Date().timeIntervalSince(began)
        guard rows > 0, seconds > 0 else { return last }
        let measured = Double(rows) / seconds
        return last.map { ($0 + measured) / 2 } ?? measured
    }

    /// Rows for the next slice: fixed with ``Slicing/rows(_:)``; otherwise the measured rate times the
    /// slice's time (a quarter of a second, or ``Slicing/seconds(_:)``, and at most half the budget
    /// left), at least 100; the first slice, before any rate is known, is the floor.
    func sliceRows(rate: Double?) -> Int {
        let floor = 100
        var seconds = 0.25
        switch slicing {
        case .rows(let rows): return max(1, rows)
        case .seconds(let s): seconds = s
        case .automatic, .off: break
        }
        if let deadline { seconds = min(seconds, max(0, deadline.remaining) / 2) }
        guard let rate, rate.isFinite else { return floor }
        return max(floor, Int(min(rate * seconds, Double(Int32.max))))
    }
}
