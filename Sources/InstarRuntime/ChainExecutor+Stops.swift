import Foundation
import GRDB
@_spi(Layouts) import InstarStore

/// How a run holds the store against other runs (the lease) and how it stops when asked: the
/// statement in flight is interrupted, and the executor pauses at the journal's last committed position.
extension ChainExecutor {
    /// Waits until no other live run holds the lease (up to `giveUp`), reading only: the claim itself
    /// is written by the run's first write transaction (``claimIfPending(_:)``), so that it costs no
    /// commit of its own. Throws ``LeaseError`` when the holder is still there at `giveUp`; false when
    /// a stop was requested while waiting.
    func awaitLease(until giveUp: Date) throws -> Bool {
        while true {
            let holder: Lease?
            do {
                holder = try StoreError.wrapping(path: store.path, doing: .readingLease) {
                    try store.withDatabase { db in try Lease.holder(db) }
                }
            } catch let error as StoreError where error.kind == .locked {
                // Another connection writes past the busy timeout: perhaps another run's first
                // transaction, whose claim cannot be read before it commits. Waited for like a lease.
                if Date() >= giveUp { throw error }
                if pauseReason() != nil { return false }
                Thread.sleep(forTimeInterval: min(0.2, max(0.01, giveUp.timeIntervalSinceNow)))
                continue
            }
            guard let holder, holder.token != committer.lease.token, holder.isAlive else { return true }
            if Date() >= giveUp { throw LeaseError(path: store.path, holder: holder) }
            if pauseReason() != nil { return false }
            Thread.sleep(forTimeInterval: min(0.2, max(0.01, giveUp.timeIntervalSinceNow)))
        }
    }

    /// What SQLite asks while a statement runs: a stop was requested, or the time budget is spent.
    var interruptCheck: @Sendable () -> Bool {
        let interruptible = committer.interruptible
        let stop = self.stop
        let deadline = self.deadline
        return {
            interruptible.current && stop.reason(by: deadline) != nil
        }
    }

    /// Whether `error` is what a stop request does to the work in flight: an interrupted statement,
    /// a cancelled task, or a hook that failed with one of those.
    static func isInterruption(_ error: any Error) -> Bool {
        // Written as plain casts: a `switch` over the existential with a recursive `map` crashed the
        // Swift 6.3 optimizer (CopyPropagation ownership verification) in release builds.
        // (StoreError.from gives SQLITE_INTERRUPT the kind `interrupted`, so the kind says it all.)
        if error is CancellationError { return true }
        if let database = error as? DatabaseError { return database.resultCode == .SQLITE_INTERRUPT }
        if let store = error as? StoreError { return store.kind == .interrupted }
        guard let hook = error as? HookError, let underlying = hook.underlying else { return false }
        return isInterruption(underlying)
    }

    /// Why the run must stop now, if it must: a stop request, or the time budget spent (which holds
    /// whether or not this call has made progress: a unit that cannot fit is reported by the dry run).
    func pauseReason() -> PauseReason? { stop.reason(by: deadline) }

    func pause(_ entry: inout JournalEntry, _ reason: PauseReason) throws -> MigrationResult {
        if committer.claimPending && !resumedRun {
            // A fresh run that committed nothing: the store is as it was, and stays unwritten.
            emit(.paused(reason: reason))
            return .paused(reason)
        }
        entry.status = .paused
        try commit(entry, .pause, releasingLease: true)
        emit(.paused(reason: reason))
        return .paused(reason)
    }
}
