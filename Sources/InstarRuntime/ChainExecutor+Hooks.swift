import Foundation
import GRDB
import InstarPlanner
@_spi(Layouts) import InstarStore

/// The first hook failure inside a store transaction (the store reports it as its own error).
final class HookFailures {
    var first: HookError?
}

/// Running the hooks of a step: inline SQL inside the step's transaction, and the hooks that commit
/// on their own (SQL, batched SQL, Swift, commands), each unit with its journal record.
extension ChainExecutor {
    /// SQL hooks inside the step's transaction; a failure throws a ``HookError``.
    func runInline(_ names: [String], phase: HookPhase, label: String, db: Database) throws {
        for name in names {
            guard case .sql(let statements)? = plan.hooks[name] else { continue }
            do {
                for sql in statements { try db.execute(sql: sql) }
            } catch {
                throw HookError(hook: name, step: label, message: describe(error), underlying: typed(error))
            }
            emit(.hook(name: name, done: 1, total: 1))
        }
    }

    /// An inline hook for the store's transaction: its SQL (for the planner's analysis) and how to run it.
    func inlineHook(_ name: String, phase: HookPhase, label: String, failures: HookFailures) -> InlineHook {
        InlineHook(name: name, statements: StageHooks.statements(of: name, in: plan)) { db in
            do {
                try self.runInline([name], phase: phase, label: label, db: db)
            } catch let error as HookError {
                failures.first = failures.first ?? error
                throw error
            }
        }
    }

    /// Hooks that commit on their own, from the journal's hook index and checkpoint.
    func runSeparate(_ names: [String], phase: HookPhase, label: String, entry: inout JournalEntry) throws
        -> MigrationResult?
    {
        // These hooks commit on their own (and a command or Swift hook works between transactions):
        // the lease must be held and the run recorded before the first of them starts.
        if entry.hook < names.count { try recordStart(entry) }
        while entry.hook < names.count {
            let name = names[entry.hook]
            guard let definition = plan.hooks[name] else {
                throw HookError(hook: name, step: label, message: "the plan does not define it", kind: .notDefined)
            }
            do {
                switch definition {
                case .sql(let statements):
                    let next = entry.pastHook()
                    try commit(next, .hook) { db in
                        for sql in statements { try db.execute(sql: sql) }
                    }
                    entry = next
                    emit(.hook(name: name, done: 1, total: 1))
                case .batchedSQL(let table, let sql, let size):
                    if let paused = try runBatches(name, table: table, sql: sql, size: size, entry: &entry) { return paused }
                case .swift(let registered):
                    if let paused = try runSwift(name, registered: registered, phase: phase, label: label, entry: &entry) {
                        return paused
                    }
                case .command(let arguments):
                    try runCommand(name, arguments: arguments, phase: phase, label: label, entry: &entry)
                }
            } catch let error as HookError {
                throw error
            } catch let error as LeaseError {
                throw error
            } catch {
                throw HookError(hook: name, step: label, message: describe(error), underlying: typed(error))
            }
            if let reason = pauseReason() { return try pause(&entry, reason) }
        }
        return nil
    }

