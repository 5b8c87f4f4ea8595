/// What `instar plan --swiftdata --format json` writes when SwiftData would refuse a migration plan at
/// launch: the plan's name, `passed` (false when there are findings) and the findings as `problems`.
package struct SwiftDataPlanRefusal: Sendable, Hashable, Codable {
    /// The `SchemaMigrationPlan`'s name.
    package var plan: String
    /// What SwiftData would refuse, each with its fix.
    package var problems: [SwiftDataFinding]

    /// The refusal of `plan` for `problems`.
    package init(plan: String, problems: [SwiftDataFinding]) {
        self.plan = plan
        self.problems = problems
    }

    /// Whether SwiftData would accept the plan: no problem found.
    package var passed: Bool { problems.isEmpty }

    private enum CodingKeys: String, CodingKey {
        case plan, passed, problems
    }

    /// Reads a refusal written by ``encode(to:)`` (`passed` follows from the problems).
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(plan: try c.decode(String.self, forKey: .plan), problems: try c.decode([SwiftDataFinding].self, forKey: .problems))
    }

    /// Writes `plan`, `passed` and `problems`.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(plan, forKey: .plan)
        try c.encode(passed, forKey: .passed)
        try c.encode(problems, forKey: .problems)
    }
}
