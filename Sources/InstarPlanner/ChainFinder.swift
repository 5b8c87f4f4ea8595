import InstarInference
import InstarModel

/// A sequence of steps from one version to another, and what it costs in total.
public struct Chain: Sendable {
    public var steps: [Step]
    public var stepCost: Int

    /// Rows rewritten plus the per-step cost: what the planner minimises.
    public var totalCost: Int { steps.reduce(0) { $0 + $1.cost.rowsRewritten + stepCost } }
    public var versions: [String] { (steps.first.map { [$0.from] } ?? []) + steps.map(\.to) }
}

/// Why no chain reaches the target, with each blocking pair and its reasons.
public struct NoChain: Error, Sendable, CustomStringConvertible {
    public struct Gap: Sendable {
        public var from: String
        public var to: String
        public var blocking: [Change]
    }

    public var from: String
    public var to: String
    public var gaps: [Gap]
    public var message: String

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
public struct ChainFinder {
    public let graph: VersionGraph

    public init(graph: VersionGraph) {
        self.graph = graph
    }

    public func cheapestChain(from: String, to: String) throws(NoChain) -> Chain {
        let plan = graph.plan
        guard let start = plan.index(of: from), let end = plan.index(of: to) else {
            throw NoChain(from: from, to: to, gaps: [], message: "unknown version '\(plan.index(of: from) == nil ? from : to)'")
        }
        guard start <= end else {
            throw NoChain(
                from: from, to: to, gaps: [],
                message: "the store is at \(from), newer than the target \(to): Instar migrates forward only")
        }
        // Waypoints: pinned versions and the ends of custom stages strictly inside the range.
        var waypoints = Set([start, end])
        var stageEdges: [Int: Int] = [:]
        for stage in plan.stages {
            guard let a = plan.index(of: stage.from), let b = plan.index(of: stage.to), a >= start, b <= end else { continue }
            waypoints.insert(a)
            waypoints.insert(b)
            stageEdges[a] = b
        }
        for pinned in plan.pinned {
            if let p = plan.index(of: pinned), p > start, p < end { waypoints.insert(p) }
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
            throw NoChain(
                from: from, to: to, gaps: gaps,
                message: "no chain of inferable steps leads from \(from) to \(to)")
        }
        return Chain(steps: steps, stepCost: plan.options.stepCost)
    }

    /// Dijkstra over lightweight steps within [a, b]; a step may not jump over a custom stage's
    /// start because all waypoints are segment ends.
    func shortestPath(from a: Int, to b: Int) -> [Step]? {
        guard a < b else { return a == b ? [] : nil }
        let stepCost = graph.plan.options.stepCost
        var best: [Int: (cost: Int, steps: Int, previous: Int, step: Step?)] = [a: (0, 0, -1, nil)]
        var done = Set<Int>()
        while true {
            guard
                let (node, entry) = best.filter({ !done.contains($0.key) })
                    .min(by: { ($0.value.cost, $0.value.steps, $0.key) < ($1.value.cost, $1.value.steps, $1.key) })
            else { return nil }
            if node == b { break }
            done.insert(node)
            for next in (node + 1)...min(b, node + graph.plan.options.maxSkip) where !done.contains(next) {
                guard graph.stage(node, next) == nil, let step = graph.step(node, next) else { continue }
                let cost = entry.cost + step.cost.rowsRewritten + stepCost
                let count = entry.steps + 1
                if let current = best[next], (current.cost, current.steps) <= (cost, count) { continue }
                best[next] = (cost, count, node, step)
            }
        }
        var path: [Step] = []
        var node = b
        while node != a, let entry = best[node], let step = entry.step {
            path.append(step)
            node = entry.previous
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
    /// single direct step, when they exist and differ from the choice.
    public func alternatives(to chosen: Chain) -> [Chain] {
        guard let first = chosen.steps.first, let last = chosen.steps.last,
            let a = graph.plan.index(of: first.from), let b = graph.plan.index(of: last.to)
        else { return [] }
        var result: [Chain] = []
        let everyVersion = (a..<b).compactMap { graph.step($0, $0 + 1) }
        if everyVersion.count == b - a, everyVersion.map(\.to) != chosen.steps.map(\.to) {
            result.append(Chain(steps: everyVersion, stepCost: chosen.stepCost))
        }
        if b - a > 1, chosen.steps.count > 1, let direct = graph.step(a, b), graph.stage(a, b) == nil {
            result.append(Chain(steps: [direct], stepCost: chosen.stepCost))
        }
        return result
    }
}
