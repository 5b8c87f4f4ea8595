import Foundation
import InstarInference
@_spi(Layouts) import InstarModel
import InstarPlanner
import Testing
import InstarTestSupport

/// Path choice: skips, forced stages, pinned versions, ties and unreachable targets.
@Suite struct PlannerTests {
    /// Version `i` of a model whose attribute list grows: each step adds one optional attribute.
    func growing(_ count: Int) throws -> [Model] {
        try (1...count).map { i in
            let attributes = (1...i).map { "      a\($0): string?" }.joined(separator: "\n")
            return try model("name: V\(i)\nentities:\n  E:\n    attributes:\n\(attributes)\n", name: "V\(i)")
        }
    }

    func chain(_ plan: Plan, _ from: String, _ to: String, cost: any StepCostModel = NominalCostModel()) throws -> Chain {
        try ChainFinder(graph: VersionGraph(plan: plan, costModel: cost)).cheapestChain(from: from, to: to)
    }

    @Test func skipsVersionsWhenNothingIsLost() throws {
        let plan = Plan(name: "p", file: "p.yaml", versions: try growing(4))
        let c = try chain(plan, "V1", "V4")
        #expect(c.versions == ["V1", "V4"])
        #expect(c.steps[0].kind == .lightweight)
    }

    @Test func pinnedVersionsAreNeverSkipped() throws {
        let plan = Plan(name: "p", file: "p.yaml", versions: try growing(5), pinned: ["V3"])
        #expect(try chain(plan, "V1", "V5").versions == ["V1", "V3", "V5"])
        // A pinned version outside the range does not matter.
        #expect(try chain(plan, "V4", "V5").versions == ["V4", "V5"])
    }

    @Test func customStagesAreCrossedExactly() throws {
        let stage = CustomStage(from: "V2", to: "V3", after: ["fill"])
        let plan = Plan(
            name: "p", file: "p.yaml", versions: try growing(5), stages: [stage], hooks: ["fill": .sql(["SELECT 1"])])
        let c = try chain(plan, "V1", "V5")
        #expect(c.versions == ["V1", "V2", "V3", "V5"])
        #expect(c.steps.map(\.kind) == [.lightweight, .custom, .lightweight])
        #expect(c.steps[1].stage == stage)
        // Starting after the stage, it is not in the way.
        #expect(try chain(plan, "V3", "V5").versions == ["V3", "V5"])
    }

    @Test func aSkipThatWouldLoseARenamedValueIsRefused() throws {
        // V2 renames color → paint with an identifier naming V1's attribute; V3 keeps `paint` but drops
        // the identifier, so V1 → V3 directly would drop `color` and start `paint` empty.
        let v1 = try model("name: V1\nentities:\n  E:\n    attributes:\n      color: string?\n", name: "V1")
        let v2 = try model("name: V2\nentities:\n  E:\n    attributes:\n      paint: {type: string, optional: true, renamedFrom: color}\n", name: "V2")
        let v3 = try model("name: V3\nentities:\n  E:\n    attributes:\n      paint: string?\n      extra: int32?\n", name: "V3")
        let plan = Plan(name: "p", file: "p.yaml", versions: [v1, v2, v3])
        #expect(ModelDiff(from: v1, to: v3).isInferable)  // Core Data would accept the skip…
        #expect(try chain(plan, "V1", "V3").versions == ["V1", "V2", "V3"])  // …Instar keeps the data.
    }

    @Test func cheaperSkipWinsOverStepsThatRebuild() throws {
        // Cost: each step rewrites 100 rows except the direct one, which rewrites 150.
        struct Costs: StepCostModel {
            func cost(from old: Model, to new: Model, diff: ModelDiff) -> StepCost {
                (old.name, new.name) == ("V1", "V3") ? StepCost(rowsRewritten: 150) : StepCost(rowsRewritten: 100)
            }
        }
        let plan = Plan(name: "p", file: "p.yaml", versions: try growing(3))
        #expect(try chain(plan, "V1", "V3", cost: Costs()).versions == ["V1", "V3"])
        struct Expensive: StepCostModel {
            func cost(from old: Model, to new: Model, diff: ModelDiff) -> StepCost {
                (old.name, new.name) == ("V1", "V3") ? StepCost(rowsRewritten: 500) : StepCost(rowsRewritten: 100)
            }
        }
        #expect(try chain(plan, "V1", "V3", cost: Expensive()).versions == ["V1", "V2", "V3"])
    }

