import InstarInference
import InstarModel

/// Chains over the versions of an Xcode bundle (``Plan/versionsAreOrdered`` false).
extension ChainFinder {
    /// The chain over the versions of an Xcode bundle, which have no order but the target: what
    /// Core Data does at launch. Mapping models that lead from the store's version to the target, one
    /// after the other, are used first; else one inferred step goes straight to the target. Other
    /// versions are passed through only when going straight would drop stored data that a chain
    /// through them keeps: a renaming identifier names the property's previous name only, so a
    /// property renamed in every version loses its values on a direct step (jeffreybergier's bundle).
    /// Which chain that is follows from the models' renaming identifiers and mapping models, never
    /// from version names.
    func unorderedChain(from start: Int, to end: Int) throws(NoChain) -> Chain {
        let plan = graph.plan
        var mapped: [Step] = []
        var current = start
        var visited: Set<Int> = [start]
        while current != end,
            let mapping = plan.mappings.first(where: { plan.index(of: $0.from) == current }),
            let next = plan.index(of: mapping.to), visited.insert(next).inserted,
            let step = graph.step(current, next)
        {
            mapped.append(step)
            current = next
        }
        if current == end { return Chain(steps: mapped, stepCost: plan.options.stepCost) }
        if let direct = graph.step(start, end), Self.losses(direct) == 0 {
            return Chain(steps: [direct], stepCost: plan.options.stepCost)
        }
        if let path = leastLossPath(from: start, to: end) { return Chain(steps: path, stepCost: plan.options.stepCost) }
        let from = graph.versions[start].name, to = graph.versions[end].name
        throw NoChain(
            from: from, to: to, gaps: [NoChain.Gap(from: from, to: to, blocking: graph.diff(start, end).blockingChanges)],
            message: "no inferable step leads from \(from) to \(to), and no mapping model leads there")
    }

    /// How many entities and properties an inferred step removes (their stored values go); a mapping
    /// model's step says itself what becomes of each, and counts none.
    static func losses(_ step: Step) -> Int {
        guard step.kind == .lightweight else { return 0 }
        return step.diff.changes.filter { [.entityRemoved, .attributeRemoved, .relationshipRemoved].contains($0.kind) }.count
    }

    /// Bundles with more versions than this are not searched for a lossless chain (each candidate
    /// step costs a diff, and the search may try every pair): their chain is the direct step.
    static let unorderedSearchLimit = 64

    /// Among chains of steps between any versions (Dijkstra over every pair), the one that removes
    /// least, then has fewest steps, then visits lower version indexes (deterministic).
    func leastLossPath(from a: Int, to b: Int) -> [Step]? {
        let count = graph.versions.count
        guard count <= Self.unorderedSearchLimit else { return graph.step(a, b).map { [$0] } }
        var best: [Int: (loss: Int, steps: Int)] = [a: (0, 0)]
        var previous: [Int: Step] = [:]
        var done: Set<Int> = []
        while true {
            let open = best.filter { !done.contains($0.key) }
            guard let node = open.min(by: { ($0.value.loss, $0.value.steps, $0.key) < ($1.value.loss, $1.value.steps, $1.key) })?.key
            else { return nil }
            if node == b { break }
            done.insert(node)
            let here = best[node]!
            for next in 0..<count where next != node && !done.contains(next) {
                guard let step = graph.step(node, next) else { continue }
                let cost = (loss: here.loss + Self.losses(step), steps: here.steps + 1)
                if let known = best[next], (known.loss, known.steps) <= (cost.loss, cost.steps) { continue }
                best[next] = cost
                previous[next] = step
            }
        }
        var path: [Step] = []
        var node = b
        while node != a, let step = previous[node], let from = graph.plan.index(of: step.from) {
            path.append(step)
            node = from
        }
        return path.reversed()
    }
}
