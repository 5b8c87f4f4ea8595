import Foundation
import GRDB
import InstarSQL
import InstarStore

/// How few commits a run makes, and why each remaining one exists.
///
/// Every commit is an fsync (two in rollback-journal mode), so a run shares them as far as the
/// journal's guarantee allows: whatever a unit of work commits, its journal record commits with it.
///
/// - A fresh run of steps without separately committed hooks (one step, or a fused segment): **one**
///   commit. The step's transaction claims the lease (read inside its `BEGIN IMMEDIATE`: a live other
///   run's lease refuses it), writes the journal's record, and, being the last unit, writes the
///   finished record and releases the lease (or, for a layout that keeps no journal, drops the
///   journal and lease tables). A run killed before that commit left the store exactly as it was.
/// - A chain of several transactions (mapping steps, steps split by hooks): one commit per
///   transaction; each moves the journal to the next step, the last finishes the run.
/// - A step with hooks that commit on their own (SQL, batched SQL, Swift, command hooks): one commit
///   per hook, batch or checkpoint. When such a hook is the run's first unit, one commit before it
///   claims the lease and records the start (``recordStart(_:)``: the hook works between
///   transactions and must find the store held, and a command killed mid-way must be told it is
///   resumed); otherwise the step before it has claimed it. After `after` hooks, one commit moves to
///   the next step (`step.done`); after the last step's, that commit also finishes the run: e.g. a
///   Swift `after` hook makes 3 commits in all (step, hook, finish), a Swift `before` hook 3 (start,
///   hook, step).
/// - A pause, a failure: one commit for the record, which also releases the lease (none for a fresh
///   run that committed nothing).
/// - Nothing to do: no write at all (``Migrator`` decides on a read-only connection).
extension ChainExecutor {
    /// Runs one schema transaction (a step, a fused segment, a mapping step) whose journal record `next`
    /// commits with it, after every hook; a failed hook is reported as that hook's error, not as the
    /// rollback it caused. As the call's first write it also claims the lease; when `next` moves past
    /// the step it carries the step's timing, and when it is the finished record it ends the run
    /// (``saveFinish(_:_:)``).
    func commitSchemaTransaction(
        _ entry: inout JournalEntry, next: JournalEntry, failures: HookFailures,
        _ body: (_ beforeCommit: @escaping (Database) throws -> Void, _ onStatement: @escaping (Int) -> Void) throws -> Void
    ) throws {
        var committed = next
        do {
            try body({ db in committed = try self.saveStepRecord(next, db) }, { _ in Failpoints.hit("step.statement") })
        } catch {
            if let failure = failures.first { throw failure }
            // Another live run holds the store (the store wraps what its transaction threw).
            if let wrapped = error as? StoreError, let lease = wrapped.underlying as? LeaseError { throw lease }
            throw error
        }
        didCommit(failpoint: "step", progress: true)
        entry = committed
    }

    /// Saves the journal record inside the caller's transaction, refreshing the lease, after checking
    /// this run still holds it: a run that lost its lease never writes over another run's journal.
    func saveRecord(_ entry: JournalEntry, _ db: Database) throws {
        try checkHolder(db)
        try Journal.save(entry, db)
        try Lease.write(lease, db)
    }

