import InstarPlanner

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

    /// The SQL statements of an inline hook, for the planner's analysis.
    static func statements(of hook: String, in plan: Plan) -> [String]? {
        if case .sql(let statements)? = plan.hooks[hook] { return statements }
        return nil
    }
}
