import Foundation
@_spi(Layouts) import InstarModel
import InstarPlanner
import Testing

/// `instar lint --format json`: a report of findings at their file, line and column, with counts.
@Suite struct LintReportCodableTests {
    let findings = [
        LintFinding(.error, .invalidPlan, "unknown version 'G9'", location: SourceLocation(file: "plan.yaml", line: 2, column: 1), hint: "add it"),
        LintFinding(.warning, .commandHook, "runs a program", location: SourceLocation(file: "plan.yaml")),
    ]

    @Test func reportRoundTrips() throws {
        var report = LintReport(plan: "plan.yaml", findings: findings)
        report.findings[0].value = "G9"
        report.findings[1].entity = "Car"
        report.findings[1].property = "make"
        #expect(try JSONDecoder().decode(LintReport.self, from: JSONEncoder().encode(report)) == report)
        #expect(report.errors == 1 && report.warnings == 1)
    }

    @Test func findingsSpreadTheirLocation() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(LintReport(plan: "p", findings: [findings[0]])), as: UTF8.self)
        #expect(
            text
                == #"{"errors":1,"findings":[{"check":"invalidPlan","column":1,"file":"plan.yaml","hint":"add it","line":2,"message":"unknown version 'G9'","severity":"error"}],"plan":"p","warnings":0}"#
        )
    }

    /// The facts only the planner reads (versions, blocking changes…) are not written: a decoded finding
    /// has none, and encodes to the same JSON.
    @Test func plannerFactsAreNotWritten() throws {
        var finding = findings[0]
        finding.versions = ["G1", "G9"]
        let decoded = try JSONDecoder().decode(LintFinding.self, from: JSONEncoder().encode(finding))
        #expect(decoded.versions.isEmpty && decoded == findings[0])
    }
}
