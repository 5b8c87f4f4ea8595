import ArgumentParser
import Foundation
@_spi(Layouts) import Instar

/// `instar plan … --scaffold <dir>`: prints the report, then writes the proposals' files and, for each
/// hook a mapping step needs that the plan does not declare, an SQL template named after the hook
/// (never overwriting a file), and says what it wrote.
enum ScaffoldWriter {
    static func write(report: DryRunReport, plan: Plan, directory: String, format: ReportFormat) throws {
        var files: [Scaffold.File] = []
        if report.noChain != nil, !report.proposals.isEmpty {
            files = Scaffold.files(for: report.proposals, plan: plan, directory: directory)
        }
        let hookFiles = mappingHookFiles(report: report, plan: plan, directory: directory)
        files += hookFiles
        let existing = files.filter { FileManager.default.fileExists(atPath: $0.path) }
        if !existing.isEmpty {
            printError(
                "--scaffold: refusing to overwrite \(existing.map(\.path).joined(separator: ", ")); nothing was written. Choose another directory, or move the files away first")
            throw InstarExit.failure
        }
        do {
            if !files.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            for file in files {
                // `withoutOverwriting`: a file that appeared since the check is still not replaced.
                try Data(file.contents.utf8).write(to: URL(fileURLWithPath: file.path), options: [.withoutOverwriting])
            }
        } catch {
            printError("--scaffold: cannot write into \(directory): \(error.localizedDescription)")
            throw InstarExit.failure
        }
        let summary: String
        if report.noChain == nil, !hookFiles.isEmpty {
            summary =
                "scaffold: wrote \(hookFiles.count) mapping hook template(s); declare each under the plan's hooks: "
                + "(its comments say how) and replace \(Decomposition.expressionPlaceholder)"
        } else if report.noChain == nil {
            summary = "nothing to scaffold: a chain from \(report.from) to \(report.to) exists"
        } else if files.isEmpty {
            summary = "nothing to scaffold: no gap has a proposal"
        } else {
            summary =
                "scaffold: wrote \(files.count) file(s); paste \(Scaffold.snippetName) into \(plan.file)"
                + (report.proposals.contains(where: \.hasTemplates) ? " and edit the TEMPLATE hooks" : "")
        }
        switch format {
        case .json:
            var written = report
            written.scaffold = files
            printOut(jsonText(written))
        case .text, .markdown:
            printOut(format == .text ? ReportRendering.text(report) : ReportRendering.markdown(report))
            printOut("")
            printOut(summary)
            for file in files { printOut("  wrote \(file.path) (\(file.role))") }
        }
        if report.noChain != nil, files.isEmpty { throw InstarExit.failure }
    }

    /// One `<hook>.sql` per hook of a mapping step that the plan does not declare, named as the
    /// refusal names it.
    static func mappingHookFiles(report: DryRunReport, plan: Plan, directory: String) -> [Scaffold.File] {
        var seen = Set<String>()
        return report.steps.flatMap(\.mappingHookTemplates).filter { template in
            plan.hooks[template.hook] == nil && seen.insert(template.hook).inserted
        }.map { template in
            let name = template.hook.replacingOccurrences(of: "/", with: "_") + ".sql"
            return Scaffold.File(
                path: URL(fileURLWithPath: directory).appendingPathComponent(name).path, contents: template.sql,
                role: "mapping hook template (\(template.point.rawValue))")
        }
    }
}
