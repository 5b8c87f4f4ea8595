import InstarInference
@_spi(Layouts) import InstarModel

/// A sequence of steps from one version to another, and what it costs in total.
package struct Chain: Sendable {
    /// The steps in order; empty when the store is already at the target.
    package var steps: [Step]
    /// The plan's cost of one step in rows (``PlanOptions/stepCost``), added per step to ``totalCost``.
    package var stepCost: Int

    /// Rows rewritten plus the per-step cost: what the planner minimises.
    package var totalCost: Int { steps.reduce(0) { $0 + $1.cost.rowsRewritten + stepCost } }
    /// The versions the chain passes through, the start and the target included; empty for no steps.
    package var versions: [String] { (steps.first.map { [$0.from] } ?? []) + steps.map(\.to) }
}

/// Why no chain reaches the target, with each blocking pair and its reasons.
public struct NoChain: InstarError, CustomStringConvertible {
    /// Two adjacent versions with no step between them: their diff cannot be inferred and no stage covers it.
    public struct Gap: Sendable {
        /// The version the gap starts at.
        public var from: String
        /// The version the gap ends at.
        public var to: String
        /// The changes that keep the step from being inferred: what a hook or a stage must handle.
        public var blocking: [Change]
    }

    /// Why no chain was found.
    public enum Reason: Sendable, Hashable {
        /// The named version (the store's or the target) is none of the plan's.
        case unknownVersion(String)
        /// The store is at a version newer than the target: Instar migrates forward only.
        case storeIsNewer
        /// No chain of inferable steps (and stages) leads to the target: ``NoChain/gaps`` says where.
        case noInferableChain
        /// Versions without an order (a bundle): no inferable step and no mapping model leads to the
        /// target; the one gap is the direct step.
        case noStepOrMapping
    }

    /// The version the search started from (the store's).
    public var from: String
    /// The version it had to reach (the target).
    public var to: String
    /// Each pair no chain crosses; empty when the failure is of another kind (an unknown version, a
    /// store newer than the target), which ``reason`` says.
    public var gaps: [Gap]
    /// Why no chain was found.
    public var reason: Reason

    /// The failure in a sentence; ``description`` adds the gaps and their blocking changes.
    public var message: String {
        switch reason {
        case .unknownVersion(let name): "unknown version '\(name)'"
        case .storeIsNewer: "the store is at \(from), newer than the target \(to): Instar migrates forward only"
        case .noInferableChain: "no chain of inferable steps leads from \(from) to \(to)"
        case .noStepOrMapping: "no inferable step leads from \(from) to \(to), and no mapping model leads there"
        }
    }

    public var description: String {
        var lines = [message]
        for gap in gaps {
            lines.append("  \(gap.from) → \(gap.to):")
            lines += gap.blocking.map { "    \($0.subject): \($0.verdict.reason)" }
        }
        return lines.joined(separator: "\n")
    }
}

