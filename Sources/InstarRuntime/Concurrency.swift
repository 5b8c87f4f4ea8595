import Dispatch
import Foundation
@_spi(Layouts) import InstarModel

/// Fans the events of runs out to every stream made by ``Migrator/progressEvents()``; each stream
/// finishes when the run in progress (or the next one, if none is) ends.
final class ProgressHub: Sendable {
    private let subscribers = Locked<[UUID: AsyncStream<ProgressEvent>.Continuation]>([:])

    func stream() -> AsyncStream<ProgressEvent> {
        let id = UUID()
        // Unbounded buffer: a slow consumer still sees every event.
        let (stream, continuation) = AsyncStream<ProgressEvent>.makeStream()
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    func yield(_ event: ProgressEvent) {
        for continuation in subscribers.current.values { continuation.yield(event) }
    }

    /// The run ended (finished, paused or failed): every stream finishes.
    func finishAll() {
        let ended = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in ended { continuation.finish() }
    }
}

/// Runs async code to completion from synchronous code, blocking the calling thread.
///
/// The engine is synchronous: a step, hook or batch runs inside a store transaction on one thread. An
/// async Swift hook is therefore started as a detached task on the cooperative pool, and the engine's
/// thread waits (on a condition, serving any database calls the task sends it) until it ends. That is
/// safe because the engine never runs on the cooperative pool: the async
/// ``Migrator/migrate(store:to:timeBudget:progress:)`` gives it a thread of its own, so no pool thread
/// is blocked waiting for work that needs a pool thread. (Calling the synchronous `migrate(storeAt:)`
/// from async code with async hooks blocks one pool thread for the run; prefer the async API there.)
enum AsyncBridge {
    /// Runs `body`; a stop requested meanwhile cancels its task, so `Task.isCancelled`, `Task.sleep`
    /// and cancellable awaits inside the hook see it.
    static func run(stop: StopRequest?, _ body: @escaping @Sendable () async throws -> Void) throws {
        try run(stop: stop, body, serving: EngineThreadJobs())
    }

    /// The same, and while it waits the calling thread runs the work `jobs` receives (an async
    /// mapping hook's database calls, which only this thread may make).
    static func run(
        stop: StopRequest?, _ body: @escaping @Sendable () async throws -> Void, serving jobs: EngineThreadJobs
    ) throws {
        let outcome = Locked<Result<Void, any Error>?>(nil)
        let task = Task.detached {
            do {
                try await body()
                outcome.withLock { $0 = .success(()) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            jobs.finish()
        }
        let handler = stop?.onRequest { task.cancel() }
        defer { if let handler { stop?.removeHandler(handler) } }
        jobs.serveUntilFinished()
        try outcome.current?.get()
    }
}
