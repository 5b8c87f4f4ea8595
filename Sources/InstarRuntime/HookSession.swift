import Foundation
import GRDB
@_spi(Layouts) import InstarStore

/// The transaction of a Swift hook that runs on its own: what makes its writes happen exactly once.
///
/// The hook's writes go into one transaction that opens at its first write and stays open between
/// its calls (the hook may await in between). It commits only together with a journal record: the
/// hook's checkpoint (``HookContext/write(checkpoint:_:)``) or the record that the hook ran
/// (``finish(_:)``). Anything else — the hook throws, the task is cancelled, the process dies — rolls
/// it back, so a hook is never half-applied and never applied twice.
final class HookSession: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private let store: SQLiteStore
    private let committer: RunCommitter
    /// The journal as last committed by this hook.
    private(set) var entry: JournalEntry
    private var isOpen = false

    init(executor: ChainExecutor, entry: JournalEntry) {
        self.store = executor.store
        self.committer = executor.committer
        self.entry = entry
    }

    var checkpoint: String? {
        lock.lock()
        defer { lock.unlock() }
        return entry.checkpoint
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs `body` in a savepoint of the hook's transaction (opened if needed); with a checkpoint,
    /// commits the transaction with it.
    func write(checkpoint: String?, _ body: (Database) throws -> Void) throws {
        try locked {
            try store.withDatabase { db in
                try open(db)
                do {
                    try db.inSavepoint {
                        try body(db)
                        return .commit
                    }
                } catch {
                    // An interrupted statement takes the whole transaction with it.
                    if !db.isInsideTransaction { isOpen = false }
                    throw error
                }
                guard let checkpoint else { return }
                let next = entry.checkpointed(checkpoint)
                try commit(next, db, .batch)
            }
        }
    }

    /// Reads inside the hook's transaction when one is open.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try locked { try store.withDatabase(body) }
    }

    /// The hook returned: what it wrote commits with `next`, the record that it ran.
    func finish(_ next: JournalEntry) throws {
        try locked {
            try store.withDatabase { db in
                try open(db)
                try commit(next, db, .hook)
            }
        }
    }

    /// The hook failed or stopped: its uncommitted writes are undone.
    func abandon() {
        locked {
            guard isOpen else { return }
            try? store.withDatabase { db in
                if db.isInsideTransaction { try db.rollback() }
            }
            isOpen = false
        }
    }

    private func open(_ db: Database) throws {
        if isOpen && db.isInsideTransaction { return }
        try store.beginWriteTransaction(db)
        isOpen = true
    }

    private func commit(_ next: JournalEntry, _ db: Database, _ unit: CommitUnit) throws {
        var next = next
        next.updatedAt = Date()
        do {
            try committer.seal(next, db, unit)
            try db.commit()
        } catch {
            if db.isInsideTransaction { try? db.rollback() }
            isOpen = false
            throw error
        }
        isOpen = false
        entry = next
        committer.didCommit(unit)
    }
}
