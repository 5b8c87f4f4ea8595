@_spi(Layouts) import InstarLayouts
import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore

/// A unit of work as the committer sees it: the failpoints around its commit, and whether it is a
/// record of the run's own state (started, paused, failed, finished) — not interrupted, not progress —
/// or work (a step, a hook, a batch, a slice, a page slice, a tidy-up).
///
/// The failpoint names are the crash matrix's (`Scripts/crash-matrix`): `<name>.before-commit` and
/// `<name>.after-commit`.
struct CommitUnit: Sendable, Hashable {
    /// The failpoint's name.
    let failpoint: String
    /// Whether it only records the run's state.
    let isRecord: Bool

    static let start = CommitUnit(failpoint: "journal.start", isRecord: true)
    static let pause = CommitUnit(failpoint: "journal.pause", isRecord: true)
    static let failure = CommitUnit(failpoint: "journal.failed", isRecord: true)
    static let finish = CommitUnit(failpoint: "journal.finish", isRecord: true)
    /// The finish carried by the commit that moves past the last step's `after` hooks.
    static let finishAfterHooks = CommitUnit(failpoint: "step.done", isRecord: true)
    static let step = CommitUnit(failpoint: "step", isRecord: false)
    static let stepDone = CommitUnit(failpoint: "step.done", isRecord: false)
    static let hook = CommitUnit(failpoint: "hook", isRecord: false)
    static let batch = CommitUnit(failpoint: "batch", isRecord: false)
    static let sliceStart = CommitUnit(failpoint: "slice.start", isRecord: false)
    static let slice = CommitUnit(failpoint: "slice", isRecord: false)
    static let reclaim = CommitUnit(failpoint: "reclaim", isRecord: false)
    static let retire = CommitUnit(failpoint: "retire", isRecord: false)
}

/// The one committer every unit of a run goes through: steps, hooks, batches, slices, page slices,
/// tidy-up, and the records of the run's state.
///
/// It owns what makes a commit safe, so that no unit can forget a part of it:
/// - the transaction: the store's one write opener (``SQLiteStore/inWriteTransaction(setUp:_:)``),
///   `BEGIN IMMEDIATE` on a schema cache refreshed after the lock was taken;
/// - the lease: claimed by the call's first commit, after checking that no other connection wrote
///   since the run read its journal and chain (`PRAGMA data_version`); checked in every later commit,
///   so a run that lost the lease never writes over another run's journal;
/// - the journal record, sealed last in the same transaction (the finished record ends the run and
///   releases the lease with it);
/// - the failpoints just before and after the commit.
///
/// Units that open their transaction elsewhere — a step's schema transaction (the store's
/// ``SQLiteStore/inSchemaTransaction(label:first:setUp:beforeCommit:_:)``, through the same opener)
/// and a Swift hook's transaction that spans its awaits (``HookSession``) — seal and follow up here.
final class RunCommitter {
    let store: SQLiteStore
    let lease: Lease
    /// Whether this call has committed nothing yet: its first write transaction claims the lease and
    /// writes the journal's start record along with its own work.
    private(set) var claimPending = true
    /// `PRAGMA data_version` when the run read the store (``checkUnchanged(_:)``).
    private var dataVersionAtStart: Int?
    /// Whether a statement in flight may be interrupted now: not while a record of the run's state
    /// is written.
    let interruptible = Locked(true)

    init(store: SQLiteStore, lease: Lease) {
        self.store = store
        self.lease = lease
    }

    /// Notes SQLite's count of other connections' commits as the run reads its journal and chain:
    /// the first commit refuses to go on if it moved (``checkUnchanged(_:)``).
    func markRead() throws {
        dataVersionAtStart = try readDataVersion()
    }

    /// Whether another connection committed since ``markRead()``.
    func storeChangedSinceRead() throws -> Bool {
        try readDataVersion() != dataVersionAtStart
    }

    /// Commits `unit`: in one write transaction, the lease is claimed if this call holds nothing yet,
    /// `work` does the unit's writes and returns the journal record that says it is done, and the
    /// record is sealed in. A record that ends the call (a pause, a failure) releases the lease in the
    /// same commit. Returns the record as saved.
    @discardableResult
    func commit(_ unit: CommitUnit, releasingLease: Bool = false, _ work: (Database) throws -> JournalEntry) throws -> JournalEntry {
        if unit.isRecord { interruptible.withLock { $0 = false } }
        defer { if unit.isRecord { interruptible.withLock { $0 = true } } }
        var saved: JournalEntry?
        try store.inWriteTransaction { db in
            try claimIfPending(db)  // refused before any work when another live run holds the store
            var next = try work(db)
            next.updatedAt = Date()
            try seal(next, db, unit, releasingLease: releasingLease)
            saved = next
            return .commit
        }
        didCommit(unit)
        return saved!
    }

