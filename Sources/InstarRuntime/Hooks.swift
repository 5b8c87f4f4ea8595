import Foundation
import GRDB
import InstarPlanner

/// What a Swift hook gets: the store's connection inside the step's transaction, and where it runs.
public struct HookContext {
    public let db: Database
    /// The step, as `"from → to"`.
    public let step: String
    /// `before` (old shape) or `after` (new shape).
    public let phase: HookPhase
    public let storePath: String
}

public enum HookPhase: String, Sendable {
    case before
    case after
}

public typealias SwiftHook = (HookContext) throws -> Void

/// A hook failed: which, where, and the underlying error. The step was rolled back.
public struct HookError: Error, CustomStringConvertible {
    public var hook: String
    public var step: String
    public var message: String

    public var description: String { "hook '\(hook)' failed in step \(step): \(message); the step was rolled back" }
}

/// Runs the hooks a plan defines. SQL hooks run inside the step's transaction, so their effect commits
/// exactly once, with the step.
struct HookRunner {
    let plan: Plan
    let swiftHooks: [String: SwiftHook]
    let allowCommands: Bool
    let storePath: String

    func run(_ names: [String], phase: HookPhase, step: String, db: Database) throws {
        for name in names {
            guard let definition = plan.hooks[name] else {
                throw HookError(hook: name, step: step, message: "the plan does not define it")
            }
            do {
                try run(definition, name: name, phase: phase, step: step, db: db)
            } catch let error as HookError {
                throw error
            } catch let error as DatabaseError {
                throw HookError(hook: name, step: step, message: "SQLite: \(error.message ?? "\(error)")")
            } catch {
                throw HookError(hook: name, step: step, message: "\(error)")
            }
        }
    }

    private func run(_ definition: HookDefinition, name: String, phase: HookPhase, step: String, db: Database) throws {
        switch definition {
        case .sql(let statements):
            for sql in statements { try db.execute(sql: sql) }
        case .batchedSQL(let table, let sql, let size):
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            guard let bounds = try Row.fetchOne(db, sql: "SELECT min(rowid), max(rowid) FROM \(quoted)"),
                let low = bounds[0] as Int64?, let high = bounds[1] as Int64?
            else { return }
            var start = low
            while start <= high {
                let end = start + Int64(size) - 1
                try db.execute(sql: sql, arguments: ["start": start, "end": end])
                start = end + 1
            }
        case .command(let arguments):
            guard allowCommands else {
                throw HookError(
                    hook: name, step: step,
                    message: "it runs an external command, which needs --allow-commands (commands run outside the step's transaction and must be idempotent)")
            }
            try runCommand(arguments, name: name, phase: phase, step: step)
        case .swift(let registered):
            guard let hook = swiftHooks[registered] else {
                throw HookError(
                    hook: name, step: step,
                    message: "no Swift hook is registered as '\(registered)'; call migrator.register(hook: \"\(registered)\") { … } before migrating")
            }
            try hook(HookContext(db: db, step: step, phase: phase, storePath: storePath))
        }
    }

    private func runCommand(_ arguments: [String], name: String, phase: HookPhase, step: String) throws {
        guard let executable = arguments.first else {
            throw HookError(hook: name, step: step, message: "the command is empty")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments.dropFirst()
        process.currentDirectoryURL = URL(fileURLWithPath: plan.file).deletingLastPathComponent()
        var environment = ProcessInfo.processInfo.environment
        environment["INSTAR_STORE"] = storePath
        environment["INSTAR_STEP"] = step
        environment["INSTAR_PHASE"] = phase.rawValue
        environment["INSTAR_HOOK"] = name
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            throw HookError(hook: name, step: step, message: "the command exited with status \(process.terminationStatus)")
        }
    }
}
