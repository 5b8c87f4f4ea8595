/// A report's JSON (`instar test --format json`) holds its stored values and, beside them, `passed`:
/// what a CI script wants first, without walking every run's checks. `passed` follows from the runs, so
/// decoding does not read it back.
extension MigrationTestReport: Codable {
    private enum CodingKeys: String, CodingKey {
        case plan, target, layout, rows, runs, skipped, passed
    }

    /// Reads a report written by ``encode(to:)``; `passed` is the runs' own verdict, not read.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            plan: try c.decode(String.self, forKey: .plan), target: try c.decode(String.self, forKey: .target),
            layout: try c.decode(String.self, forKey: .layout), rows: try c.decodeIfPresent(Int.self, forKey: .rows),
            runs: try c.decode([MigrationTestRun].self, forKey: .runs), skipped: try c.decode([SkippedVersion].self, forKey: .skipped))
    }

    /// Writes the report's values and ``passed``; `rows` only when stores were seeded.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(plan, forKey: .plan)
        try c.encode(target, forKey: .target)
        try c.encode(layout, forKey: .layout)
        try c.encodeIfPresent(rows, forKey: .rows)
        try c.encode(runs, forKey: .runs)
        try c.encode(skipped, forKey: .skipped)
        try c.encode(passed, forKey: .passed)
    }
}
