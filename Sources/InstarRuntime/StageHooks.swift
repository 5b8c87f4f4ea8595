import InstarPlanner
@_spi(Layouts) import InstarStore

/// A step's hooks, split around the step's transaction: SQL hooks right next to the schema change run
/// inside it (the `before` SQL hooks after the last non-SQL one, the `after` SQL hooks before the
/// first non-SQL one); the others commit on their own.
///
/// One definition for the executor and the dry run, so that the report shows the transactions that
/// `migrate` will run.
struct StageHooks {
    var beforeSeparate: [String] = []
    var beforeInside: [String] = []
    var afterInside: [String] = []
    var afterSeparate: [String] = []

    init(plan: Plan, from: String, to: String) {
        let stage = plan.stages.first { $0.from == from && $0.to == to }
        let before = stage?.before ?? []
        let after = stage?.after ?? []
        func isSQL(_ hook: String) -> Bool {
            if case .sql? = plan.hooks[hook] { return true }
            return false
        }
        let lastSeparate = before.lastIndex { !isSQL($0) }.map { $0 + 1 } ?? 0
        let firstSeparate = after.firstIndex { !isSQL($0) } ?? after.count
        beforeSeparate = Array(before[..<lastSeparate])
        beforeInside = Array(before[lastSeparate...])
        afterInside = Array(after[..<firstSeparate])
        afterSeparate = Array(after[firstSeparate...])
    }

    /// Whether two consecutive steps can share a transaction: nothing that commits on its own stands
    /// between them.
    static func canShareTransaction(_ earlier: StageHooks, _ later: StageHooks) -> Bool {
        earlier.afterSeparate.isEmpty && later.beforeSeparate.isEmpty
    }

    /// The inline hooks of one transaction covering consecutive `steps`, keyed by the position of the
    /// version at which they run (0 = the version before the first step): a step's inside `before`
    /// hooks at its own position, its inside `after` hooks at the next. `make` builds each hook from its
    /// name, phase and step label.
    static func inlineHooks(
        of steps: [(from: String, to: String)], in plan: Plan, make: (String, HookPhase, String) -> InlineHook
    ) -> [Int: [InlineHook]] {
        var result: [Int: [InlineHook]] = [:]
        for (position, step) in steps.enumerated() {
            let label = "\(step.from) → \(step.to)"
            let hooks = StageHooks(plan: plan, from: step.from, to: step.to)
            result[position, default: []] += hooks.beforeInside.map { make($0, .before, label) }
            result[position + 1, default: []] += hooks.afterInside.map { make($0, .after, label) }
        }
        return result.filter { !$0.value.isEmpty }
    }

    /// The SQL statements of an inline hook, for the planner's analysis.
    static func statements(of hook: String, in plan: Plan) -> [String]? {
        if case .sql(let statements)? = plan.hooks[hook] { return statements }
        return nil
    }
}
