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

/// A synthesized decomposition in `instar plan --format json` (where no chain exists).
struct ProposalJSON: Codable, Sendable, Equatable {
    var from: String
    var to: String
    var complete: Bool
    /// Whether some hook is a template to fill in.
    var templates: Bool
    var versions: [String]
    var intermediate: String?
    var final: String?
    var recipes: [Recipe]
    var steps: [Step]
    var hooks: [Hook]
    var risks: [Risk]
    var notes: [String]
    var manualRecipe: String?

    /// What to do about one blocking change.
    struct Recipe: Codable, Sendable, Equatable {
        var kind: String
        var subject: String
        var summary: String
        var change: Change
        var temporary: String?
        var hook: String?
    }

    /// One step of the proposed chain, with its stage's hooks.
    struct Step: Codable, Sendable, Equatable {
        var from: String
        var to: String
        var kind: String
        var inferable: Bool
        var before: [String]
        var after: [String]
    }

    /// A hook the proposal adds (SQL, or a template).
    struct Hook: Codable, Sendable, Equatable {
        var name: String
        var phase: String
        var step: String
        var kind: String
        var template: Bool
        var purpose: String
        var sql: [String]?
    }

    /// Something the proposal may lose or refuse on this store.
    struct Risk: Codable, Sendable, Equatable {
        var subject: String
        var message: String
        var count: Int?
    }

    init(_ p: Decomposition) {
        from = p.from
        to = p.to
        complete = p.isComplete
        templates = p.hasTemplates
        versions = p.versions
        intermediate = p.intermediate?.name
        final = p.final?.name
        recipes = p.recipes.map {
            Recipe(
                kind: $0.kind.rawValue, subject: $0.change.subject, summary: $0.summary, change: $0.change,
                temporary: $0.temporary, hook: $0.hook)
        }
        steps = p.steps.map {
            Step(
                from: $0.from, to: $0.to, kind: $0.kind.rawValue, inferable: $0.isInferable, before: $0.stage?.before ?? [],
                after: $0.stage?.after ?? [])
        }
        hooks = p.hooks.map { hook in
            var sql: [String]?
            if case .sql(let statements) = hook.definition { sql = statements }
            return Hook(
                name: hook.name, phase: hook.phase, step: hook.step, kind: hook.definition.kindName, template: hook.isTemplate,
                purpose: hook.purpose, sql: sql)
        }
        risks = p.risks.map { Risk(subject: $0.subject, message: $0.message, count: $0.count) }
        notes = p.notes
        manualRecipe = p.manualRecipe
    }
}
