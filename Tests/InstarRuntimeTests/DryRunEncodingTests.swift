import Foundation
@_spi(Layouts) import Instar
import Testing
@_spi(Layouts) import InstarLayouts
@testable import InstarPlanner
@testable import InstarRuntime
import InstarTestSupport

/// `instar plan --format json` is the dry run's own encoding: the keys scripts read, `mappingModel`
/// named even when null, the planner's choice as its sentence, proposals by their models' names.
@Suite struct DryRunEncodingTests {
    func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test func aChainWritesItsStepsAndNoProposals() throws {
        let plan = try PlanFileReader.read(path: packageRoot.appendingPathComponent("Plans/garage/plan.yaml").path)
        let report = try DryRun.report(plan: plan, storePath: nil)
        let json = try object(report)
        #expect(
            json.keys.sorted() == ["alternatives", "from", "layout", "plan", "risks", "segments", "steps", "to", "totalCost"],
            "no store, no chain missing, nothing scaffolded: none of their keys")
        let step = try #require((json["steps"] as? [[String: Any]])?.first)
        #expect(step["mappingModel"] is NSNull, "named even without a mapping model")
        #expect(step["chosenBecause"] as? String == report.steps[0].choice.description)
        #expect(step["kind"] as? String == report.steps[0].kind.rawValue)
        let changes = try JSONDecoder().decode([Change].self, from: JSONSerialization.data(withJSONObject: step["changes"]!))
        #expect(changes == report.steps[0].changes)
    }

    @Test func hookUsesRoundTripWithThePhaseAsPrinted() throws {
        let uses = [
            DryRunReport.HookUse(name: "fill", phase: .before, kind: "sql"),
            DryRunReport.HookUse(name: "fix", phase: .after, kind: "?"),
            DryRunReport.HookUse(name: "names", phase: .mapping(point: "createDestination"), kind: "not declared"),
        ]
        #expect(try JSONDecoder().decode([DryRunReport.HookUse].self, from: JSONEncoder().encode(uses)) == uses)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(
            String(decoding: try encoder.encode(uses[2]), as: UTF8.self)
                == #"{"kind":"not declared","name":"names","phase":"mapping createDestination"}"#)
    }

    /// A proposal names its models and spreads its recipes' changes; the gap it crosses reads back whole.
    @Test func proposalsAndGapsWriteWhatScriptsRead() throws {
        let a = try model("name: V1\nentities:\n  Item:\n    attributes:\n      code: int32\n", name: "V1")
        let b = try model("name: V2\nentities:\n  Item:\n    attributes:\n      code: string\n", name: "V2")
        let proposal = Decomposer(layout: InstarLayout()).decompose(from: a, to: b)
        let json = try object(proposal)
        #expect(json["intermediate"] as? String == proposal.intermediate?.name && json["final"] as? String == proposal.final?.name)
        #expect(json["complete"] as? Bool == true && json["versions"] as? [String] == proposal.versions)
        let recipe = try #require((json["recipes"] as? [[String: Any]])?.first)
        #expect(recipe["kind"] as? String == "typeConversion" && recipe["subject"] as? String == "Item.code")
        let hook = try #require((json["hooks"] as? [[String: Any]])?.first)
        #expect(hook["kind"] as? String == "sql" && (hook["sql"] as? [String])?.isEmpty == false)

        let gap = NoChain.Gap(from: "V1", to: "V2", blocking: ModelDiff(from: a, to: b).blockingChanges)
        let decoded = try JSONDecoder().decode(NoChain.Gap.self, from: JSONEncoder().encode(gap))
        #expect(decoded.from == "V1" && decoded.to == "V2" && decoded.blocking == gap.blocking && !gap.blocking.isEmpty)
    }
}