    /// Commits a unit that writes no journal record (tidying up after the target: the retired tables
    /// and free pages say what is left). It claims no lease row — a run that tidies before its first
    /// unit must still claim the store with that unit — but refuses to write while another live run
    /// holds the row (one on another host, or of an earlier Instar; on this host the call holds the
    /// store's lock, ``StoreLock``).
    func commitWithoutRecord(_ unit: CommitUnit, _ work: (Database) throws -> Void) throws {
        try store.inWriteTransaction { db in
            if let holder = try Lease.holder(db), holder.token != lease.token, holder.isAlive {
                throw LeaseError(path: store.path, holder: holder)
            }
            try work(db)
            willCommit(unit)
            return .commit
        }
        afterCommit(unit)
    }

    /// The last writes of every unit's transaction: its journal record (the finished record ends the
    /// run: ``saveFinish(_:_:)``), the lease's release when the record ends the call, and the
    /// failpoint just before the commit.
    func seal(_ next: JournalEntry, _ db: Database, _ unit: CommitUnit, releasingLease: Bool = false) throws {
        if next.status == .finished {
            try saveFinish(next, db)
        } else {
            try saveRecord(next, db)
            if releasingLease { try Lease.release(lease, db) }
        }
        willCommit(unit)
    }

    /// What follows every unit's commit that went through ``seal(_:_:_:releasingLease:)``: this call
    /// now holds the store, and the failpoint just after the commit.
    func didCommit(_ unit: CommitUnit) {
        claimPending = false
        afterCommit(unit)
    }

    /// Lets the lease row go (the call is over); the lock file goes after it (``Migrator``).
    func releaseLease() {
        try? store.withDatabase { db in try Lease.release(lease, db) }
    }

    // MARK: Inside the transaction

    private func willCommit(_ unit: CommitUnit) {
        Failpoints.hit("\(unit.failpoint).before-commit")
    }

    private func afterCommit(_ unit: CommitUnit) {
        Failpoints.hit("\(unit.failpoint).after-commit")
    }

    /// Saves the journal record, refreshing the lease, after checking this run still holds it.
    private func saveRecord(_ entry: JournalEntry, _ db: Database) throws {
        try checkHolder(db)
        try Journal.save(entry, db)
        try Lease.write(lease, db)
    }

    /// Ends the run: the finished record and the lease's release commit together, so a run killed
    /// right after leaves no lease behind in a store that then has nothing to do. A layout that keeps
    /// no journal loses both tables.
    private func saveFinish(_ finished: JournalEntry, _ db: Database) throws {
        if store.layout.keepsMigrationJournal {
            try saveRecord(finished, db)
            try Lease.release(lease, db)
        } else {
            try checkHolder(db)
            try db.execute(sql: "DROP TABLE IF EXISTS \(SQLIdentifier.quoted(Journal.table))")
            try db.execute(sql: "DROP TABLE IF EXISTS \(SQLIdentifier.quoted(Lease.table))")
        }
    }

    /// Before this call's first commit, claims the lease: a live other run's lease throws
    /// ``LeaseError`` (the transaction rolls back), a dead one is taken over.
    private func claimIfPending(_ db: Database) throws {
        guard claimPending else { return }
        try checkUnchanged(db)
        if let holder = try Lease.claim(lease, db) { throw LeaseError(path: store.path, holder: holder) }
    }

    /// No other run holds the lease: before this call's first commit a dead holder may be taken over;
    /// after it, any other holder means this run lost it.
    private func checkHolder(_ db: Database) throws {
        if claimPending { try checkUnchanged(db) }
        guard let holder = try Lease.holder(db), holder.token != lease.token else { return }
        if claimPending && !holder.isAlive { return }
        throw LeaseError(path: store.path, holder: holder)
    }

    /// Inside the run's first write transaction: nothing was committed by another connection since the
    /// run read its journal and chain. Going on would work from a stale position (a hook run twice, a
    /// step on a store already past it).
    private func checkUnchanged(_ db: Database) throws {
        guard let seen = dataVersionAtStart, try SQLiteStore.dataVersion(db) != seen else { return }
        throw ChainExecutor.storeChanged(path: store.path)
    }

    private func readDataVersion() throws -> Int? {
        try store.dataVersion()
    }
}
