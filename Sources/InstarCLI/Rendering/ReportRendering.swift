import Foundation
@_spi(Layouts) import Instar

/// Renders a dry-run report as text (terminals) and Markdown (pull requests); the report's
/// `Encodable` conformance is the same for programs.
enum ReportRendering {
    static func header(_ r: DryRunReport) -> [String] {
        var lines: [String] = []
        if let store = r.store {
            let how = r.matchedBy == "metadata" ? "its metadata" : "its schema"
            lines.append("store \(store) is at \(r.detectedVersion ?? "?") (known from \(how), \(r.layout) layout)")
        } else {
            lines.append("no store given: planning from \(r.from) (\(r.layout) layout)")
        }
        return lines
    }

    static func text(_ r: DryRunReport) -> String {
        var lines = header(r)
        if let noChain = r.noChain {
            lines.append(noChain.description)
            lines += ProposalRendering.text(r.proposals)
            return lines.joined(separator: "\n")
        }
        if r.steps.isEmpty {
            lines.append("already at \(r.to): nothing to do")
            return lines.joined(separator: "\n")
        }
        let versions = [r.from] + r.steps.map(\.to)
        lines.append("chain: \(versions.joined(separator: " → ")) (\(r.steps.count) step(s), cost \(r.totalCost))")
        for alternative in r.alternatives {
            lines.append("  alternative: \(alternative.versions.joined(separator: " → ")) (cost \(alternative.cost))")
        }
        for (i, s) in r.steps.enumerated() {
            lines.append("")
            lines.append("step \(i + 1)/\(r.steps.count): \(s.from) → \(s.to) [\(s.kind.rawValue)]")
            if s.choice != .cheapest { lines.append("  chosen: \(s.choice)") }
            if let mapping = s.mappingModel {
                lines.append(
                    "  mapping model \(mapping): its entity mappings say what becomes of each row, in one transaction of its own; "
                        + "the pair is never skipped (Core Data uses a mapping model before it infers anything)")
                let needed = s.hooks.compactMap { hook -> (DryRunReport.HookUse, String)? in
                    if case .mapping(let point) = hook.phase { (hook, point) } else { nil }
                }
                lines.append(needed.isEmpty ? "  hooks needed: none" : "  hooks needed:")
                for (hook, point) in needed {
                    lines.append("    \(hook.name) (at its \(point) point; \(hook.kind))")
                }
            } else {
                for change in s.changes {
                    let mark = change.isInferable ? (change.verdict.condition == nil ? "ok " : "if ") : "NO "
                    lines.append("  \(mark) \(change.kind.rawValue) \(change.subject): \(change.verdict.reason)")
                }
            }
            for hook in s.hooks where [.before, .after].contains(hook.phase) {
                lines.append("  hook \(hook.name) (\(hook.kind), \(hook.phase) the schema change)")
            }
            lines.append(
                "  tables rebuilt: \(s.tablesRebuilt.isEmpty ? "none" : s.tablesRebuilt.joined(separator: ", ")); rows touched: \(s.rowsTouched); extra disk: \(bytes(s.extraBytes))"
            )
            lines.append("  SQL:")
            lines += s.sql.map { "    \($0)" }
        }
        for segment in r.segments {
            lines.append("")
            lines.append(
                "fused: \(segment.from) → \(segment.to) (\(segment.steps) steps) runs as one transaction; tables rebuilt: \(segment.tablesRebuilt.isEmpty ? "none" : segment.tablesRebuilt.joined(separator: ", "))"
            )
            lines += segment.moved.map { "  moved \($0)" }
            lines += segment.notFused.map { "  not fused \($0)" }
            lines += segment.sql.map { "    \($0)" }
        }
        lines.append("")
        lines.append(r.risks.isEmpty ? "risks: none found" : "risks:")
        lines += r.risks.map { "  - " + ($0.step.map { "[\($0)] " } ?? "") + $0.message }
        return lines.joined(separator: "\n")
    }

    static func markdown(_ r: DryRunReport) -> String {
        var lines = ["# Migration plan: \(r.plan)", ""]
        lines += header(r).map { $0 + "  " }
        lines.append("")
        if let noChain = r.noChain {
            lines.append("**No chain:** \(noChain.message)")
            lines.append("")
            for gap in noChain.gaps {
                lines.append("- \(gap.from) → \(gap.to)")
                lines += gap.blocking.map { "  - `\($0.subject)`: \($0.verdict.reason)" }
            }
            lines += ProposalRendering.markdown(r.proposals)
            return lines.joined(separator: "\n")
        }
        lines.append("| step | from | to | kind | tables rebuilt | rows touched | extra disk | hooks |")
        lines.append("|---:|---|---|---|---|---:|---:|---|")
        for (i, s) in r.steps.enumerated() {
            let hooks = s.hooks.map { "\($0.name) (\($0.phase))" }.joined(separator: ", ")
            lines.append(
                "| \(i + 1) | \(s.from) | \(s.to) | \(s.kind.rawValue) | \(s.tablesRebuilt.joined(separator: ", ")) | \(s.rowsTouched) | \(bytes(s.extraBytes)) | \(hooks) |"
            )
        }
        if !r.alternatives.isEmpty {
            lines.append("")
            lines.append("Alternatives considered: " + r.alternatives.map { "\($0.versions.joined(separator: " → ")) (cost \($0.cost))" }.joined(separator: "; ") + ". Chosen cost: \(r.totalCost).")
        }
        for (i, s) in r.steps.enumerated() {
            lines.append("")
            lines.append("## Step \(i + 1): \(s.from) → \(s.to)")
            lines.append("")
            lines += s.changes.map { "- \($0.isInferable ? "✅" : "❌") `\($0.kind.rawValue)` **\($0.subject)**: \($0.verdict.reason)" }
            lines.append("")
            lines.append("```sql")
            lines += s.sql
            lines.append("```")
        }
        lines.append("")
        lines.append("## Risks")
        lines.append("")
        lines += r.risks.isEmpty ? ["None found."] : r.risks.map { "- " + ($0.step.map { "*\($0)*: " } ?? "") + $0.message }
        return lines.joined(separator: "\n")
    }

    static func bytes(_ n: Int) -> String {
        if n >= 1 << 30 { return String(format: "%.1f GiB", Double(n) / Double(1 << 30)) }
        if n >= 1 << 20 { return String(format: "%.1f MiB", Double(n) / Double(1 << 20)) }
        if n >= 1 << 10 { return String(format: "%.1f KiB", Double(n) / Double(1 << 10)) }
        return "\(n) B"
    }
}
