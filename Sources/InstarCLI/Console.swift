import Foundation
@_spi(Layouts) import Instar

/// Where a command's words go: the process's standard output and error, or, for a command run inside
/// a test (``InstarCommand/runInProcess(_:)``), buffers of its own.
///
/// A task-local, so that commands run in parallel by a test suite never mix their output; code that
/// writes later from another thread (a progress callback) keeps the console it was made under.
final class Console: Sendable {
    /// The console of the command running in this task: the process's own unless a test set one.
    @TaskLocal static var current = Console(capturing: false)

    private let captured: Locked<(out: String, err: String)>?

    /// A console that writes to the process's streams, or (`capturing`) keeps what it is given.
    init(capturing: Bool) {
        captured = capturing ? Locked((out: "", err: "")) : nil
    }

    /// Standard output, exactly as given.
    func writeOut(_ text: String) {
        guard let captured else { return FileHandle.standardOutput.write(Data(text.utf8)) }
        captured.withLock { $0.out += text }
    }

    /// Standard error, exactly as given.
    func writeError(_ text: String) {
        guard let captured else { return FileHandle.standardError.write(Data(text.utf8)) }
        captured.withLock { $0.err += text }
    }

    /// True when output goes to a terminal (never for a captured console).
    /// Whether this console keeps what it is given (a command run in-process) rather than writing it.
    var isCapturing: Bool { captured != nil }

    var isTerminal: Bool { captured == nil && isatty(FileHandle.standardOutput.fileDescriptor) != 0 }

    /// What a capturing console was given so far.
    var output: (out: String, err: String) { captured?.current ?? ("", "") }
}

extension InstarCommand {
    /// What a command run in this process printed and the exit code a process would have returned.
    struct InProcessResult: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Parses `arguments` and runs the command in this process, its output captured, as a process
    /// would (usage errors included: their message goes to standard error with status 64). For tests:
    /// commands that install signal handlers (`migrate`) or read the environment at start belong in a
    /// process of their own. `columns` fixes the width usage errors and `--help` are wrapped to (by
    /// default the terminal's, or `COLUMNS`), for output compared across machines.
    static func runInProcess(_ arguments: [String], columns: Int? = nil) -> InProcessResult {
        let console = Console(capturing: true)
        let status: Int32 = Console.$current.withValue(console) {
            do {
                var command = try parseAsRoot(arguments)
                try command.run()
                return 0
            } catch {
                let code = exitCode(for: error).rawValue
                let message = fullMessage(for: error, columns: columns)
                if !message.isEmpty { (code == 0 ? console.writeOut : console.writeError)(message + "\n") }
                return code
            }
        }
        let output = console.output
        return InProcessResult(status: status, stdout: output.out, stderr: output.err)
    }
}
