import Foundation
import Testing
import InstarTestSupport
import InstarStoreTestSupport
@testable import InstarCLI

/// Commands run inside the test process keep their output apart: each call's console is its own,
/// even when many run at once, and usage errors and exit codes come out as a process's would.
@Suite struct InProcessCLITests {
    @Test func parallelCommandsNeverMixTheirOutput() async throws {
        let models = ["v1.yaml", "v2.yaml", "v3.yaml"].map { packageRoot.appendingPathComponent("Plans/garage/models/\($0)").path }
        let results = await withTaskGroup(of: (Int, InstarCommand.InProcessResult).self) { group in
            for index in 0..<24 {
                group.addTask { (index, InstarCommand.runInProcess(["model", "hashes", models[index % 3], "--format", "json"])) }
            }
            var all: [(Int, InstarCommand.InProcessResult)] = []
            for await result in group { all.append(result) }
            return all
        }
        let alone = models.map { InstarCommand.runInProcess(["model", "hashes", $0, "--format", "json"]).stdout }
        #expect(Set(alone).count == 3, "the three versions hash differently")
        for (index, result) in results {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == alone[index % 3], "call \(index) got another call's output")
        }
    }

    @Test func usageErrorsAndExitCodesAreAProcesssOwn() throws {
        for arguments in [["plan", "--no-such-flag"], ["model", "hashes"], ["export", "--model", "x"]] {
            let inside = InstarCommand.runInProcess(arguments)
            let process = try runInstarProcess(arguments)
            #expect(inside.status == 64 && inside.status == process.status, "\(arguments)")
            #expect(inside.stderr == process.stderr && inside.stdout == process.stdout, "\(arguments)")
        }
        let missing = InstarCommand.runInProcess(["inspect", "--store", "/nonexistent/instar/store.sqlite"])
        #expect(missing.status == 66, "\(missing.stderr)")  // its words: the golden transcript cli/refusals.txt
        // --help is a clean exit with the text on standard output (the text: golden cli/help-*.txt).
        let help = InstarCommand.runInProcess(["export", "--help"], columns: 100)
        #expect(help.status == 0 && help.stderr.isEmpty)
        #expect(help.stdout == InstarCommand.helpMessage(for: ExportCommand.self, columns: 100) + "\n")
    }
}