    @Test func tiesPreferFewerStepsThenAreDeterministic() throws {
        // Every step costs 0 rows and the per-step cost is 0: all chains tie on cost.
        var plan = Plan(name: "p", file: "p.yaml", versions: try growing(4))
        plan.options.stepCost = 0
        let first = try chain(plan, "V1", "V4")
        #expect(first.versions == ["V1", "V4"])
        for _ in 0..<5 { #expect(try chain(plan, "V1", "V4").versions == first.versions) }
    }

    @Test func unreachableTargetNamesTheBlockingChange() throws {
        let v1 = try model("name: V1\nentities:\n  E:\n    attributes:\n      n: string?\n", name: "V1")
        let v2 = try model("name: V2\nentities:\n  E:\n    attributes:\n      n: int64?\n", name: "V2")
        let plan = Plan(name: "p", file: "p.yaml", versions: [v1, v2])
        do {
            _ = try chain(plan, "V1", "V2")
            Issue.record("expected no chain")
        } catch let error as NoChain {
            #expect(error.reason == .noInferableChain)
            #expect(error.gaps.count == 1)
            #expect(error.gaps[0].blocking.first?.kind == .attributeTypeChanged)
            #expect(error.gaps[0].blocking.first?.entity == "E" && error.gaps[0].blocking.first?.property == "n")
        }
    }

    @Test func backwardsTargetIsRefused() throws {
        let plan = Plan(name: "p", file: "p.yaml", versions: try growing(3))
        let error = #expect(throws: NoChain.self) { try chain(plan, "V3", "V1") }
        #expect(error?.reason == .storeIsNewer && error?.gaps.isEmpty == true)
        let unknown = #expect(throws: NoChain.self) { try chain(plan, "V1", "V9") }
        #expect(unknown?.reason == .unknownVersion("V9"))
    }

    @Test func maxSkipBoundsSkipDistance() throws {
        var plan = Plan(name: "p", file: "p.yaml", versions: try growing(6))
        plan.options.maxSkip = 2
        let c = try chain(plan, "V1", "V6")
        #expect(c.steps.count == 3)  // five versions to cross, at most two per step
        #expect(c.steps.allSatisfy { plan.index(of: $0.to)! - plan.index(of: $0.from)! <= 2 })
    }
}

/// Plan files: the format, relative paths, and errors with file, line and key.
@Suite struct PlanFileTests {
    func write(_ files: [String: String]) throws -> URL {
        let dir = try temporaryDirectory()
        for (name, text) in files {
            let url = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return dir
    }

    let models = [
        "models/a.yaml": "name: A\nentities:\n  E:\n    attributes:\n      x: string?\n",
        "models/b.yaml": "name: B\nentities:\n  E:\n    attributes:\n      x: string?\n      y: int32?\n",
    ]

    @Test func readsAFullPlanWithRelativePaths() throws {
        let dir = try write(
            models.merging([
                "plan.yaml": """
                name: demo
                layout: instar
                versions: [models/a.yaml, models/b.yaml]
                target: B
                pinned: [B]
                stages:
                  - from: A
                    to: B
                    before: [prepare]
                    after: [fill, batch]
                hooks:
                  prepare:
                    sql: UPDATE "E" SET "x" = 'a' WHERE "x" IS NULL
                  fill:
                    sql: ["UPDATE \\"E\\" SET \\"y\\" = 1", "UPDATE \\"E\\" SET \\"y\\" = 2 WHERE \\"x\\" = 'b'"]
                  batch:
                    batchedSQL: {table: E, size: 500, sql: "UPDATE \\"E\\" SET \\"y\\" = \\"y\\" + 1 WHERE _pk BETWEEN :start AND :end"}
                  external:
                    command: [python3, fix.py]
                  native:
                    swift: nativeHook
                options: {secureDelete: fast, stepCost: 5}
                """
            ]) { a, _ in a })
        defer { try? FileManager.default.removeItem(at: dir) }
        let plan = try PlanFileReader.read(path: dir.appendingPathComponent("plan.yaml").path)
        #expect(plan.name == "demo")
        #expect(plan.versions.map(\.name) == ["A", "B"])
        #expect(plan.target == "B" && plan.pinned == ["B"])
        #expect(plan.stages == [CustomStage(from: "A", to: "B", before: ["prepare"], after: ["fill", "batch"])])
        #expect(plan.hooks["fill"] == .sql(["UPDATE \"E\" SET \"y\" = 1", "UPDATE \"E\" SET \"y\" = 2 WHERE \"x\" = 'b'"]))
        #expect(plan.hooks["batch"] == .batchedSQL(table: "E", sql: "UPDATE \"E\" SET \"y\" = \"y\" + 1 WHERE _pk BETWEEN :start AND :end", batchSize: 500))
        #expect(plan.hooks["external"] == .command(["python3", "fix.py"]))
        #expect(plan.hooks["native"] == .swift("nativeHook"))
        #expect(plan.options.secureDelete == .fast && plan.options.stepCost == 5)
    }

    func problems(_ plan: String) throws -> [ModelProblem] {
        let dir = try write(models.merging(["plan.yaml": plan]) { a, _ in a })
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            _ = try PlanFileReader.read(path: dir.appendingPathComponent("plan.yaml").path)
            return []
        } catch {
            return error.problems
        }
    }

