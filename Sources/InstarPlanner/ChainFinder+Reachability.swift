import InstarInference
@_spi(Layouts) import InstarModel

/// Whether every older version of an ordered plan reaches the target, for `instar lint`.
extension ChainFinder {
    /// The gaps ``cheapestChain(from:to:)`` would report from each of `starts` (version indexes of an
    /// ordered plan) to `end`: empty where a chain exists.
    ///
    /// The same verdicts as one search per start, in time linear in the versions rather than cubic (one
    /// shortest-path search of O(N²) per start): a start's chain is its first segment, to the next version
    /// where every chain stops, followed by that version's own chain, so the gaps of the rest are that
    /// version's, computed once; and whether a segment can be crossed comes from one backward pass per
    /// segment end over the steps and skips into it (``SegmentReach``). A start whose stops differ from the
    /// next stop's (a stage or mapping model from it ending further) falls back to the search.
    package func gapsToTarget(from starts: [Int], to end: Int) -> [[NoChain.Gap]] {
        let stops = ChainStops(graph: graph, end: end)
        var reaches: [Int: SegmentReach] = [:]
        var tails: [Int: [NoChain.Gap]] = [:]
        func tail(from s: Int) -> [NoChain.Gap] {
            // The stops from s onward, as far as they are not known yet; then their gaps back to front.
            var path = [s]
            while let last = path.last, last < end, tails[last] == nil, let next = stops.next(after: last) {
                path.append(next)
            }
            for k in path.reversed() where k < end && tails[k] == nil {
                guard let next = stops.next(after: k) else {
                    tails[k] = searchedGaps(from: k, to: end)
                    continue
                }
                if stops.fixedPair[k] == next, graph.step(k, next) != nil {
                    tails[k] = tails[next] ?? []
                    continue
                }
                var reach = reaches[next] ?? SegmentReach(end: next)
                let crossed = reach.reaches(from: k, graph: graph)
                tails[k] = (crossed ? [] : reach.gaps(from: k, graph: graph)) + (tails[next] ?? [])
                reaches[next] = reach
            }
            return s >= end ? [] : tails[s] ?? []
        }
        return starts.map { start in start > end ? searchedGaps(from: start, to: end) : tail(from: start) }
    }

    /// The gaps of one search from `a`, the slow way, for the starts ``ChainStops`` cannot follow.
    private func searchedGaps(from a: Int, to b: Int) -> [NoChain.Gap] {
        do {
            _ = try cheapestChain(from: graph.versions[a].name, to: graph.versions[b].name)
            return []
        } catch {
            return error.gaps
        }
    }
}

/// Where chains to `end` stop, as ``ChainFinder/cheapestChain(from:to:)`` sets its waypoints: pinned
/// versions, and both ends of every mapping model and custom stage within the range.
struct ChainStops {
    let end: Int
    /// The first fixed pair (mapping models first, then stages) from each version, to its end.
    var fixedPair: [Int: Int] = [:]
    /// The ends of every fixed pair from each version.
    private var fixedEnds: [Int: [Int]] = [:]
    /// laterStop[k]: the first stop after k that does not depend on where the chain started (the target, a
    /// pinned version, a fixed pair's start or the end of a pair starting after k).
    private var laterStop: [Int]

    init(graph: VersionGraph, end: Int) {
        self.end = end
        let plan = graph.plan
        var pinned = Set<Int>()
        for name in plan.pinned { if let p = graph.index(of: name) { pinned.insert(p) } }
        for (from, to) in plan.mappings.map({ ($0.from, $0.to) }) + plan.stages.map({ ($0.from, $0.to) }) {
            guard let a = graph.index(of: from), let b = graph.index(of: to), b <= end, a < b else { continue }
            fixedEnds[a, default: []].append(b)
            if fixedPair[a] == nil { fixedPair[a] = b }
        }
        laterStop = [Int](repeating: end, count: max(end, 0) + 1)
        var stop = end
        for k in stride(from: end - 1, through: 0, by: -1) {
            // A fixed pair starting at k + 1 stops there; its end is further, so it never comes first.
            if k + 1 < end, pinned.contains(k + 1) || fixedEnds[k + 1] != nil { stop = k + 1 }
            laterStop[k] = stop
        }
    }

    /// The next stop of a chain that starts at `k` (< end), when the stops after it are those of a chain
    /// starting there; nil when a fixed pair from `k` ends beyond that stop (its end is a stop only for
    /// chains starting at or before `k`).
    func next(after k: Int) -> Int? {
        let own = fixedEnds[k] ?? []
        let first = min(laterStop[k], own.min() ?? Int.max)
        return own.allSatisfy { $0 == first } ? first : nil
    }
}

/// Which versions before `end` have a chain of lightweight steps and skips to it, as the shortest-path
/// search finds one (skips of at most `maxSkip` versions, never over a mapping model's or stage's own
/// pair): filled backwards from `end`, each version once, and shared by every start whose segment ends
/// there. Also the consecutive pairs that cannot be stepped over, which a failed segment reports.
struct SegmentReach {
    let end: Int
    /// reached[end - k]: whether version k reaches `end`, for k from `end` down to the lowest asked.
    private var reached: [Bool] = [true]
    /// The consecutive pairs found blocked so far, highest first.
    private var blocked: [NoChain.Gap] = []
    private var blockedAt: [Int] = []

    init(end: Int) { self.end = end }

    mutating func reaches(from a: Int, graph: VersionGraph) -> Bool {
        let maxSkip = graph.plan.options.maxSkip
        while end - reached.count + 1 > a {
            let k = end - reached.count
            var found = false
            var m = k + 1
            // The single step first, then skips, nearest first; only towards versions that reach `end`.
            while !found, m <= min(end, k + maxSkip) {
                if reached[end - m], !graph.isFixed(k, m), graph.step(k, m) != nil { found = true }
                m += 1
            }
            reached.append(found)
            if graph.step(k, k + 1) == nil {
                blockedAt.append(k)
                blocked.append(
                    NoChain.Gap(
                        from: graph.versions[k].name, to: graph.versions[k + 1].name,
                        blocking: graph.diff(k, k + 1).blockingChanges))
            }
        }
        return reached[end - a]
    }

    /// The blocked consecutive pairs in [a, end], in order (``ChainFinder/blockingGaps(from:to:)``); after
    /// ``reaches(from:graph:)`` for `a`.
    func gaps(from a: Int, graph: VersionGraph) -> [NoChain.Gap] {
        let count = blockedAt.prefix { $0 >= a }.count
        return Array(blocked.prefix(count).reversed())
    }
}
