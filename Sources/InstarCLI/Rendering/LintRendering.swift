@_spi(Layouts) import Instar

/// Renders a ``LintReport`` as compiler-style lines for people and editors; its `Codable` conformance
/// is the same for programs.
enum LintRendering {
    static func text(_ report: LintReport) -> String {
        (report.findings.map(\.description) + ["\(report.errors) error(s), \(report.warnings) warning(s)"]).joined(separator: "\n")
    }
}
