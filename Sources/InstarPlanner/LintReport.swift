import InstarInference
@_spi(Layouts) import InstarModel

/// What `instar lint` reports on one plan (or the models or sources linted instead): the findings and
/// how many are errors and warnings, the value that `--format json` writes and its text is read from.
package struct LintReport: Sendable, Equatable, Codable {
    /// The plan file linted, or the models or Swift sources given instead, as the user named them.
    package var plan: String
    /// The findings, in the order ``PlanLint/sorted(_:)`` gives them.
    package var findings: [LintFinding]

    /// The findings that fail the lint (`instar lint` exits with status 1).
    package var errors: Int { findings.filter { $0.severity == .error }.count }
    /// The findings that are only warnings.
    package var warnings: Int { findings.filter { $0.severity == .warning }.count }

    /// A report on `plan`'s findings.
    package init(plan: String, findings: [LintFinding]) {
        self.plan = plan
        self.findings = findings
    }

    private enum CodingKeys: String, CodingKey {
        case plan, errors, warnings, findings
    }

    /// Reads a report; the counts are the findings' own, so they are not read.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(plan: try c.decode(String.self, forKey: .plan), findings: try c.decode([LintFinding].self, forKey: .findings))
    }

    /// Writes the plan, the findings, and their counts for scripts that only want those.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(plan, forKey: .plan)
        try c.encode(errors, forKey: .errors)
        try c.encode(warnings, forKey: .warnings)
        try c.encode(findings, forKey: .findings)
    }
}