    func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return "SQLite: \(error.message ?? "\(error)")" }
        return "\(error)"
    }

    /// A hook's error as an app can switch on it: SQLite's as a ``StoreError``, the app's own as it is.
    func typed(_ error: any Error) -> any Error {
        if let error = error as? DatabaseError { return StoreError.from(error, path: store.path, doing: .runningHook) }
        return error
    }

    func runBatches(_ name: String, table: String, sql: String, size: Int, entry: inout JournalEntry) throws
        -> MigrationResult?
    {
        let bounds = try store.withDatabase { db in try KeyRanges.bounds(of: table, db) }
        if let (low, high) = bounds {
            let total = KeyRanges.count(low: low, high: high, size: size)
            var resumeAt = KeyRanges.resume(after: entry.checkpoint, low: low, high: high)
            while let start = resumeAt {
                let end = KeyRanges.end(from: start, size: size, high: high)
                let next = entry.checkpointed(String(end))
                try commit(next, .batch) { db in
                    try db.execute(sql: sql, arguments: ["start": start, "end": end])
                }
                entry = next
                emit(.hook(name: name, done: KeyRanges.count(low: low, high: end, size: size), total: total))
                resumeAt = end < high ? end + 1 : nil
                if resumeAt != nil, let reason = pauseReason() { return try pause(&entry, reason) }
            }
        }
        let next = entry.pastHook()
        try commit(next, .hook)
        entry = next
        return nil
    }

    /// Runs a Swift hook in its own transaction (``HookSession``): what it writes commits with its
    /// checkpoints, and the rest with the record that it ran, so it happens exactly once.
    func runSwift(_ name: String, registered: String, phase: HookPhase, label: String, entry: inout JournalEntry)
        throws -> MigrationResult?
    {
        guard let hook = hooks[registered] else {
            throw HookError(missing: [MissingHook(hook: name, step: label, reason: .notRegistered(registered))])
        }
        let session = HookSession(executor: self, entry: entry)
        let context = HookContext(
            step: label, phase: phase, storePath: store.path, stop: stop, deadline: deadline, session: session,
            progress: { done, total in self.emit(.hook(name: name, done: done, total: total)) })
        do {
            switch hook {
            case .sync(let body): try body(context)
            case .async(let body): try AsyncBridge.run(stop: stop) { try await body(context) }
            }
            if let reason = stop.requested {
                // Asked to stop while it ran: it may have returned early, so it is not done. Its writes
                // since its last checkpoint are undone and the next run resumes it from there.
                session.abandon()
                entry = session.entry
                return try pause(&entry, reason)
            }
            let next = session.entry.pastHook()
            try session.finish(next)
            entry = next
        } catch {
            session.abandon()
            entry = session.entry  // the batches it committed stay done: keep their checkpoint in the journal
            throw error
        }
        return nil
    }

    /// The error for a command hook that cannot run here: commands not allowed, or no processes.
    static func commandRefusal(_ name: String, label: String, allowed: Bool) -> HookError? {
        #if os(macOS) || os(Linux) || os(Windows)
            guard !allowed else { return nil }
            return HookError(
                hook: name, step: label,
                message:
                    "it runs an external command, and commands are not allowed in this run (they run outside the step's transaction and must be idempotent); nothing was changed",
                kind: .commandsNotAllowed)
        #else
            // iOS, tvOS, watchOS and visionOS start no processes: an app's hooks are Swift or SQL.
            return HookError(
                hook: name, step: label,
                message: "it runs an external command, and this platform cannot start processes; write it as a Swift or SQL hook",
                kind: .commandsUnsupported)
        #endif
    }

    /// Runs an external program; it may print `instar:checkpoint <token>` and `instar:progress <done>/<total>`.
    /// At least once: after a crash it runs again, told the last checkpoint and that it is resumed.
    func runCommand(_ name: String, arguments: [String], phase: HookPhase, label: String, entry: inout JournalEntry)
        throws
    {
        if let refusal = Self.commandRefusal(name, label: label, allowed: allowCommands) { throw refusal }
        guard let executable = arguments.first else { throw HookError(hook: name, step: label, message: "the command is empty") }
        #if os(macOS) || os(Linux) || os(Windows)
            try runProcess(name, executable: executable, arguments: arguments, phase: phase, label: label, entry: &entry)
        #endif
    }

    #if os(macOS) || os(Linux) || os(Windows)
    private func runProcess(
        _ name: String, executable: String, arguments: [String], phase: HookPhase, label: String, entry: inout JournalEntry
    ) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments.dropFirst()
        process.currentDirectoryURL = URL(fileURLWithPath: plan.file).deletingLastPathComponent()
        var environment = ProcessInfo.processInfo.environment
        environment["INSTAR_STORE"] = store.path
        environment["INSTAR_STEP"] = label
        environment["INSTAR_PHASE"] = phase.rawValue
        environment["INSTAR_HOOK"] = name
        environment["INSTAR_CHECKPOINT"] = entry.checkpoint ?? ""
        environment["INSTAR_RESUMED"] = entry.checkpoint == nil && entry.attempts <= 1 ? "0" : "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var current = entry
        var buffer = Data()
        let handle = output.fileHandleForReading
        func consume(_ line: String) throws {
            if line.hasPrefix("instar:checkpoint ") {
                let next = current.checkpointed(String(line.dropFirst("instar:checkpoint ".count)))
                try commit(next, .batch)
                current = next
            } else if line.hasPrefix("instar:progress ") {
                let parts = line.dropFirst("instar:progress ".count).split(separator: "/")
                if let done = parts.first.flatMap({ Int($0) }) {
                    // A command's numbers are its own: the event an app draws from never has a negative
                    // count, a count past its total, or a total of zero or less.
                    let total = parts.count > 1 ? Int(parts[1]).flatMap { $0 > 0 ? $0 : nil } : nil
                    emit(.hook(name: name, done: min(max(done, 0), total ?? Int.max), total: total))
                }
            } else {
                FileHandle.standardError.write(Data("[\(name)] \(line)\n".utf8))
            }
        }
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: 10) {
                try consume(String(decoding: buffer[..<newline], as: UTF8.self))
                buffer.removeSubrange(...newline)
            }
        }
        if !buffer.isEmpty { try consume(String(decoding: buffer, as: UTF8.self)) }
        process.waitUntilExit()
        entry = current
        guard process.terminationStatus == 0 else {
            var error = HookError(hook: name, step: label, message: "the command exited with status \(process.terminationStatus)")
            error.exitStatus = process.terminationStatus
            throw error
        }
        let next = entry.pastHook()
        try commit(next, .hook)
        entry = next
    }
    #endif
}
