@_spi(Layouts) import Instar

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
}

/// `instar lint --format json`: the findings and their counts.
struct LintJSON: Codable, Sendable, Equatable {
    /// The plan file (or the models or sources given instead).
    var plan: String
    var errors: Int
    var warnings: Int
    var findings: [Finding]

    /// One finding at its file, line and column.
    struct Finding: Codable, Sendable, Equatable {
        var severity: String
        var check: String
        var message: String
        var file: String
        var line: Int?
        var column: Int?
        var hint: String?
        /// The entity and property the finding is about, when it is about one.
        var entity: String?
        var property: String?
        /// The value an invalid plan's problem is about (an unknown version or hook), when there is one.
        var value: String?

        init(_ finding: LintFinding) {
            severity = finding.severity.rawValue
            check = finding.check.rawValue
            message = finding.message
            file = finding.location.file
            line = finding.location.line
            column = finding.location.column
            hint = finding.hint
            entity = finding.entity
            property = finding.property
            value = finding.value
        }
    }

    init(_ findings: [LintFinding], plan: String) {
        self.plan = plan
        (errors, warnings) = LintRendering.counts(findings)
        self.findings = findings.map(Finding.init)
    }
}
