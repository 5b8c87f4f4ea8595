import Foundation
import GRDB
import InstarPlanner
import InstarSQL

/// What a Swift hook gets: the store, the step, a checkpoint that commits with its work, and helpers
/// to work in batches, report progress and notice cancellation.
///
/// A Swift hook runs outside the step's transaction. Whatever it writes through ``write(checkpoint:_:)`` or
/// ``batches(of:size:_:)`` commits together with its checkpoint, so after a crash the hook resumes at
/// the next batch and each batch's effect happens exactly once.
///
/// `Sendable`, so an async hook can use it from any task: its checkpoint and every commit go through
/// one lock (commits are serialised, as they are on the store's single connection anyway), and the
/// engine's thread waits while the hook runs, so the executor state behind `commit` is touched by one
/// thread at a time.
public final class HookContext: @unchecked Sendable {
    /// The step, as `"from → to"`.
    public let step: String
    /// `before` (old shape) or `after` (new shape).
    public let phase: HookPhase
    /// The path of the store being migrated (for logs, or to find files next to it).
    public let storePath: String
    /// True when this hook already ran partly in an earlier, interrupted attempt.
    public let isResumed: Bool
    /// The checkpoint committed with the hook's last unit of work (nil at the start).
    public var checkpoint: String? {
        lock.lock()
        defer { lock.unlock() }
        return committedCheckpoint
    }
    private var committedCheckpoint: String?
    private let lock = NSRecursiveLock()

    let commit: (String?, (Database) throws -> Void) throws -> Void
    let progress: (Int, Int?) -> Void
    let stop: StopRequest
    let deadline: Date?

    init(
        step: String, phase: HookPhase, storePath: String, checkpoint: String?, stop: StopRequest, deadline: Date? = nil,
        commit: @escaping (String?, (Database) throws -> Void) throws -> Void, progress: @escaping (Int, Int?) -> Void
    ) {
        self.step = step
        self.phase = phase
        self.storePath = storePath
        self.committedCheckpoint = checkpoint
        self.isResumed = checkpoint != nil
        self.stop = stop
        self.deadline = deadline
        self.commit = commit
        self.progress = progress
    }

    /// Runs `body` in a transaction that also records `checkpoint`; both commit or neither does.
    public func write(checkpoint: String? = nil, _ body: (Database) throws -> Void) throws {
        lock.lock()
        defer { lock.unlock() }
        try commit(checkpoint, body)
        if let checkpoint { committedCheckpoint = checkpoint }
    }

    /// Calls `body` for consecutive key ranges of `table` (by rowid), `size` keys each, each range in its
    /// own transaction with its checkpoint; resumes after the last committed range.
    public func batches(of table: String, size: Int, _ body: (Database, ClosedRange<Int64>) throws -> Void) throws {
        var bounds: (Int64, Int64)?
        try commit(nil) { db in bounds = try KeyRanges.bounds(of: table, db) }
        guard let (low, high) = bounds else { return }
        let batches = KeyRanges.count(low: low, high: high, size: size)
        guard var start = KeyRanges.resume(after: checkpoint, low: low, high: high) else { return }
        while true {
            if isCancelled { return }
            let end = KeyRanges.end(from: start, size: size, high: high)
            try write(checkpoint: String(end)) { db in try body(db, start...end) }
            progress(KeyRanges.count(low: low, high: end, size: size), batches)
            if end >= high { return }
            start = end + 1
        }
    }

    /// Reports progress (shown as a bar on a terminal, and sent to the progress stream).
    public func reportProgress(done: Int, total: Int?) { progress(done, total) }

    /// True once a stop was requested (signal, time budget): finish the current unit and return.
    public var isCancelled: Bool {
        if let deadline, Date() >= deadline { stop.request(.timeBudget) }
        return stop.requested != nil
    }
}

enum KeyRanges {
    static func bounds(of table: String, _ db: Database) throws -> (Int64, Int64)? {
        let quoted = SQLIdentifier.quoted(table)
        guard let row = try Row.fetchOne(db, sql: "SELECT min(rowid), max(rowid) FROM \(quoted)"),
            let low = row[0] as Int64?, let high = row[1] as Int64?
        else { return nil }
        return (low, high)
    }

    /// Rowids are the store's, anywhere in Int64 (a table may hold both -2^63 and 2^63-1): the span is
    /// computed unsigned, and ranges end at `high` rather than overflowing past it.
    static func count(low: Int64, high: Int64, size: Int) -> Int {
        let whole = UInt64(bitPattern: high &- low) / UInt64(max(1, size))
        return whole >= UInt64(Int.max) ? Int.max : Int(whole) + 1
    }

    /// The last key of the range that starts at `start`: `size` keys on, or `high`.
    static func end(from start: Int64, size: Int, high: Int64) -> Int64 {
        let (end, overflow) = start.addingReportingOverflow(Int64(max(1, size)) - 1)
        return overflow ? high : min(high, end)
    }

    /// Where to resume after the journal's checkpoint (the last key done), or nil when the checkpoint
    /// already reaches `high`; `low` without a checkpoint.
    static func resume(after checkpoint: String?, low: Int64, high: Int64) -> Int64? {
        guard let done = checkpoint.flatMap(Int64.init) else { return low }
        return done >= high ? nil : max(low, done + 1)
    }
}

/// When a plan's hook runs relative to its step's schema change.
public enum HookPhase: String, Sendable {
    /// On the old shape, before the step's transaction.
    case before
    /// On the new shape, after the step's transaction has committed.
    case after
}

/// A Swift hook, registered with `Migrator.register(hook:_:)` under the name the plan gives it. It
/// runs outside the step's transaction; what it writes through its ``HookContext`` commits with its
/// checkpoint. Throwing fails the run at the last committed point.
public typealias SwiftHook = (HookContext) throws -> Void

/// A Swift hook that may await (network, other actors). The engine runs it to completion on the
/// cooperative pool while its own thread waits (see ``Migrator/register(hook:_:)-async``).
public typealias AsyncSwiftHook = @Sendable (HookContext) async throws -> Void

/// A hook failed: which, where, and the underlying error. The step was rolled back: the store is at
/// the last committed point, the journal records the error, and migrating again retries from there.
public struct HookError: Error, Sendable, CustomStringConvertible {
    /// Why the hook failed.
    public enum Kind: Sendable, Hashable {
        /// The hook ran and failed (its error, SQL error or exit status is in the message).
        case failed
        /// The plan names a hook that neither the plan nor the app defines.
        case notDefined
        /// A command hook, and commands were not allowed for this run (``Migrator/allowCommands``).
        case commandsNotAllowed
    }

    /// The hook's name, as the plan gives it.
    public var hook: String
    /// The step it failed in, as `"from → to"`.
    public var step: String
    /// What went wrong: the hook's error, SQLite's message or the command's exit status.
    public var message: String
    /// Why the hook failed.
    public var kind: Kind

    /// Makes the error; a Swift hook may throw one to fail with its own message.
    public init(hook: String, step: String, message: String, kind: Kind = .failed) {
        self.hook = hook
        self.step = step
        self.message = message
        self.kind = kind
    }

    public var description: String {
        "hook '\(hook)' failed in step \(step): \(message)\n  the store is at the last committed point; the journal records the error"
    }
}