    /// The one commit skeleton every unit of work goes through (a hook, a batch, a slice, a record of
    /// the run's own state): in one immediate write transaction, the lease is claimed if this call
    /// holds nothing yet, `work` does the unit's writes and returns the journal record that says it
    /// is done, and the record is sealed in (``seal(_:_:failpoint:releasingLease:)``). The step's own
    /// transaction (``commitSchemaTransaction(_:next:failures:_:)``) and a Swift hook's
    /// (``HookSession``) open their transactions differently but seal and follow up the same way.
    ///
    /// A record of the run's own state (`recordOnly`: started, paused, failed, finished) is not
    /// interrupted and is not progress. A record that ends the call (a pause, a failure) releases
    /// the lease in the same commit. Returns the record as saved.
    @discardableResult
    func commitUnit(
        failpoint: String, releasingLease: Bool = false, recordOnly: Bool? = nil, _ work: (Database) throws -> JournalEntry
    ) throws -> JournalEntry {
        let isRecord = recordOnly ?? failpoint.hasPrefix("journal.")
        if isRecord { interruptible.withLock { $0 = false } }
        defer { if isRecord { interruptible.withLock { $0 = true } } }
        var saved: JournalEntry?
        try store.withDatabase { db in
            try db.inTransaction(.immediate) {
                try claimIfPending(db)  // refused before any work when another live run holds the store
                var next = try work(db)
                next.updatedAt = Date()
                try seal(next, db, failpoint: failpoint, releasingLease: releasingLease)
                saved = next
                return .commit
            }
        }
        didCommit(failpoint: failpoint, progress: !isRecord)
        return saved!
    }

    /// ``commitUnit(failpoint:releasingLease:recordOnly:_:)`` for work whose record is known before it runs.
    func commit(
        _ entry: JournalEntry, failpoint: String, releasingLease: Bool = false, recordOnly: Bool? = nil,
        _ body: (Database) throws -> Void = { _ in }
    ) throws {
        try commitUnit(failpoint: failpoint, releasingLease: releasingLease, recordOnly: recordOnly) { db in
            try body(db)
            return entry
        }
    }

    /// The last writes of every unit's transaction: its journal record (the finished record ends the
    /// run: ``saveFinish(_:_:)``), the lease's release when the record ends the call, and the
    /// failpoint just before the commit.
    func seal(_ next: JournalEntry, _ db: Database, failpoint: String, releasingLease: Bool = false) throws {
        if next.status == .finished {
            try saveFinish(next, db)
        } else {
            try saveRecord(next, db)
            if releasingLease { try Lease.release(lease, db) }
        }
        willCommit(failpoint: failpoint)
    }

    /// The failpoint of every unit just before its commit (a journal record's or a tidy-up's).
    func willCommit(failpoint: String) {
        Failpoints.hit("\(failpoint).before-commit")
    }

    /// What follows every unit's commit: this call now holds the store, the failpoint just after the
    /// commit, and (unless it only recorded the run's state) progress was made.
    func didCommit(failpoint: String, progress: Bool) {
        claimPending = false
        afterCommit(failpoint: failpoint, progress: progress)
    }

    /// The failpoint of every unit just after its commit, and the progress it made. A tidy-up's
    /// commit (``tidyUp()``) claims nothing, so it comes here without ``didCommit(failpoint:progress:)``.
    func afterCommit(failpoint: String, progress: Bool) {
        Failpoints.hit("\(failpoint).after-commit")
        if progress { progressMade = true }
    }

    /// Before this call's first commit, claims the lease inside the caller's write transaction: a live
    /// other run's lease throws ``LeaseError`` (the transaction rolls back), a dead one is taken over.
    func claimIfPending(_ db: Database) throws {
        guard claimPending else { return }
        try checkUnchanged(db)
        if let holder = try Lease.claim(lease, db) { throw LeaseError(path: store.path, holder: holder) }
    }

    /// Checks inside a write transaction that no other run holds the lease: before this call's first
    /// commit a dead holder may be taken over; after it, any other holder means this run lost it.
    func checkHolder(_ db: Database) throws {
        if claimPending { try checkUnchanged(db) }
        guard let holder = try Lease.holder(db), holder.token != lease.token else { return }
        if claimPending && !holder.isAlive { return }
        throw LeaseError(path: store.path, holder: holder)
    }

