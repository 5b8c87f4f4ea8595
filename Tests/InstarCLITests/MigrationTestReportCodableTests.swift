import Foundation
import Testing
@testable import InstarTesting

/// `instar test --format json` is the report's own encoding: its values and `passed` beside them
/// (InstarTesting has no test target of its own: the CLI's is the one that links it).
@Suite struct MigrationTestReportCodableTests {
    func report(failing: Bool) -> MigrationTestReport {
        let run = MigrationTestRun(
            source: "seeded", fromVersion: "V1", steps: ["V1 → V2"], rowsBefore: ["Car": 3], rowsAfter: ["Car": failing ? 2 : 3],
            checks: [MigrationCheck(.rows, failing ? .failed : .passed, failing ? "1 row lost" : "rows kept", step: "V1 → V2")],
            seconds: 0.5, extraBytes: 4096, bytesBefore: 8192, bytesAfter: 8192, keptAt: nil)
        return MigrationTestReport(
            plan: "garage", target: "V2", layout: "instar", rows: 3, runs: [run],
            skipped: [.init(version: "V0", reason: "no model", afterTarget: nil)])
    }

    @Test func roundTripsWithPassedBesideTheRuns() throws {
        for failing in [false, true] {
            let report = report(failing: failing)
            let data = try JSONEncoder().encode(report)
            #expect(try JSONDecoder().decode(MigrationTestReport.self, from: data) == report)
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(object.keys.sorted() == ["layout", "passed", "plan", "rows", "runs", "skipped", "target"])
            #expect(object["passed"] as? Bool == !failing)
        }
    }
}
