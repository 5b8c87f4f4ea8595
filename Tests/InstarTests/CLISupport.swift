import Foundation

/// Runs the built `instar` executable, as a user or script would.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String

    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }
}

/// The `instar` binary next to the test bundle (or `INSTAR_BIN`).
let instarBinary: URL = {
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

@discardableResult
func runInstar(_ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil) throws -> CLIResult {
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
    // Read before waiting so a large output cannot fill the pipe and block the child.
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CLIResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}
