import Foundation
@_spi(Layouts) import Instar

/// Renders the synthesized decompositions of a dry-run report (where no chain exists).
enum ProposalRendering {
    static func text(_ proposals: [Decomposition]) -> [String] {
        var lines: [String] = []
        for p in proposals {
            lines.append("")
            lines.append("proposal for \(p.from) → \(p.to) (synthesized; 'instar plan … --scaffold <dir>' writes it out):")
            if !p.versions.isEmpty { lines.append("  versions: \(p.versions.joined(separator: " → "))") }
            for recipe in p.recipes {
                lines.append("  - \(recipe.change.subject) [\(recipe.kind.rawValue)]: \(recipe.summary)")
            }
            for (i, step) in p.steps.enumerated() {
                var hooks: [String] = []
                if let stage = step.stage {
                    if !stage.before.isEmpty { hooks.append("before: " + stage.before.joined(separator: ", ")) }
                    if !stage.after.isEmpty { hooks.append("after: " + stage.after.joined(separator: ", ")) }
                }
                let check = step.isInferable ? "" : " (NOT inferable)"
                lines.append(
                    "  step \(i + 1): \(step.from) → \(step.to) [\(step.kind.rawValue)]\(check)"
                        + (hooks.isEmpty ? "" : " " + hooks.joined(separator: "; ")))
            }
            for hook in p.hooks {
                lines.append("  hook \(hook.name) (\(hook.definition.kindName), \(hook.phase)\(hook.isTemplate ? ", template" : "")): \(hook.purpose)")
                if case .sql(let statements) = hook.definition { lines += statements.map { "    \($0)" } }
            }
            if !p.risks.isEmpty {
                lines.append("  risks:")
                lines += p.risks.map { "    - \($0.message)" + ($0.count.map { " (\($0) in the store)" } ?? "") }
            }
            if let manual = p.manualRecipe {
                lines.append("  by hand:")
                lines += manual.split(separator: "\n").map { "    \($0)" }
            }
            lines += p.notes.map { "  note: \($0)" }
        }
        return lines
    }

    static func markdown(_ proposals: [Decomposition]) -> [String] {
        var lines: [String] = []
        for p in proposals {
            lines.append("")
            lines.append("## Proposal: \(p.from) → \(p.to)")
            lines.append("")
            if !p.versions.isEmpty { lines.append("Chain: \(p.versions.joined(separator: " → ")) (synthesized)") }
            lines.append("")
            lines += p.recipes.map { "- **\($0.change.subject)** (`\($0.kind.rawValue)`): \($0.summary)" }
            if !p.steps.isEmpty { lines.append("") }
            for (i, step) in p.steps.enumerated() {
                let before = step.stage?.before ?? []
                let after = step.stage?.after ?? []
                var hooks = before.map { "before `\($0)`" } + after.map { "after `\($0)`" }
                if hooks.isEmpty { hooks = ["no hooks"] }
                lines.append("\(i + 1). \(step.from) → \(step.to): \(hooks.joined(separator: ", "))\(step.isInferable ? "" : " (**not inferable**)")")
            }
            for hook in p.hooks {
                lines.append("")
                lines.append("Hook `\(hook.name)` (\(hook.phase)\(hook.isTemplate ? ", **template**" : "")): \(hook.purpose)")
                lines.append("")
                lines.append("```sql")
                if case .sql(let statements) = hook.definition { lines += statements }
                lines.append("```")
            }
            if !p.risks.isEmpty {
                lines.append("")
                lines += p.risks.map { "- ⚠️ \($0.message)" + ($0.count.map { " (\($0) in the store)" } ?? "") }
            }
            if let manual = p.manualRecipe {
                lines.append("")
                lines.append("By hand:")
                lines += manual.split(separator: "\n").map { "- \($0)" }
            }
            lines += p.notes.map { "- Note: \($0)" }
        }
        return lines
    }
}
