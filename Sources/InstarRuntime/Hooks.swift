import Foundation
import GRDB
import InstarCompiler
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarSQL

/// What a Swift hook gets: the store, the step, a checkpoint that commits with its work, and helpers
/// to work in batches, report progress and notice cancellation.
///
/// A Swift hook runs outside the step's transaction, and what it writes happens exactly once:
/// - ``write(checkpoint:_:)`` without a checkpoint writes inside a transaction that stays open until
///   the hook returns, and commits together with the journal record saying the hook ran. A hook that
///   throws, is cancelled or is killed leaves nothing of it behind; the next run starts the hook again.
/// - With a checkpoint, everything written so far commits now, with the checkpoint; a later run
///   resumes the hook with ``checkpoint`` set (``batches(of:size:_:)`` does this for every batch).
/// Only effects outside the store (a request to a server) can happen twice: make them idempotent.
///
/// When the run is asked to stop while the hook runs (``isCancelled`` turns true: the task was
/// cancelled, the time budget is spent), the hook may return early or throw (``checkCancellation()``):
/// either way its writes since its last checkpoint are undone, the run pauses, and the next run calls
/// the hook again with ``checkpoint`` set to the last one committed.
///
/// `Sendable`, so an async hook can use it from any task: every database call goes through one lock
/// and the store's single connection, and the engine's thread waits while the hook runs.
public final class HookContext: @unchecked Sendable {
    /// The step, as `"from → to"`.
    public let step: String
    /// `before` (old shape) or `after` (new shape).
    public let phase: HookPhase
    /// The path of the store being migrated (for logs, or to find files next to it).
    public let storePath: String
    /// True when an earlier, interrupted attempt of this hook committed a checkpoint.
    public let isResumed: Bool
    /// The checkpoint committed with the hook's last unit of work (nil at the start).
    public var checkpoint: String? { session.checkpoint }

    let session: HookSession
    let progress: (Int, Int?) -> Void
    /// How many ``batches(of:size:_:)`` calls this run of the hook has made: their order is what tells
    /// one call's checkpoints from another's.
    private let batchCalls = LockedCounter()
    let stop: StopRequest
    let deadline: Deadline?

    init(
        step: String, phase: HookPhase, storePath: String, stop: StopRequest, deadline: Deadline? = nil,
        session: HookSession, progress: @escaping (Int, Int?) -> Void
    ) {
        self.step = step
        self.phase = phase
        self.storePath = storePath
        self.session = session
        self.isResumed = session.checkpoint != nil
        self.stop = stop
        self.deadline = deadline
        self.progress = progress
    }

    /// Runs `body` inside the hook's transaction. With a `checkpoint`, everything the hook wrote so far
    /// commits now, together with the checkpoint; without one, it commits when the hook returns,
    /// together with the record that the hook ran. A throwing `body` undoes only its own writes.
    public func write(checkpoint: String? = nil, _ body: (Database) throws -> Void) throws {
        try session.write(checkpoint: checkpoint, body)
    }

