import Foundation
import Testing
@_spi(Layouts) import Instar
import InstarTestSupport
import InstarStoreTestSupport
import InstarRuntimeTestSupport
@testable import InstarCLI

/// Runs the built `instar` executable, as a user or script would.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String

    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }

    /// Standard output decoded as the command's JSON output type (`LintReport`, `MigrationTestReport`…).
    func decoded<Output: Decodable>(_ type: Output.Type) throws -> Output { try decodeOutput(type, stdout) }

    /// The JSON output's member at `path`: object keys (`String`) and array indexes (`Int`), for outputs
    /// whose library value is encodable only (a dry run, a diff).
    func member(_ path: Any...) -> Any? {
        path.reduce(json as Any?) { value, step in
            switch step {
            case let key as String: (value as? [String: Any])?[key]
            case let index as Int: (value as? [Any]).flatMap { $0.indices.contains(index) ? $0[index] : nil }
            default: nil
            }
        }
    }

    /// The member at `path`, decoded as `type` (a ``Change``, a ``NoChain/Gap``…).
    func member<Member: Decodable>(_ path: Any..., as type: Member.Type) throws -> Member {
        let value = try #require(path.reduce(json as Any?) { value, step in
            if let key = step as? String { return (value as? [String: Any])?[key] }
            if let index = step as? Int, let array = value as? [Any], array.indices.contains(index) { return array[index] }
            return nil
        }, "no \(path) in \(stdout)")
        return try JSONDecoder().decode(type, from: JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]))
    }

    /// The events `migrate --progress json` printed (see ``progressEvents(_:)``).
    var progressEvents: [ProgressEvent] { InstarCLITests.progressEvents(stdout) }
}

/// The events of `migrate --progress json`: one JSON object a line of standard output (the lines of
/// text a run ends with are skipped). A run with nothing to do reports none.
func progressEvents(_ stdout: String) -> [ProgressEvent] {
    stdout.split(separator: "\n").filter { $0.first == "{" }.compactMap { try? decodeOutput(ProgressEvent.self, String($0)) }
}

/// What the tests ask of a progress event without spelling out its case.
extension ProgressEvent {
    /// Where a `started` event says the run resumes.
    var resumedAt: String? { if case .started(_, _, let at) = self { at } else { nil } }
    /// Where a `stepStarted` event's transaction ends.
    var stepTarget: String? { if case .stepStarted(_, _, _, let to, _, _) = self { to } else { nil } }
    /// True for the `finished` event.
    var isFinished: Bool { if case .finished = self { true } else { false } }
}

@discardableResult
func runInstar(_ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil) throws -> CLIResult {
    if environment.isEmpty, currentDirectory == nil, let command = arguments.first, inProcessCommands.contains(command) {
        let result = InstarCommand.runInProcess(arguments)
        return CLIResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
    return try runInstarProcess(arguments, environment: environment, currentDirectory: currentDirectory)
}

/// Commands a test runs inside its own process (`InstarCommand.runInProcess`): their output is
/// captured per call, so tests run them in parallel; `migrate` in-process leaves the test process's
/// signals alone. A call with an environment (failpoints) or a working folder of its own runs as a
/// process, as do the tests that signal or kill a run: those are about what a process does.
let inProcessCommands: Set<String> = [
    "model", "diff", "inspect", "plan", "graph", "lint", "mapping", "export", "store", "status", "restore", "test", "migrate",
]

/// Runs any command in this process, `migrate` included, for a call that ends before a migration runs (a
/// bad command line, a dry run, a refusal while the plan is made) and of which a test checks only the
/// status and output. A `migrate` that runs a plan installs signal handlers: run those with ``runInstar(_:environment:currentDirectory:)``.
func runInstarInProcess(_ arguments: [String]) -> CLIResult {
    let result = InstarCommand.runInProcess(arguments)
    return CLIResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
}

/// Runs the `instar` binary as a process, as a script would.
func runInstarProcess(_ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil) throws -> CLIResult {
    let process = Process()
    process.executableURL = instarBinary
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let (outData, errData) = readBoth(out, err)
    process.waitUntilExit()
    return CLIResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}

/// Fills a store of an example plan as its README does: with the plan's `sample-data.py` where the
/// hooks need particular values, else with `instar store seed --rows <rows>` (plus `seedArguments`).
@discardableResult
func fillExampleStore(_ folder: URL, store: String, rows: Int, seedArguments: [String] = []) throws -> CLIResult {
    let script = folder.appendingPathComponent("sample-data.py")
    guard FileManager.default.fileExists(atPath: script.path) else {
        return try runInstar(["store", "seed", store, "--rows", String(rows)] + seedArguments)
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path, store, String(rows)]
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let (outData, errData) = readBoth(out, err)
    process.waitUntilExit()
    return CLIResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}

/// Reads a child's standard output and error to their ends at once: reading one to its end first
/// deadlocks once the child fills the other pipe's buffer (64 KiB on Linux) and blocks.
func readBoth(_ out: Pipe, _ err: Pipe) -> (Data, Data) {
    let errData = Locked(Data())
    let done = DispatchSemaphore(value: 0)
    let errHandle = err.fileHandleForReading
    Thread {
        let data = errHandle.readDataToEndOfFile()
        errData.withLock { $0 = data }
        done.signal()
    }.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    done.wait()
    return (outData, errData.current)
}

extension RuntimeFixture {
    /// A ``RuntimeFixture`` whose `instar` runs the commands ``inProcessCommands`` names in this process (the
    /// rest, and any call with an environment, as a process): the CLI's tests of the runtime.
    static func cli(rows: Int = 6, v2Label: String = "string?", stage: String, hooks: String) throws -> RuntimeFixture {
        var fixture = try RuntimeFixture(rows: rows, v2Label: v2Label, stage: stage, hooks: hooks)
        fixture.inProcess = { arguments in
            guard let command = arguments.first, inProcessCommands.contains(command) else { return nil }
            let result = InstarCommand.runInProcess(arguments)
            return InstarProcess.Result(
                status: result.status, reason: .exit, pid: getpid(), stdout: result.stdout, stderr: result.stderr, timedOut: false)
        }
        return fixture
    }
}

/// A lint finding's location as `lint --format json` spreads it, for tests that read decoded output.
extension LintFinding {
    var file: String { location.file }
    var line: Int? { location.line }
    var column: Int? { location.column }
}
