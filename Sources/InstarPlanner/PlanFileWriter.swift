import InstarModelIO

/// Writes a plan file that ``PlanFileReader`` reads back to the same plan, its versions and mapping
/// models named by the paths given (relative to the plan file).
package enum PlanFileWriter {
    /// The plan file's text. `comment` lines go first, each as a YAML comment.
    package static func yaml(_ plan: Plan, models: [String], mappings: [String], comment: [String] = []) -> String {
        var lines = comment.map { $0.isEmpty ? "#" : "# \($0)" }
        lines.append("name: \(YAMLText.scalar(plan.name))")
        lines.append("layout: \(YAMLText.scalar(plan.layout))")
        if !plan.versionsAreOrdered {
            lines.append("# The versions have no order but the target, as in an Xcode bundle: each is a starting point.")
            lines.append("ordered: false")
        }
        if let target = plan.target { lines.append("target: \(YAMLText.scalar(target))") }
        lines.append("versions:")
        lines += models.map { "  - \(YAMLText.scalar($0))" }
        if !mappings.isEmpty {
            lines.append("mappings:")
            lines += mappings.map { "  - \(YAMLText.scalar($0))" }
        }
        if !plan.pinned.isEmpty { lines.append("pinned: \(YAMLText.flowList(plan.pinned))") }
        if !plan.stages.isEmpty {
            lines.append("stages:")
            for stage in plan.stages {
                lines.append("  - from: \(YAMLText.scalar(stage.from))")
                lines.append("    to: \(YAMLText.scalar(stage.to))")
                if !stage.before.isEmpty { lines.append("    before: \(YAMLText.flowList(stage.before))") }
                if !stage.after.isEmpty { lines.append("    after: \(YAMLText.flowList(stage.after))") }
            }
        }
        if !plan.hooks.isEmpty {
            lines.append("hooks:")
            for (name, hook) in plan.hooks.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(YAMLText.key(name)): \(flow(hook))")
            }
        }
        let defaults = PlanOptions()
        var options: [String] = []
        if let secureDelete = plan.options.secureDelete { options.append("  secureDelete: \(secureDelete.rawValue)") }
        if plan.options.stepCost != defaults.stepCost { options.append("  stepCost: \(plan.options.stepCost)") }
        if plan.options.maxSkip != defaults.maxSkip { options.append("  maxSkip: \(plan.options.maxSkip)") }
        if !options.isEmpty { lines += ["options:"] + options }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A hook as one flow mapping.
    static func flow(_ hook: HookDefinition) -> String {
        func list(_ items: [String]) -> String { "[" + items.map(YAMLText.quoted).joined(separator: ", ") + "]" }
        switch hook {
        case .sql(let statements): return "{sql: \(list(statements))}"
        case .batchedSQL(let table, let sql, let size):
            return "{batchedSQL: {table: \(YAMLText.flowScalar(table)), size: \(size), sql: \(YAMLText.quoted(sql))}}"
        case .command(let arguments): return "{command: \(list(arguments))}"
        case .swift(let name): return "{swift: \(YAMLText.flowScalar(name))}"
        }
    }
}