    /// Reads inside the hook's transaction (seeing what the hook wrote but has not committed yet).
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try session.read(body)
    }

    /// Calls `body` for consecutive key ranges of `table` (by rowid), `size` keys each, each range
    /// committed with its checkpoint; resumes after the last committed range. Throws
    /// `CancellationError` when the run is asked to stop before the last range (the run then pauses
    /// there, and the next run resumes with the next range).
    ///
    /// A hook may call it several times (one table after another): each call's checkpoints carry its
    /// place among the hook's calls, so a later call neither resumes at an earlier call's last key
    /// (skipping its own rows) nor does an earlier call redo its table when the hook is resumed.
    public func batches(of table: String, size: Int, _ body: (Database, ClosedRange<Int64>) throws -> Void) throws {
        let call = batchCalls.withLock { calls in
            defer { calls += 1 }
            return calls
        }
        let saved = BatchCheckpoint(checkpoint)
        if let saved, saved.call > call { return }  // an earlier call of this hook, finished before it stopped
        guard let (low, high) = try session.read({ db in try KeyRanges.bounds(of: table, db) }) else { return }
        let size = max(1, size)
        let batches = KeyRanges.count(low: low, high: high, size: size)
        let resumeAfter = saved.flatMap { $0.call == call ? String($0.lastKey) : nil }
        guard var start = KeyRanges.resume(after: resumeAfter, low: low, high: high) else { return }
        while true {
            try checkCancellation()
            let end = KeyRanges.end(from: start, size: size, high: high)
            try write(checkpoint: BatchCheckpoint(call: call, lastKey: end).text) { db in try body(db, start...end) }
            progress(KeyRanges.count(low: low, high: end, size: size), batches)
            if end >= high { return }
            start = end + 1
        }
    }

    /// Reports progress (shown as a bar on a terminal, and sent to the progress stream).
    public func reportProgress(done: Int, total: Int?) { progress(done, total) }

    /// True once the run was asked to stop (task cancelled, time budget spent, signal): finish or undo
    /// the current unit and throw, so that the run pauses at the last checkpoint.
    public var isCancelled: Bool { stop.reason(by: deadline) != nil }

    /// Throws `CancellationError` when ``isCancelled`` is true.
    public func checkCancellation() throws {
        if isCancelled { throw CancellationError() }
    }
}

