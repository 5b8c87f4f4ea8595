import Dispatch
import Foundation
@_spi(Layouts) import InstarModel

/// What a running migration reports, for progress bars, logs and the Swift API's `AsyncStream`.
public enum ProgressEvent: Sendable, Equatable {
    /// A run starts or resumes; `resumedAt` describes where when resuming.
    case started(run: String, steps: Int, resumedAt: String?)
    /// Step `index` (zero-based) of `of` starts; `to` is where its transaction ends (later than the step's own
    /// target when steps are fused, then `kind` is `fused`). `estimatedRows`: rows it will rewrite (0 when
    /// a resumed run starts in the step's `after` phase).
    case stepStarted(index: Int, of: Int, from: String, to: String, kind: StepKind, estimatedRows: Int)
    /// A hook's progress: done out of total units (batches, rows, or what a command reports). `done` is
    /// never negative nor past `total`; `total` is nil when unknown, never zero or less.
    case hook(name: String, done: Int, total: Int?)
    /// A slice of the current step's sliced rewrite committed (``Slicing``): `copied` of `of` source
    /// rows of the step's rebuilt tables are copied ahead, the last slice into `table`; `secondsLeft`
    /// is the time the rest needs at the rate measured so far (nil before it is known).
    case slice(table: String, copied: Int, of: Int, secondsLeft: Double?)
    /// The store is at the target, and the space a sliced run retired is being given back (``Slicing``):
    /// at most `rowsLeft` rows of the old tables are left to delete, then `freePagesLeft` pages to
    /// return to the file system (nil until the rows are gone, or on a store without incremental
    /// auto-vacuum). The app may open the store meanwhile: a later call goes on with what is left.
    case reclaiming(rowsLeft: Int, freePagesLeft: Int?)
    /// Step `index` (zero-based) of `of` is done and committed, after `seconds` (wall clock).
    case stepFinished(index: Int, of: Int, seconds: Double)
    /// Stopped at a safe point (time budget, cancellation or signal); the journal says where.
    case paused(reason: PauseReason)
    /// The store is at the target after `steps` steps and `seconds` (wall clock) of this call.
    case finished(steps: Int, seconds: Double)

    /// What a transaction that starts runs. The raw values are stable identifiers (logs, `--json`).
    public enum StepKind: String, Sendable {
        /// An inferred step, no app code.
        case lightweight
        /// A step the plan declares, with hooks before and/or after.
        case custom
        /// A step Instar proposed where no chain existed, with the user's hook.
        case synthesized
        /// A Core Data mapping model's step.
        case mapping
        /// Several steps in one transaction (step fusion): `to` is where the last of them ends.
        case fused
    }
}

/// How a migration call ended without an error.
public enum MigrationResult: Sendable, Equatable {
    /// The store is at the target.
    case finished(steps: Int)
    /// Stopped at a safe point; run `migrate` again to continue.
    case paused(PauseReason)
}

/// Why a run stopped at a safe point. The raw values are stable identifiers (for logs and JSON); the
/// ``description`` is the sentence shown to people.
public enum PauseReason: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The run's time budget is spent: checked before each unit of work and while its statements run (a
    /// unit interrupted is rolled back). A budget spent before the first unit commits nothing: the call
    /// made no progress, and calls with the same budget make none while the next unit does not fit in it.
    case timeBudget
    /// SIGINT (Ctrl-C), with ``StopRequest/handleSignals()``.
    case interrupt
    /// SIGTERM, with ``StopRequest/handleSignals()``.
    case terminate
    /// The Swift task running `Migrator.migrate(store:to:timeBudget:progress:)` was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .timeBudget: "the time budget is spent"
        case .interrupt: "interrupted (SIGINT)"
        case .terminate: "terminated (SIGTERM)"
        case .cancelled: "the task was cancelled"
        }
    }
}

/// A request to stop at the next safe point, set by signal handlers, a time budget or the app.
public final class StopRequest: Sendable {
    private struct State {
        var reason: PauseReason?
        var handlers: [UUID: @Sendable () -> Void] = [:]
    }
    private let state = Locked(State())

    /// A request not yet made.
    public init() {}

    /// Asks the run to stop at its next safe point; a statement in flight is interrupted and its
    /// transaction rolled back. The first reason wins; later requests are ignored.
    public func request(_ reason: PauseReason) {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            guard state.reason == nil else { return [] }
            state.reason = reason
            return Array(state.handlers.values)
        }
        // Outside the lock: a handler may ask this request again.
        for action in actions { action() }
    }

    /// The reason asked for, or nil if no stop was requested.
    public var requested: PauseReason? { state.withLock { $0.reason } }

    /// The reason to stop now: a request already made, or `deadline` passed (which then becomes the
    /// request, so every part of a run sees the same answer from then on).
    package func reason(by deadline: Deadline?) -> PauseReason? {
        if let deadline, deadline.hasPassed { request(.timeBudget) }
        return requested
    }

    /// Runs `action` when a stop is requested (at once if one already was), until ``removeHandler(_:)``.
    package func onRequest(_ action: @escaping @Sendable () -> Void) -> UUID {
        let id = UUID()
        let already = state.withLock { state -> Bool in
            if state.reason != nil { return true }
            state.handlers[id] = action
            return false
        }
        if already { action() }
        return id
    }

    /// Forgets a handler added by ``onRequest(_:)``.
    package func removeHandler(_ id: UUID) {
        state.withLock { $0.handlers[id] = nil }
    }

    #if os(macOS) || os(Linux)
    /// Turns SIGINT and SIGTERM into stop requests (the current batch finishes and commits first).
    /// For command-line tools; an app stops a migration through task cancellation or ``request(_:)``.
    public func handleSignals() -> [any DispatchSourceSignal] {
        [(SIGINT, PauseReason.interrupt), (SIGTERM, PauseReason.terminate)].map { signalNumber, reason in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [weak self] in self?.request(reason) }
            source.resume()
            return source
        }
    }
    #endif
}
