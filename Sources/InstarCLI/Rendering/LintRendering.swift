import Instar

/// Renders `instar lint` findings: compiler-style lines for people and editors, JSON for programs.
enum LintRendering {
    static func counts(_ findings: [LintFinding]) -> (errors: Int, warnings: Int) {
        (findings.filter { $0.severity == .error }.count, findings.filter { $0.severity == .warning }.count)
    }

    static func summary(_ findings: [LintFinding]) -> String {
        let (errors, warnings) = counts(findings)
        return "\(errors) error(s), \(warnings) warning(s)"
    }

    static func text(_ findings: [LintFinding]) -> String {
        (findings.map(\.description) + [summary(findings)]).joined(separator: "\n")
    }

    static func json(_ findings: [LintFinding], plan: String) -> [String: Any] {
        let (errors, warnings) = counts(findings)
        return [
            "plan": plan,
            "errors": errors,
            "warnings": warnings,
            "findings": findings.map { finding -> [String: Any] in
                var object: [String: Any] = [
                    "severity": finding.severity.rawValue,
                    "check": finding.check.rawValue,
                    "message": finding.message,
                    "file": finding.location.file,
                ]
                if let line = finding.location.line { object["line"] = line }
                if let column = finding.location.column { object["column"] = column }
                if let hint = finding.hint { object["hint"] = hint }
                return object
            },
        ]
    }
}
