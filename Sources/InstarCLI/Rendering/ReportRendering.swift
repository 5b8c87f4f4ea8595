import Foundation
@_spi(Layouts) import Instar

/// Renders a dry-run report as text (terminals) and Markdown (pull requests); ``DryRunJSON`` is the
/// same for programs.
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

/// `instar plan --format json`: the dry run. With `--scaffold`, also the files written.
struct DryRunJSON: Codable, Sendable, Equatable {
    var plan: String
    var layout: String
    var store: String?
    var detectedVersion: String?
    var matchedBy: String?
    var from: String
    var to: String
    var totalCost: Int
    var steps: [Step]
    var alternatives: [Alternative]
    var segments: [Segment]
    var risks: [Risk]
    /// Why no chain exists (then `proposals` is there too).
    var noChain: NoChainJSON?
    var proposals: [ProposalJSON]?
    /// `--scaffold`: what was written.
    var scaffold: [ScaffoldFile]?

    /// One step of the chain.
    struct Step: Codable, Sendable, Equatable {
        var from: String
        var to: String
        var kind: String
        @AlwaysPresent var mappingModel: String?
        var chosenBecause: String
        var changes: [Change]
        var hooks: [Hook]
        var sql: [String]
        var tablesRebuilt: [String]
        var rowsTouched: Int
        var extraBytes: Int
    }

    /// A hook a step runs, and where.
    struct Hook: Codable, Sendable, Equatable {
        var name: String
        var phase: String
        var kind: String
    }

    /// A chain not chosen, with its cost.
    struct Alternative: Codable, Sendable, Equatable {
        var versions: [String]
        var cost: Int
    }

    /// Steps that run as one transaction.
    struct Segment: Codable, Sendable, Equatable {
        var from: String
        var to: String
        var steps: Int
        var sql: [String]
        var tablesRebuilt: [String]
        var movedAcrossHooks: [String]
        var notFused: [String]
    }

    /// What the run may lose or refuse on.
    struct Risk: Codable, Sendable, Equatable {
        var kind: String
        var message: String
        var step: String?
        var count: Int?
    }

    /// Where no chain leads to the target, and the changes that block each gap.
    struct NoChainJSON: Codable, Sendable, Equatable {
        var message: String
        var gaps: [Gap]

        struct Gap: Codable, Sendable, Equatable {
            var from: String
            var to: String
            var blocking: [Change]
        }
    }

    /// A file `--scaffold` wrote, and what it is for.
    struct ScaffoldFile: Codable, Sendable, Equatable {
        var path: String
        var role: String
    }

    init(_ r: DryRunReport) {
        plan = r.plan
        layout = r.layout
        store = r.store
        detectedVersion = r.detectedVersion
        matchedBy = r.matchedBy
        from = r.from
        to = r.to
        totalCost = r.totalCost
        steps = r.steps.map { s in
            Step(
                from: s.from, to: s.to, kind: s.kind.rawValue, mappingModel: s.mappingModel, chosenBecause: s.choice.description,
                changes: s.changes, hooks: s.hooks.map { Hook(name: $0.name, phase: $0.phase.description, kind: $0.kind) },
                sql: s.sql, tablesRebuilt: s.tablesRebuilt, rowsTouched: s.rowsTouched, extraBytes: s.extraBytes)
        }
        alternatives = r.alternatives.map { Alternative(versions: $0.versions, cost: $0.cost) }
        segments = r.segments.map {
            Segment(
                from: $0.from, to: $0.to, steps: $0.steps, sql: $0.sql, tablesRebuilt: $0.tablesRebuilt, movedAcrossHooks: $0.moved,
                notFused: $0.notFused)
        }
        risks = r.risks.map { Risk(kind: $0.kind.rawValue, message: $0.message, step: $0.step, count: $0.count) }
        if let noChain = r.noChain {
            self.noChain = NoChainJSON(
                message: noChain.message,
                gaps: noChain.gaps.map { NoChainJSON.Gap(from: $0.from, to: $0.to, blocking: $0.blocking) })
            proposals = r.proposals.map(ProposalJSON.init)
        }
    }
}
