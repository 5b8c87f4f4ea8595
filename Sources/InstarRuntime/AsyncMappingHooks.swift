import Foundation
import GRDB
@_spi(Layouts) import InstarStore
import InstarCompiler

/// What an async Swift hook of a mapping step gets: its place in the mapping model, and the step's
/// connection through ``withDatabase(_:)``.
///
/// A mapping step is one transaction on one connection, and a GRDB connection may only be used on the
/// thread that holds it. So the hook's database work is sent to the engine's thread, which runs it
/// inside the step's transaction while the hook's task awaits the result; between those calls the hook
/// may await anything else (a server, another actor). Everything it writes commits with the step, or
/// not at all.
public struct AsyncMappingHookContext: Sendable {
    /// Which hook this is and where it runs: its entity mapping, property and point in the step.
    public let hook: MappingHookRequirement
    /// The step, as `"from → to"`.
    public let step: String
    let engine: EngineThreadJobs
    let connection: ConnectionBox

    /// Runs `body` on the step's connection, inside its transaction, and returns its result.
    public func withDatabase<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let connection = self.connection
            engine.submit { continuation.resume(with: Result { try body(connection.db) }) }
        }
    }
}

/// An async Swift hook of a mapping step, registered with `Migrator.register(mappingHook:_:)`. Its database
/// work, through ``AsyncMappingHookContext/withDatabase(_:)``, commits with the step; throwing rolls it back.
public typealias AsyncMappingSwiftHook = @Sendable (AsyncMappingHookContext) async throws -> Void

/// The step's connection, handed to jobs that only ever run on the thread that owns it.
final class ConnectionBox: @unchecked Sendable {
    let db: Database
    init(_ db: Database) { self.db = db }
}

/// Work sent to the engine's thread by an async hook, run there until the hook's task ends.
final class EngineThreadJobs: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var finished = false

    func submit(_ job: @escaping () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// Runs submitted jobs on the calling thread until ``finish()``.
    func serveUntilFinished() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty && finished {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

extension AsyncMappingHookContext {
    /// Runs `body` as a task while the calling (engine) thread serves its database calls; returns
    /// when the task ends, rethrowing its error.
    static func run(
        _ body: @escaping AsyncMappingSwiftHook, hook: MappingHookRequirement, step: String, db: Database, stop: StopRequest?
    ) throws {
        let engine = EngineThreadJobs()
        let context = AsyncMappingHookContext(hook: hook, step: step, engine: engine, connection: ConnectionBox(db))
        try AsyncBridge.run(stop: stop, { try await body(context) }, serving: engine)
    }
}
