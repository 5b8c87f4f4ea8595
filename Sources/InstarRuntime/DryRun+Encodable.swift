import InstarInference
import InstarPlanner

/// `instar plan --format json`: the dry run as scripts and pull-request bots read it.
///
/// Encodable only. The JSON is what a person reviews, not all the report holds: each step's
/// ``StepChoice`` is written as its sentence (`chosenBecause`), a missing chain as its
/// message, proposals without their models, and the facts the budget estimates use (sliced tables
/// and rows, the measured copy rate, inference warnings already listed as risks) not at all. A report
/// read back from it could not be planned or run from, so there is none; a test reads the output's
/// members, and the report the library builds encodes to the same bytes.
extension DryRunReport: Encodable {
    private enum CodingKeys: String, CodingKey {
        case plan, layout, store, detectedVersion, matchedBy, from, to, totalCost, steps, alternatives, segments, risks,
            noChain, proposals, scaffold
    }

    /// Writes the report; `proposals` only beside a `noChain` (possibly empty), `scaffold` only when
    /// files were written.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(plan, forKey: .plan)
        try c.encode(layout, forKey: .layout)
        try c.encodeIfPresent(store, forKey: .store)
        try c.encodeIfPresent(detectedVersion, forKey: .detectedVersion)
        try c.encodeIfPresent(matchedBy, forKey: .matchedBy)
        try c.encode(from, forKey: .from)
        try c.encode(to, forKey: .to)
        try c.encode(totalCost, forKey: .totalCost)
        try c.encode(steps, forKey: .steps)
        try c.encode(alternatives, forKey: .alternatives)
        try c.encode(segments, forKey: .segments)
        try c.encode(risks, forKey: .risks)
        if let noChain {
            try c.encode(noChain, forKey: .noChain)
            try c.encode(proposals, forKey: .proposals)
        }
        try c.encodeIfPresent(scaffold, forKey: .scaffold)
    }
}

extension DryRunReport.StepReport: Encodable {
    private enum CodingKeys: String, CodingKey {
        case from, to, kind, mappingModel, chosenBecause, changes, hooks, sql, tablesRebuilt, rowsTouched, extraBytes
    }

    /// Writes the step; `mappingModel` always, as `null` for a step without one (scripts read the key
    /// either way), and the planner's choice as its sentence.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(from, forKey: .from)
        try c.encode(to, forKey: .to)
        try c.encode(kind.rawValue, forKey: .kind)
        if let mappingModel { try c.encode(mappingModel, forKey: .mappingModel) } else { try c.encodeNil(forKey: .mappingModel) }
        try c.encode(choice.description, forKey: .chosenBecause)
        try c.encode(changes, forKey: .changes)
        try c.encode(hooks, forKey: .hooks)
        try c.encode(sql, forKey: .sql)
        try c.encode(tablesRebuilt, forKey: .tablesRebuilt)
        try c.encode(rowsTouched, forKey: .rowsTouched)
        try c.encode(extraBytes, forKey: .extraBytes)
    }
}

/// A hook's phase is written as the command line prints it: `before`, `after` or `mapping <point>`;
/// each reads back as the case it came from.
extension DryRunReport.HookUse.Phase: Codable {
    /// Reads `before`, `after` or `mapping <point>`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        switch text {
        case "before": self = .before
        case "after": self = .after
        case _ where text.hasPrefix("mapping "): self = .mapping(point: String(text.dropFirst("mapping ".count)))
        default: throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown hook phase '\(text)'")
        }
    }

    /// Writes the phase's ``description``.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

/// Another chain: its versions and cost.
extension DryRunReport.Alternative: Encodable {
    private enum CodingKeys: String, CodingKey {
        case versions, cost
    }

    /// Writes the versions and the cost.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(versions, forKey: .versions)
        try c.encode(cost, forKey: .cost)
    }
}

/// A fused segment; its ``DryRunReport/Segment/moved`` work is written as `movedAcrossHooks`, which
/// says what it is.
extension DryRunReport.Segment: Encodable {
    private enum CodingKeys: String, CodingKey {
        case from, to, steps, sql, tablesRebuilt, movedAcrossHooks, notFused
    }

    /// Writes the segment.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(from, forKey: .from)
        try c.encode(to, forKey: .to)
        try c.encode(steps, forKey: .steps)
        try c.encode(sql, forKey: .sql)
        try c.encode(tablesRebuilt, forKey: .tablesRebuilt)
        try c.encode(moved, forKey: .movedAcrossHooks)
        try c.encode(notFused, forKey: .notFused)
    }
}

/// A risk: its kind, message, and the step and count when there are some.
extension DryRunReport.Risk: Encodable {
    private enum CodingKeys: String, CodingKey {
        case kind, message, step, count
    }

    /// Writes the risk.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind.rawValue, forKey: .kind)
        try c.encode(message, forKey: .message)
        try c.encodeIfPresent(step, forKey: .step)
        try c.encodeIfPresent(count, forKey: .count)
    }
}
