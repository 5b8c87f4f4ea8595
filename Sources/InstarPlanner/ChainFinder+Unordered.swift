import InstarInference
@_spi(Layouts) import InstarModel

/// Chains over the versions of an Xcode bundle (``Plan/versionsAreOrdered`` false).
extension ChainFinder {
    /// The chain over the versions of an Xcode bundle, which have no order but the target.
    ///
    /// Without mapping models it is what Core Data does at launch: one inferred step straight to the
    /// target, through other versions only where going straight would drop stored data that a chain
    /// through them keeps (a renaming identifier names a property's previous name only, so a property
    /// renamed in every version loses its values on a direct step: jeffreybergier's bundle).
    ///
    /// With mapping models it is the walk apps that ship them run (``mappingWalk(from:to:)``). Which
    /// chain it is follows from the models' renaming identifiers and mapping models, never from
    /// version names.
    func unorderedChain(from start: Int, to end: Int) throws(NoChain) -> Chain {
        let walk = mappingWalk(from: start, to: end)
        if walk.current == end { return Chain(steps: walk.steps, stepCost: graph.plan.options.stepCost) }
        let tail = try inferredChain(from: walk.current, to: end)
        return Chain(steps: walk.steps + tail, stepCost: graph.plan.options.stepCost)
    }

    /// The inferred way from `start` to `end` where no mapping model lies on it: straight, else the
    /// chain that drops least.
    private func inferredChain(from start: Int, to end: Int) throws(NoChain) -> [Step] {
        if var direct = graph.step(start, end), Self.losses(direct) == 0 {
            direct.choice = .direct
            return [direct]
        }
        if let path = leastLossPath(from: start, to: end) {
            return path.map { step in
                var step = step
                step.choice = path.count == 1 ? .direct : .keepsStoredValues
                return step
            }
        }
        let from = graph.versions[start].name, to = graph.versions[end].name
        throw NoChain(
            from: from, to: to, gaps: [NoChain.Gap(from: from, to: to, blocking: graph.diff(start, end).blockingChanges)],
            reason: .noStepOrMapping)
    }

    /// The walk of an app that ships a chain of mapping models, as far as mapping models lead.
    ///
    /// - From a version where a mapping model starts, that mapping model is the step (apps whose
    ///   releases each ship one walk them one by one; Core Data itself would only infer).
    /// - From a version where none starts, while mapping models further on lead to the target, the
    ///   step is inferred to where the next of them starts — unless an inferred step can go further:
    ///   past mapping models that only copy values (``MappingModel/onlyCopiesValues``), dropping
    ///   nothing, and holding on the store's rows (a condition on rows is taken as held only when the
    ///   store's counts say so, from the store's own version).
    ///
    /// Returns the steps and where they end: the target, or a version from which no mapping model
    /// leads further (the rest is inferred).
    func mappingWalk(from start: Int, to end: Int) -> (steps: [Step], current: Int) {
        let plan = graph.plan
        var steps: [Step] = []
        var current = start
        var visited: Set<Int> = [start]
        while current != end {
            if let mapping = plan.mappings.first(where: { mapping in
                plan.index(of: mapping.from) == current && plan.index(of: mapping.to).map { !visited.contains($0) } == true
            }), let next = plan.index(of: mapping.to), var step = graph.step(current, next) {
                step.choice = .mappingModel
                steps.append(step)
                visited.insert(next)
                current = next
                continue
            }
            // Where mapping models further on lead to the target, longest run first: the first is the
            // walk's next version, the others (and the target itself) are places to jump to.
            let runs = (0..<graph.versions.count)
                .filter { !visited.contains($0) }
                .compactMap { candidate in mappingRun(from: candidate, to: end, avoiding: visited).map { (candidate, $0) } }
                .sorted { ($0.1.count, $1.0) > ($1.1.count, $0.0) }
            guard let walkNext = runs.first, !walkNext.1.isEmpty else { break }
            var reason = StepChoice.WalkReason.notInferable
            var jumped = false
            for (candidate, run) in runs.reversed() where run.count < walkNext.1.count {
                guard var step = graph.step(current, candidate), step.kind == .lightweight, Self.losses(step) == 0 else { continue }
                let skipped = walkNext.1.prefix(walkNext.1.count - run.count)
                if let computing = skipped.first(where: { !$0.model.onlyCopiesValues }) {
                    reason = .mappingRunsCode(computing.model.name)
                    continue
                }
                if let unmet = unmetCondition(of: step, from: current, storeVersion: start) {
                    reason = .needsRows(unmet.description)
                    continue
                }
                step.choice = .inferredPast(mappingModels: skipped.map(\.model.name))
                steps.append(step)
                visited.insert(candidate)
                current = candidate
                jumped = true
                break
            }
            if jumped { continue }
            guard var step = graph.step(current, walkNext.0) else { break }
            step.choice = .walk(because: reason)
            steps.append(step)
            visited.insert(walkNext.0)
            current = walkNext.0
        }
        return (steps, current)
    }

    /// The mapping models that lead from `version` to `end` one after the other (empty for `end`
    /// itself), or nil when they do not get there without passing `avoiding`.
    private func mappingRun(from version: Int, to end: Int, avoiding visited: Set<Int>) -> [PlannedMapping]? {
        let plan = graph.plan
        var run: [PlannedMapping] = []
        var current = version
        var seen: Set<Int> = [version]
        while current != end {
            guard let mapping = plan.mappings.first(where: { plan.index(of: $0.from) == current }),
                let next = plan.index(of: mapping.to), !visited.contains(next), seen.insert(next).inserted
            else { return nil }
            run.append(mapping)
            current = next
        }
        return run
    }

    /// A condition on rows that `step` needs and the store is not known to meet. Only the store's own
    /// version has known rows (a mapping model on the way may add some); a condition holds when the
    /// entity it is about has no rows there.
    private func unmetCondition(of step: Step, from version: Int, storeVersion: Int) -> DataCondition? {
        for change in step.diff.changes {
            guard let condition = change.verdict.condition else { continue }
            let entity: String
            switch condition {
            case .noNulls(let e, _), .noRows(let e), .unique(let e, _), .linked(let e, _, _): entity = e
            }
            let canonical = graph.versions[version].entity(named: entity)?.canonicalName ?? entity
            guard version == storeVersion, graph.costModel.knownRows(ofEntity: canonical) == 0 else { return condition }
        }
        return nil
    }

    /// How many entities and properties an inferred step removes (their stored values go); a mapping
    /// model's step says itself what becomes of each, and counts none.
    package static func losses(_ step: Step) -> Int {
        guard step.kind == .lightweight else { return 0 }
        return step.diff.changes.filter { [.entityRemoved, .attributeRemoved, .relationshipRemoved].contains($0.kind) }.count
    }

    /// Bundles with more versions than this are not searched for a lossless chain (each candidate
    /// step costs a diff, and the search may try every pair): their chain is the direct step.
    package static let unorderedSearchLimit = 64

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