    /// Ends the run inside the caller's transaction: the finished record and the lease's release
    /// commit together, so a run killed right after leaves no lease behind in a store that then has
    /// nothing to do (and so is not written). A layout that keeps no journal loses both tables.
    func saveFinish(_ finished: JournalEntry, _ db: Database) throws {
        if store.layout.keepsMigrationJournal {
            try saveRecord(finished, db)
            try Lease.release(lease, db)
        } else {
            try checkHolder(db)
            try db.execute(sql: "DROP TABLE IF EXISTS \(SQLIdentifier.quoted(Journal.table))")
            try db.execute(sql: "DROP TABLE IF EXISTS \(SQLIdentifier.quoted(Lease.table))")
        }
    }

    /// What a schema transaction saves last, before it commits: `next`, with the step's timing when it
    /// moves past the step; the finished record ends the run. Returns the record as saved.
    func saveStepRecord(_ next: JournalEntry, _ db: Database) throws -> JournalEntry {
        var record = next
        if record.phase == .before || record.status == .finished, let timing = stepTiming {
            record.timings[timing.label, default: 0] += Date().timeIntervalSince(timing.start)
        }
        // Pages the steps freed go back to the file system before the run ends (``reclaimThenFinish(_:)``),
        // unless the step retired tables: the run ends at the target and they go after (``tidyUp()``).
        if record.status == .finished, incrementalVacuum, try Self.freePages(db) > 0, try store.retiredTables(db).isEmpty {
            record.status = .running
        }
        try seal(record, db, failpoint: "step")
        return record
    }

    /// The record a step's transaction commits, from `after` (the `after` phase of its last step): a
    /// step without separately committed `after` hooks moves on to the next step in the same
    /// commit, and the chain's last one finishes the run there.
    func recordAfterSchema(_ after: JournalEntry) -> JournalEntry {
        let record = after.chain[after.step]
        guard StageHooks(plan: plan, from: record.from, to: record.to).afterSeparate.isEmpty else { return after }
        var next = after.nextStep()
        if next.step >= next.chain.count { next.status = .finished }
        return next
    }

    /// Before hooks that commit on their own: claims the lease and records the run's start in a commit
    /// of its own, unless this call committed already.
    func recordStart(_ entry: JournalEntry) throws {
        guard claimPending else { return }
        try commit(entry, failpoint: "journal.start")
    }

    /// SQLite's count of other connections' commits on this connection, read when the run reads its
    /// journal and chain (``run(start:)``).
    func readDataVersion() throws -> Int? {
        try store.withDatabase { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
    }

    /// Inside the run's first write transaction: nothing was committed by another connection since the
    /// run read its journal and chain. The claim comes after those reads, so another run may have
    /// finished or moved the journal in between; going on would work from a stale position (a hook
    /// run twice, a step on a store already past it).
    func checkUnchanged(_ db: Database) throws {
        guard let seen = dataVersionAtStart, try Int.fetchOne(db, sql: "PRAGMA data_version") != seen else { return }
        throw Self.storeChanged(path: store.path)
    }

    /// The error for a store another process wrote between this run's reads and its first write.
    static func storeChanged(path: String) -> StoreError {
        StoreError(
            .locked, path: path,
            "another connection (perhaps another migration) changed the store before this run's first write; nothing was changed",
            hint: "run again (or pass a wait): the next run reads the store as it is now")
    }

    /// Whether `error` says another writer had the store before this call wrote anything: a live
    /// lease, or the write lock held past the busy timeout (another run's first transaction carries
    /// its claim, so its lease cannot be read until it commits), or a commit of another connection
    /// since the run read the store (seen as schema drift when the step's transaction begins).
    static func isClaimContention(_ error: any Error) -> Bool {
        if error is LeaseError { return true }
        if let store = error as? StoreError, let underlying = store.underlying, underlying is LeaseError || underlying is StoreError {
            return isClaimContention(underlying)
        }
        if let store = error as? StoreError { return store.kind == .locked }
        if let database = error as? DatabaseError { return [.SQLITE_BUSY, .SQLITE_LOCKED].contains(database.resultCode) }
        return false
    }
}