/// The checkpoint ``HookContext/batches(of:size:_:)`` commits: which of the hook's calls it belongs to
/// and the last key that call finished. The first call's is the bare key (`"6"`), as it always was, so
/// a journal written before calls were numbered resumes the same; a later call's is `"<call>:<key>"`.
package struct BatchCheckpoint: Equatable {
    package var call: Int
    package var lastKey: Int64

    package init(call: Int, lastKey: Int64) {
        self.call = call
        self.lastKey = lastKey
    }

    /// Nil for no checkpoint, or one the hook wrote itself (``HookContext/write(checkpoint:_:)``).
    package init?(_ text: String?) {
        guard let text else { return nil }
        if let key = Int64(text) {
            self.init(call: 0, lastKey: key)
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let call = Int(parts[0]), call > 0, let key = Int64(parts[1]) else { return nil }
        self.init(call: call, lastKey: key)
    }

    package var text: String { call == 0 ? String(lastKey) : "\(call):\(lastKey)" }
}

/// A counter behind a lock: a hook's context is `Sendable`, and an async hook may use it from any task.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func withLock<T>(_ body: (inout Int) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
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
/// cooperative pool while its own thread waits (see `Migrator.register(hook:_:)`).
public typealias AsyncSwiftHook = @Sendable (HookContext) async throws -> Void

/// A hook failed or is missing: which, where, and the underlying error. A failed hook's work was rolled
/// back: the store is at the last committed point, the journal records the error, and migrating again
/// retries from there. A missing hook is found before anything is written.
public struct HookError: InstarError, CustomStringConvertible {
    /// Why the hook failed.
    public enum Kind: Sendable, Hashable {
        /// The hook ran and failed (its error is ``HookError/underlying``, or SQLite's, or the command's exit status).
        case failed
        /// The chain needs hooks that neither the plan nor the app defines (all listed in ``HookError/missing``).
        case notDefined
        /// A command hook, and commands were not allowed for this run (``Migrator/allowCommands``).
        case commandsNotAllowed
        /// A command hook, on a platform that cannot start processes (iOS, tvOS, watchOS, visionOS).
        case commandsUnsupported
    }

    /// The hook's name, as the plan gives it (the first missing one, for ``Kind/notDefined``).
    public var hook: String
    /// The step it failed in, as `"from → to"`.
    public var step: String
    /// What went wrong, in words.
    public var message: String
    /// Why the hook failed.
    public var kind: Kind
    /// The error the hook threw (or SQLite's, as a ``StoreError``), kept as a value to switch on.
    public var underlying: (any Error)?
    /// Every hook the chain needs and cannot find, for ``Kind/notDefined``.
    public var missing: [MissingHook]
    /// A command hook's exit status, when the command ran and exited with a non-zero one.
    public var exitStatus: Int32?
    /// Whether the store is exactly as it was before the run: a fresh run failed before its first
    /// commit, so no journal records the failure and running again starts afresh. Otherwise the
    /// journal records it, and running again resumes at the failed hook.
    public var storeUnchanged = false

    /// Makes the error; a Swift hook may throw one to fail with its own message.
    package init(hook: String, step: String, message: String, kind: Kind = .failed, underlying: (any Error)? = nil) {
        self.hook = hook
        self.step = step
        self.message = message
        self.kind = kind
        self.underlying = underlying
        self.missing = []
    }

    /// The error for hooks the chain needs and cannot find (nothing was written).
    package init(missing: [MissingHook]) {
        let first = missing.first
        self.init(
            hook: first?.hook ?? "", step: first?.step ?? "",
            message: "the chain needs hooks that are not provided:\n  " + missing.map(\.description).joined(separator: "\n  ")
                + "\n  \(missing.count) hook(s) missing; nothing was changed",
            kind: .notDefined)
        self.missing = missing
    }

    public var description: String {
        if kind == .notDefined && !missing.isEmpty { return message }
        // A fresh run that committed nothing leaves no journal: the store is exactly as it was.
        if storeUnchanged { return "hook '\(hook)' failed in step \(step): \(message)\n  the store was not changed" }
        return "hook '\(hook)' failed in step \(step): \(message)\n  the store is at the last committed point; the journal records the error"
    }
}

/// A hook the chain needs and cannot find: named by the plan but not defined, or declared as a Swift
/// hook the app did not register.
public struct MissingHook: Sendable, Hashable, CustomStringConvertible {
    /// Why it cannot be found.
    public enum Reason: Sendable, Hashable {
        /// The plan's stages name it, but its `hooks:` do not define it.
        case notInPlan
        /// The plan declares it as a Swift hook registered under this name, which the app did not register.
        case notRegistered(String)
        /// A mapping step needs it (a custom policy or an expression SQL cannot compute): which hook
        /// the step requires, and why nothing provides it.
        case mapping(MappingHookRequirement, MappingGap)
    }

    /// Why a hook a mapping step requires is not provided, as a value; ``description`` renders it.
    public enum MappingGap: Sendable, Hashable, CustomStringConvertible {
        /// Neither declared in the plan's hooks nor registered on the `Migrator`.
        case notProvided
        /// The plan declares it as the Swift hook of this name, which the app has not registered.
        case swiftHookNotRegistered(String)
        /// The plan declares it as a hook of this kind (batched SQL, a command), which cannot run inside
        /// the step's transaction.
        case cannotRunInTransaction(kind: String)

        public var description: String {
            switch self {
            case .notProvided:
                "neither declared in the plan's hooks nor registered on the Migrator"
            case .swiftHookNotRegistered(let name):
                "the plan declares it as the Swift hook '\(name)', which is not registered (migrator.register(mappingHook: \"\(name)\"))"
            case .cannotRunInTransaction(let kind):
                "a \(kind) hook cannot run inside a mapping step's transaction; declare SQL or a Swift hook"
            }
        }
    }

    /// The hook's name, as the plan or mapping model gives it.
    public var hook: String
    /// The step that needs it, as `"from → to"`.
    public var step: String
    /// Why it cannot be found.
    public var reason: Reason

    /// Makes the record.
    package init(hook: String, step: String, reason: Reason) {
        self.hook = hook
        self.step = step
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .notInPlan: "step \(step): '\(hook)' is named by the stage but not defined in the plan's hooks"
        case .notRegistered(let name): "step \(step): '\(hook)' is the Swift hook '\(name)', which the app has not registered"
        case .mapping(let requirement, let gap): "step \(step): \(requirement): \(gap)"
        }
    }
}