/// Finds the cheapest chain from the store's version to the target.
///
/// The chain must cross every custom stage between the two versions and stop at every pinned version,
/// so the search runs segment by segment between those waypoints. Within a segment it is a shortest
/// path over lightweight steps, skips included (Dijkstra; ties go to fewer steps, then to the earlier
/// version, so the result is deterministic).
package struct ChainFinder {
    package let graph: VersionGraph

    package init(graph: VersionGraph) {
        self.graph = graph
    }

    package func cheapestChain(from: String, to: String) throws(NoChain) -> Chain {
        let plan = graph.plan
        guard let start = graph.index(of: from), let end = graph.index(of: to) else {
            throw NoChain(from: from, to: to, gaps: [], reason: .unknownVersion(graph.index(of: from) == nil ? from : to))
        }
        if !plan.versionsAreOrdered { return try unorderedChain(from: start, to: end) }
        guard start <= end else {
            throw NoChain(from: from, to: to, gaps: [], reason: .storeIsNewer)
        }
        // Waypoints: pinned versions and the ends of custom stages strictly inside the range.
        var waypoints = Set([start, end])
        var stageEdges: [Int: Int] = [:]
        // Mapping models first: Core Data uses one for its pair before it infers anything, so a chain
        // stops at both its versions and no inferred step jumps over it.
        let fixed = plan.mappings.map { ($0.from, $0.to) } + plan.stages.map { ($0.from, $0.to) }
        for (from, to) in fixed {
            guard let a = graph.index(of: from), let b = graph.index(of: to), a >= start, b <= end, a < b else { continue }
            waypoints.insert(a)
            waypoints.insert(b)
            if stageEdges[a] == nil { stageEdges[a] = b }
        }
        for pinned in plan.pinned {
            if let p = graph.index(of: pinned), p > start, p < end { waypoints.insert(p) }
        }
        let ordered = waypoints.sorted()
        var steps: [Step] = []
        var gaps: [NoChain.Gap] = []
        for (a, b) in zip(ordered, ordered.dropFirst()) {
            if stageEdges[a] == b, let step = graph.step(a, b) {
                steps.append(step)
                continue
            }
            if let path = shortestPath(from: a, to: b) {
                steps += path
            } else {
                gaps += blockingGaps(from: a, to: b)
            }
        }
        if !gaps.isEmpty {
            throw NoChain(from: from, to: to, gaps: gaps, reason: .noInferableChain)
        }
        return Chain(steps: steps, stepCost: plan.options.stepCost)
    }

    /// The cheapest chain of lightweight steps within [a, b] (no step may jump over a custom stage's
    /// start, because all waypoints are segment ends).
    ///
    /// Inferring every possible skip of a long history costs a diff per pair, so the search is lazy: a
    /// skip over versions whose single steps all exist is assumed possible, at the cost of the dearest
    /// step it replaces; the skips on the chain found are then checked for real (inferable, and keeping
    /// everything the single steps keep) and priced exactly, and the search repeats until every step of
    /// the chain is checked. Only when no chain exists that way are all skips tried, to bridge a pair
    /// that cannot be stepped directly.
    func shortestPath(from a: Int, to b: Int) -> [Step]? {
        guard a < b else { return a == b ? [] : nil }
        let maxSkip = graph.plan.options.maxSkip
        graph.prepareSingleSteps(from: a, to: b)
        // Single steps, exactly.
        var single: [Int: Step] = [:]
        for k in a..<b {
            if !graph.isFixed(k, k + 1), let step = graph.step(k, k + 1) { single[k] = step }
        }
        var checked: [Int: [Int: Step?]] = [:]
        func candidates(_ k: Int, exhaustive: Bool) -> [(Int, Int, Bool)] {
            var result: [(Int, Int, Bool)] = []
            var dearest = 0
            var contiguous = true
            for m in (k + 1)...min(b, k + maxSkip) {
                if graph.isFixed(k, m) { continue }
                if let known = checked[k]?[m] {
                    if let step = known { result.append((m, step.cost.rowsRewritten, true)) }
                } else if m == k + 1 {
                    if let step = single[k] { result.append((m, step.cost.rowsRewritten, true)) }
                } else if exhaustive {
                    let step = graph.step(k, m)
                    checked[k, default: [:]][m] = step
                    if let step { result.append((m, step.cost.rowsRewritten, true)) }
                }
                if m - 1 >= k {
                    if let step = single[m - 1] { dearest = max(dearest, step.cost.rowsRewritten) } else { contiguous = false }
                }
                if !exhaustive, m > k + 1, contiguous, checked[k]?[m] == nil {
                    result.append((m, dearest, false))
                }
            }
            return result
        }
        for exhaustive in [false, true] {
            while true {
                guard let path = dijkstra(from: a, to: b, edges: { candidates($0, exhaustive: exhaustive) }) else { break }
                var allChecked = true
                for (k, m, isChecked) in path where !isChecked {
                    checked[k, default: [:]][m] = graph.step(k, m)
                    allChecked = false
                }
                if allChecked {
                    return path.map { k, m, _ in m == k + 1 && checked[k]?[m] == nil ? single[k]! : checked[k]![m]!! }
                }
            }
        }
        return nil
    }

    /// Dijkstra over nodes a…b; `edges(k)` gives (next, cost, checked). Ties: fewer steps, then the
    /// lower version index, so results are deterministic.
    private func dijkstra(from a: Int, to b: Int, edges: (Int) -> [(Int, Int, Bool)]) -> [(Int, Int, Bool)]? {
        let stepCost = graph.plan.options.stepCost
        let count = b - a + 1
        var cost = [Int?](repeating: nil, count: count)
        var steps = [Int](repeating: 0, count: count)
        var previous = [(Int, Bool)?](repeating: nil, count: count)
        var done = [Bool](repeating: false, count: count)
        cost[0] = 0
        var queue = NodeQueue()
        queue.push((0, 0, 0))
        while true {
            // The cheapest node not done, fewer steps then the lower index on ties (stale entries skipped).
            var node: Int?
            while let entry = queue.pop() {
                if !done[entry.node], cost[entry.node] == entry.cost, steps[entry.node] == entry.steps { node = entry.node; break }
            }
            guard let current = node else { return nil }
            if current == count - 1 { break }
            done[current] = true
            for (next, rows, isChecked) in edges(a + current) {
                let i = next - a
                guard !done[i] else { continue }
                let c = cost[current]! + rows + stepCost
                if let existing = cost[i], (existing, steps[i]) <= (c, steps[current] + 1) { continue }
                cost[i] = c
                steps[i] = steps[current] + 1
                previous[i] = (current, isChecked)
                queue.push((c, steps[i], i))
            }
        }
        var path: [(Int, Int, Bool)] = []
        var node = count - 1
        while node != 0, let (from, isChecked) = previous[node] {
            path.append((a + from, a + node, isChecked))
            node = from
        }
        return path.reversed()
    }

    /// The consecutive pairs in [a, b] that cannot be stepped over, with their blocking changes.
    func blockingGaps(from a: Int, to b: Int) -> [NoChain.Gap] {
        var gaps: [NoChain.Gap] = []
        for k in a..<b where graph.step(k, k + 1) == nil {
            let d = graph.diff(k, k + 1)
            gaps.append(NoChain.Gap(from: graph.versions[k].name, to: graph.versions[k + 1].name, blocking: d.blockingChanges))
        }
        return gaps
    }

    /// Other chains worth showing next to the chosen one: stepping through every version, and the
    /// single direct step, when they exist, differ from the choice and obey the plan (stop at every
    /// pinned version and take every custom stage in the range, as ``cheapestChain(from:to:)`` does).
    package func alternatives(to chosen: Chain) -> [Chain] {
        // A bundle's versions have no order to step through.
        guard graph.plan.versionsAreOrdered, let first = chosen.steps.first, let last = chosen.steps.last,
            let a = graph.plan.index(of: first.from), let b = graph.plan.index(of: last.to), a < b
        else { return [] }
        var result: [Chain] = []
        let everyVersion = (a..<b).compactMap { graph.step($0, $0 + 1) }
        if everyVersion.count == b - a, everyVersion.map(\.to) != chosen.steps.map(\.to),
            obeysPlan(everyVersion, from: a, to: b)
        {
            result.append(Chain(steps: everyVersion, stepCost: chosen.stepCost))
        }
        if b - a > 1, chosen.steps.count > 1, let direct = graph.step(a, b), !graph.isFixed(a, b),
            obeysPlan([direct], from: a, to: b)
        {
            result.append(Chain(steps: [direct], stepCost: chosen.stepCost))
        }
        return result
    }

    /// Whether steps from `a` to `b` stop at every pinned version strictly between them and take
    /// every custom stage and mapping model within [a, b].
    func obeysPlan(_ steps: [Step], from a: Int, to b: Int) -> Bool {
        let plan = graph.plan
        let stops = Set(steps.map(\.to))
        for pinned in plan.pinned {
            if let p = plan.index(of: pinned), p > a, p < b, !stops.contains(pinned) { return false }
        }
        // Custom stages and mapping models are taken, never skipped (a chain skipping a mapping model
        // would lose the values it computes).
        let fixed = plan.stages.map { ($0.from, $0.to) } + plan.mappings.map { ($0.from, $0.to) }
        for (from, to) in fixed {
            guard let s = plan.index(of: from), let e = plan.index(of: to), s >= a, e <= b else { continue }
            if !steps.contains(where: { $0.from == from && $0.to == to }) { return false }
        }
        return true
    }
}
