import InstarInference
@_spi(Layouts) import InstarModel
import InstarPlanner
import Testing
import InstarTestSupport

/// Issue 41: lint's work grows linearly with the versions, and its verdicts are those of one chain search
/// per version.
@Suite struct ScalingTests {
    /// Version `i` of a fixed-size model: one entity with `title` and two slots; version i renames slot
    /// i % 2 (a renaming identifier names its previous name, and stays in the next version, so a skip of
    /// two versions keeps every value, a longer one does not). Each version in `blocked` changes `title`'s
    /// type (string ↔ int64), a step that cannot be inferred.
    func history(_ count: Int, blocked: Set<Int> = []) throws -> [Model] {
        func name(_ slot: Int, _ i: Int) -> String {
            let last = stride(from: i, through: 2, by: -1).first { $0 % 2 == slot }
            return last.map { "s\(slot)_\($0)" } ?? "s\(slot)_0"
        }
        return try (1...count).map { i in
            let title = blocked.filter { $0 <= i }.count % 2 == 1 ? "int64?" : "string?"
            let slots = (0..<2).map { slot -> String in
                let current = name(slot, i)
                let previous = current.hasSuffix("_0") ? nil : name(slot, Int(current.split(separator: "_")[1])! - 1)
                return previous.map { "      \(current): {type: int64, optional: true, renamedFrom: \($0)}" } ?? "      \(current): int64?"
            }
            return try model(
                "name: V\(i)\nentities:\n  E:\n    attributes:\n      title: \(title)\n" + slots.joined(separator: "\n") + "\n",
                name: "V\(i)")
        }
    }

    /// The gaps one search per start reports, the way lint used to ask.
    func searched(_ plan: Plan, _ graph: VersionGraph) -> [[String]] {
        let finder = ChainFinder(graph: graph)
        return plan.versions.dropLast().map { version in
            do throws(NoChain) {
                _ = try finder.cheapestChain(from: version.name, to: plan.versions.last!.name)
                return []
            } catch {
                return error.gaps.map { "\($0.from)→\($0.to)" }
            }
        }
    }

    func shared(_ plan: Plan, _ graph: VersionGraph) -> [[String]] {
        ChainFinder(graph: graph).gapsToTarget(from: Array(0..<(plan.versions.count - 1)), to: plan.versions.count - 1)
            .map { $0.map { "\($0.from)→\($0.to)" } }
    }

