import Foundation
import GRDB
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore

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
        committer.didCommit(.step)
        entry = committed
    }

    /// Commits a unit of work whose journal record `entry` is known before it runs
    /// (``RunCommitter/commit(_:releasingLease:_:)``).
    func commit(_ entry: JournalEntry, _ unit: CommitUnit, releasingLease: Bool = false, _ body: (Database) throws -> Void = { _ in }) throws {
        try committer.commit(unit, releasingLease: releasingLease) { db in
            try body(db)
            return entry
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
        try committer.seal(record, db, .step)
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
        guard committer.claimPending else { return }
        try commit(entry, .start)
    }

    /// The error for a store another process wrote between this run's reads and its first write.
    static func storeChanged(path: String) -> StoreError {
        StoreError(
            .locked, path: path, reason: .changedBeforeFirstWrite)
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
