// The `instar` executable run as a process, found beside the test bundle: for the tests that kill a run
// or give it failpoints. Tests start it by path; no support or non-CLI test target links the CLI.
import Foundation
import InstarTestSupport

/// The `instar` binary next to the test bundle (or `INSTAR_BIN`).
package let instarBinary: URL = {
    if let path = ProcessInfo.processInfo.environment["INSTAR_BIN"] { return URL(fileURLWithPath: path) }
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("instar")
    if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
    var url = URL(fileURLWithPath: CommandLine.arguments[0])
    while url.path != "/" {
        url.deleteLastPathComponent()
        let candidate = url.appendingPathComponent("instar")
        if url.lastPathComponent == "debug" || url.lastPathComponent == "release",
            FileManager.default.isExecutableFile(atPath: candidate.path)
        {
            return candidate
        }
    }
    return packageRoot.appendingPathComponent(".build/debug/instar")
}()

/// A command's JSON output decoded into its `Codable` type (dates as the journal writes them).
package func decodeOutput<Output: Decodable>(_ type: Output.Type, _ stdout: String) throws -> Output {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(type, from: Data(stdout.utf8))
}

/// One member of a command's JSON output decoded into its `Codable` type, for outputs whose library value
/// is encodable only (`status`'s journal, a diff's changes); dates as the journal writes them.
package func decodeMember<Member: Decodable>(_ key: String, as type: Member.Type, _ stdout: String) throws -> Member {
    guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], let member = object[key] else {
        throw DecodingError.keyNotFound(
            AnyKey(key), DecodingError.Context(codingPath: [], debugDescription: "no '\(key)' in \(stdout)"))
    }
    return try decodeOutput(type, String(decoding: JSONSerialization.data(withJSONObject: member, options: [.fragmentsAllowed]), as: UTF8.self))
}

/// A coding key by name, for ``decodeMember(_:as:_:)``'s error.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// An `instar` process in the background, its output going to files (a full pipe cannot block it).
package final class InstarProcess: @unchecked Sendable {
    package struct Result: CustomStringConvertible {
        package var status: Int32
        package var reason: Process.TerminationReason
        package var pid: Int32
        package var stdout: String
        package var stderr: String
        package var timedOut: Bool

        package var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] }

        /// Standard output decoded as the command's JSON output type (`LintReport`, `MigrationTestReport`…).
        package func decoded<Output: Decodable>(_ type: Output.Type) throws -> Output { try decodeOutput(type, stdout) }

        package init(status: Int32, reason: Process.TerminationReason, pid: Int32, stdout: String, stderr: String, timedOut: Bool) {
            (self.status, self.reason, self.pid, self.stdout, self.stderr, self.timedOut) = (status, reason, pid, stdout, stderr, timedOut)
        }

        package var description: String {
            "status \(status) (\(reason == .exit ? "exit" : "signal"))\(timedOut ? " TIMED OUT" : "")\nstdout: \(stdout)\nstderr: \(stderr)"
        }
    }

    package let process = Process()
    package let out: URL
    package let err: URL
    package var pid: Int32 { process.processIdentifier }
    package var isRunning: Bool { process.isRunning }

    package init(_ arguments: [String], environment: [String: String], directory: URL) throws {
        let id = UUID().uuidString
        out = directory.appendingPathComponent("out-\(id).txt")
        err = directory.appendingPathComponent("err-\(id).txt")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        process.executableURL = instarBinary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Waits for the process to end (SIGKILL after `timeout`), then reads its output.
    package func result(timeout: TimeInterval = 0) -> Result {
        let giveUp = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < giveUp { Thread.sleep(forTimeInterval: 0.01) }
        let timedOut = process.isRunning
        if timedOut { kill() }
        if process.isRunning {
            return Result(status: -1, reason: .exit, pid: pid, stdout: read(out), stderr: read(err), timedOut: false)
        }
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, reason: process.terminationReason, pid: pid, stdout: read(out), stderr: read(err),
            timedOut: timedOut)
    }

    package func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private func read(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

    deinit { kill() }
}