    @Test func lintInfersDiffsLinearlyInTheVersions() throws {
        var counts: [Int: Int] = [:]
        for n in [40, 80, 160] {
            var plan = Plan(name: "p", file: "p.yaml", versions: try history(n, blocked: [n / 2]))
            plan.options.maxSkip = 4
            let graph = VersionGraph(plan: plan)
            let findings = PlanLint.check(plan, graph: graph)
            #expect(findings.contains { $0.check == .unreachableTarget })
            counts[n] = graph.diffCount
        }
        // Each single step once (reachability, renames and raw SQL share them), plus the skips over the
        // blocked step (at most maxSkip² of them, however long the plan); one search per version used to
        // try about maxSkip skips from each.
        for n in [40, 80, 160] { #expect(counts[n]! <= n - 1 + 4 * 4, "\(counts)") }
    }

    @Test func sharedChainsGiveEachVersionsOwnSearchVerdict() throws {
        let versions = try history(14, blocked: [5, 11])
        let stage = { (from: Int, to: Int) in CustomStage(from: "V\(from)", to: "V\(to)", after: ["fill"]) }
        let plans = [
            Plan(name: "p", file: "p.yaml", versions: versions),
            Plan(name: "p", file: "p.yaml", versions: versions, pinned: ["V3", "V9"]),
            Plan(name: "p", file: "p.yaml", versions: versions, stages: [stage(4, 5)], hooks: ["fill": .sql(["SELECT 1"])]),
            // A stage over a pinned version, and two stages from one version: starts whose stops differ.
            Plan(
                name: "p", file: "p.yaml", versions: versions, pinned: ["V7"], stages: [stage(6, 8), stage(2, 4), stage(2, 6)],
                hooks: ["fill": .sql(["SELECT 1"])]),
            Plan(name: "p", file: "p.yaml", versions: try history(14), pinned: ["V2", "V13"]),
        ]
        for plan in plans {
            #expect(shared(plan, VersionGraph(plan: plan)) == searched(plan, VersionGraph(plan: plan)))
        }
    }

    @Test func aBlockedStepBridgedByASkipStrandsNobody() throws {
        // V2 → V3 changes a type back and forth (V2 int, V3 string again as V1): V1 → V3 needs no change.
        let plan = Plan(name: "p", file: "p.yaml", versions: try history(6, blocked: [2, 3]))
        let graph = VersionGraph(plan: plan)
        let verdicts = shared(plan, graph)
        #expect(verdicts == searched(plan, VersionGraph(plan: plan)))
        #expect(verdicts.contains { $0.isEmpty } && verdicts.contains { !$0.isEmpty }, "\(verdicts)")
    }

    @Test func forgottenSkipsAreInferredAgainButSingleStepsAreKept() throws {
        let graph = VersionGraph(plan: Plan(name: "p", file: "p.yaml", versions: try history(5)))
        _ = graph.diff(0, 1)
        _ = graph.diff(0, 3)
        #expect(graph.diffCount == 2)
        graph.forgetSkips(from: 0)
        _ = graph.diff(0, 1)
        #expect(graph.diffCount == 2)
        _ = graph.diff(0, 3)
        #expect(graph.diffCount == 3)
    }

    @Test func forgottenStepsAreInferredAgain() throws {
        let graph = VersionGraph(plan: Plan(name: "p", file: "p.yaml", versions: try history(5)))
        _ = graph.diff(0, 1)
        _ = graph.diff(1, 2)
        #expect(graph.diffCount == 2)
        graph.forgetSteps(from: 0)
        _ = graph.diff(1, 2)
        #expect(graph.diffCount == 2)
        _ = graph.diff(0, 1)
        #expect(graph.diffCount == 3)
    }

    /// Every step from `i` as `instar graph` asks for it (one trace, ends in increasing order) and as a
    /// chain search does (each skip walked on its own): whether each exists.
    func tracedAndWalked(_ plan: Plan) -> (traced: [[Bool]], walked: [[Bool]]) {
        let traced = VersionGraph(plan: plan), walked = VersionGraph(plan: plan)
        let n = plan.versions.count
        var result: ([[Bool]], [[Bool]]) = ([], [])
        for i in 0..<(n - 1) {
            var trace = ChainTrace(from: i, in: traced)
            result.0.append(((i + 1)..<n).map { traced.step(i, $0, following: &trace) != nil })
            result.1.append(((i + 1)..<n).map { walked.step(i, $0) != nil })
        }
        return result
    }

    @Test func aTraceAllowsTheSkipsThatWalkingAllows() throws {
        // Skips of two versions keep every value, longer ones lose a renamed slot's; V5 and V11 block.
        for versions in [try history(14), try history(14, blocked: [5, 11])] {
            let (traced, walked) = tracedAndWalked(Plan(name: "p", file: "p.yaml", versions: versions))
            #expect(traced == walked)
            #expect(traced.joined().contains(true) && traced.joined().contains(false), "\(traced)")
        }
    }

    @Test func aTraceStopsFollowingADroppedEntity() throws {
        // V1 → V3 keeps E as it is, but V2 drops it: stepping loses E's rows, so the skip is refused.
        let versions = try [
            model("name: V1\nentities:\n  E:\n    attributes:\n      a: string?\n  G:\n    attributes:\n      b: string?\n", name: "V1"),
            model("name: V2\nentities:\n  G:\n    attributes:\n      b: string?\n", name: "V2"),
            model("name: V3\nentities:\n  E:\n    attributes:\n      a: string?\n  G:\n    attributes:\n      b: string?\n", name: "V3"),
        ]
        let (traced, walked) = tracedAndWalked(Plan(name: "p", file: "p.yaml", versions: versions))
        #expect(traced == walked)
        #expect(traced[0] == [true, false])
    }

    @Test func unchangedEntitiesStillMapEveryPropertyToItself() throws {
        // E is the same in both versions (its property list is rebuilt when asked for), F changes.
        let old = try model("name: V1\nentities:\n  E:\n    attributes:\n      a: string?\n      b: int64?\n  F:\n    attributes:\n      c: string?\n", name: "V1")
        let new = try model("name: V2\nentities:\n  E:\n    attributes:\n      a: string?\n      b: int64?\n  F:\n    attributes:\n      d: string?\n", name: "V2")
        let diff = ModelDiff(from: old, to: new)
        let e = diff.mappings.first { $0.destination == "E" }
        #expect(e?.source == "E")
        #expect(e?.properties.map(\.source) == old.properties(of: "E"))
        #expect(e?.properties.map(\.destination) == old.properties(of: "E"))
        #expect(diff.mappings.first { $0.destination == "F" }?.properties.count == 2)
        #expect(diff.mappings.map(\.destination) == ["E", "F"])
        #expect(diff.destination(ofProperty: "b", in: "E") == "b")
    }
}
