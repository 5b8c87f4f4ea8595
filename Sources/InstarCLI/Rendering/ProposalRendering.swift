import Foundation
import Instar

/// Renders the synthesized decompositions of a dry-run report (where no chain exists).
enum ProposalRendering {
    static func json(_ p: Decomposition) -> [String: Any] {
        var object: [String: Any] = [
            "from": p.from,
            "to": p.to,
            "complete": p.isComplete,
            "templates": p.hasTemplates,
            "versions": p.versions,
            "recipes": p.recipes.map { recipe -> [String: Any] in
                var o: [String: Any] = [
                    "kind": recipe.kind.rawValue, "subject": recipe.change.subject, "summary": recipe.summary,
                    "change": DiffRendering.json(recipe.change),
                ]
                if let temporary = recipe.temporary { o["temporary"] = temporary }
                if let hook = recipe.hook { o["hook"] = hook }
                return o
            },
            "steps": p.steps.map { step -> [String: Any] in
                [
                    "from": step.from, "to": step.to, "kind": step.kind.rawValue, "inferable": step.isInferable,
                    "before": step.stage?.before ?? [], "after": step.stage?.after ?? [],
                ]
            },
            "hooks": p.hooks.map { hook -> [String: Any] in
                var o: [String: Any] = [
                    "name": hook.name, "phase": hook.phase, "step": hook.step, "kind": hook.definition.kindName,
                    "template": hook.isTemplate, "purpose": hook.purpose,
                ]
                if case .sql(let statements) = hook.definition { o["sql"] = statements }
                return o
            },
            "risks": p.risks.map { risk -> [String: Any] in
                var o: [String: Any] = ["subject": risk.subject, "message": risk.message]
                if let count = risk.count { o["count"] = count }
                return o
            },
            "notes": p.notes,
        ]
        if let intermediate = p.intermediate { object["intermediate"] = intermediate.name }
        if let final = p.final { object["final"] = final.name }
        if let manual = p.manualRecipe { object["manualRecipe"] = manual }
        return object
    }

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
