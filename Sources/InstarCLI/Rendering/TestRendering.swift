import Foundation
@_spi(Layouts) import Instar
import InstarTesting

/// Renders `instar test`: one line per run for people (details of failures below it), a Markdown table
/// for pull requests and CI summaries; the report's own `Codable` conformance for programs.
enum TestRendering {
    static func header(_ report: MigrationTestReport) -> String {
        let seeded = report.rows.map { ", \($0) rows per entity" } ?? ", fixtures"
        return "instar test: \(report.plan) (\(report.layout) layout) → \(report.target)\(seeded)"
    }

    static func summary(_ report: MigrationTestReport) -> String {
        let failed = report.failures.count
        let skipped = report.skipped.isEmpty ? "" : ", \(report.skipped.count) version(s) skipped"
        return "\(report.runs.count - failed) passed, \(failed) failed\(skipped)"
    }

    static func subject(_ run: MigrationTestRun) -> String {
        run.source == "seeded" ? run.fromVersion : "\(run.source) (\(run.fromVersion))"
    }

    static func text(_ report: MigrationTestReport) -> String {
        var lines = [header(report)]
        for run in report.runs {
            let chain = run.steps.isEmpty ? "no step" : "\(run.steps.count) step(s)"
            lines.append(
                "\(run.passed ? "PASS" : "FAIL")  \(subject(run)): \(chain), \(seconds(run.seconds)), "
                    + "+\(bytes(run.extraBytes)) disk, \(run.rowsBefore.values.reduce(0, +)) rows")
            for check in run.checks where check.status == .failed {
                lines.append("  \(check.kind.rawValue): \(check.message)")
                if let step = check.step { lines.append("    step: \(step)") }
                if let difference = check.difference, !check.message.contains(difference.description) {
                    lines.append("    first differing row: \(difference)")
                }
                lines += check.notes.prefix(8).map { "    note: \($0)" }
            }
            if let kept = run.keptAt { lines.append("  kept: \(kept)") }
        }
        lines += report.skipped.map { "SKIP  \($0.version): \($0.reason)" }
        lines.append(summary(report))
        return lines.joined(separator: "\n")
    }

    static func markdown(_ report: MigrationTestReport) -> String {
        var lines = [
            "## \(header(report))", "",
            "| from | result | steps | rows | seconds | extra disk | first failure |",
            "|---|---|---:|---:|---:|---:|---|",
        ]
        for run in report.runs {
            let failure = run.firstFailure.map { "\($0.kind.rawValue): \($0.message)" } ?? ""
            let cells = [
                subject(run), run.passed ? "pass" : "**FAIL**", String(run.steps.count),
                String(run.rowsBefore.values.reduce(0, +)), String(format: "%.3f", run.seconds), bytes(run.extraBytes),
                failure.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " "),
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines += report.skipped.map { "| \($0.version) | skipped | | | | | \($0.reason) |" }
        lines += ["", summary(report)]
        return lines.joined(separator: "\n")
    }

    static func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }

    static func bytes(_ value: Int64) -> String {
        if value < 1024 { return "\(value) B" }
        if value < 1024 * 1024 { return String(format: "%.1f KiB", Double(value) / 1024) }
        return String(format: "%.1f MiB", Double(value) / 1024 / 1024)
    }
}
