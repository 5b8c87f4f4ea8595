@_spi(Layouts) import Instar
import InstarTesting

/// Renders `instar check`: the verdict first (what CI acts on), then the findings at their places,
/// then each store. JSON is the library's ``ReleaseCheckReport`` itself.
enum CheckRendering {
    static func verdict(_ verdict: ReleaseVerdict) -> String {
        switch verdict {
        case .pass: "pass"
        case .willFail: "will fail (exit 3)"
        case .undeclaredChange: "undeclared data loss or meaning change (exit 4)"
        case .cannotDecide: "cannot decide (exit 5)"
        }
    }

    static func text(_ report: ReleaseCheckReport) -> String {
        var lines = ["verdict: \(verdict(report.verdict))", "plan: \(report.plan)" + (report.target.map { ", target \($0)" } ?? "")]
        if let intent = report.intentFile { lines.append("intent: \(intent)") }
        if !report.findings.isEmpty {
            lines.append("")
            lines += report.findings.map(finding)
        }
        for store in report.stores {
            lines.append("")
            lines += self.store(store)
        }
        let blocking = report.findings.filter(\.blocks).count
        let failing = report.stores.filter { $0.verdict != .pass }.count
        lines.append("")
        lines.append("\(blocking) blocking finding(s), \(report.stores.count) store(s) checked, \(failing) not passing")
        return lines.joined(separator: "\n")
    }

    static func finding(_ finding: ReleaseFinding) -> String {
        let label: String
        switch finding.kind {
        case .lintError, .undeclaredDataLoss, .meaningChange: label = "error"
        case .lintWarning: label = "warning"
        case .acknowledged: label = "acknowledged"
        }
        var text = (finding.location.map { "\($0): " } ?? "") + "\(label): [\(finding.check)] \(finding.message)"
        if let declared = finding.declared {
            text += "\n  declared: \(declared.kind.rawValue) \(declared.subject)" + (declared.reason.map { " (\($0))" } ?? "")
        }
        if let droppedAt = finding.droppedAt { text += "\n  dropped from: \(droppedAt)" }
        if let hint = finding.hint { text += "\n  hint: \(hint)" }
        return text
    }

    static func store(_ store: StoreVerdict) -> [String] {
        var lines = ["store \(store.store): \(verdict(store.verdict))"]
        if let version = store.version { lines.append("  version: \(version)") }
        if !store.chain.isEmpty {
            lines.append("  chain: \(store.chain.joined(separator: ", ")) (\(store.stepsRun) of \(store.chain.count) step(s) ran on a copy)")
        } else if store.version != nil, store.verdict == .pass {
            lines.append("  at the target: nothing to migrate")
        }
        if let step = store.blockedAt { lines.append("  blocked at: \(step.joined(separator: " → "))") }
        for violation in store.violations { lines.append("    - \(violation.message)") }
        if let reason = store.reason { lines.append("  " + reason.replacingOccurrences(of: "\n", with: "\n  ")) }
        return lines
    }
}