    /// A hook named with a NUL would reach the journal and the printed plan: refused at its key.
    @Test func aHookNameWithANulIsRefusedAtItsLine() throws {
        let found = try problems(
            "versions: [models/a.yaml, models/b.yaml]\nstages:\n  - {from: A, to: B, after: [\"fi\\0ll\"]}\nhooks:\n  \"fi\\0ll\": {sql: \"SELECT 1\"}\n")
        let problem = try #require(found.first { $0.kind == .invalidName }, "\(found)")
        #expect(problem.value == "fi\u{0}ll" && problem.location?.line == 5, "\(problem)")
        #expect(problem.message.hasPrefix("hook name 'fi\\u{0}ll'"))
    }

    @Test func unknownVersionNamesLineAndSuggests() throws {
        let found = try problems("versions: [models/a.yaml, models/b.yaml]\nstages:\n  - from: A\n    to: C\n")
        #expect(found.count == 1)
        #expect(found[0].location?.line == 4)
        #expect(found[0].location?.file.hasSuffix("plan.yaml") == true)
        #expect(found[0].kind == .invalidValue && found[0].value == "C")
        #expect(found[0].hint?.contains("did you mean 'A'") == true || found[0].hint?.contains("versions: A, B") == true)
    }

    @Test func missingHookDefinitionIsAnError() throws {
        let found = try problems("versions: [models/a.yaml, models/b.yaml]\nstages:\n  - from: A\n    to: B\n    after: [fil]\nhooks:\n  fill: {sql: SELECT 1}\n")
        #expect(found.first?.kind == .missingKey && found.first?.value == "fil")
        #expect(found.first?.location?.line == 3)
        #expect(found.first?.hint?.contains("did you mean 'fill'") == true)
    }

    @Test func missingModelFileAndUnknownKeysAreLocated() throws {
        let found = try problems("versions: [models/a.yaml, models/nope.yaml]\ntaget: B\n")
        #expect(found.contains { $0.kind == .unknownKey && $0.location?.line == 2 && $0.hint?.contains("target") == true })
        #expect(found.contains { $0.kind == .unreadable && $0.value == "models/nope.yaml" && $0.location?.line == 1 })
    }

    @Test func backwardsStageAndDuplicateVersionsAreErrors() throws {
        // A stage B → A: an invalid value at the stage's line.
        let backwards = try problems("versions: [models/a.yaml, models/b.yaml]\nstages:\n  - {from: B, to: A}\n")
        #expect(backwards.first?.kind == .invalidValue && backwards.first?.location?.line == 3)
        let twice = try problems("versions: [models/a.yaml, models/a.yaml]\n").first
        #expect(twice?.kind == .duplicateEntity && twice?.value == "A")
    }
}
