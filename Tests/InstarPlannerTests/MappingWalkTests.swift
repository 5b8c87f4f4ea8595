import Foundation
import InstarInference
import InstarMapping
@_spi(Layouts) import InstarModel
import InstarPlanner
import Testing
import InstarTestSupport

/// A bundle whose releases each ship a mapping model, as an app walks it: the chain takes every
/// mapping model it meets, bridges a release that shipped none by inference to where the next one
/// starts, and jumps past mapping models only when they merely copy values and the jump holds on the
/// store's rows. Every step says which rule chose it.
@Suite struct MappingWalkTests {
    /// V1…V5 of one entity, each version adding an optional attribute (every pair inferable);
    /// `requiredAt` makes that version's new attribute required, without a default.
    static func versions(requiredAt: Int? = nil) throws -> [Model] {
        let added = ["a1", "a2", "a3", "a4", "a5"]
        return try (1...5).map { i in
            let attributes = added.prefix(i).enumerated().map { index, name in
                "      \(name): string" + (index + 1 == requiredAt ? "" : "?")
            }.joined(separator: "\n")
            return try model("name: V\(i)\nentities:\n  Item:\n    attributes:\n\(attributes)\n", name: "V\(i)")
        }
    }

    /// A mapping model between two versions; `attributes` are written expressions, `policy` a custom policy.
    static func mapping(_ from: Int, _ to: Int, attributes: [String: String] = [:], policy: String? = nil, versions: [Model])
        throws -> PlannedMapping
    {
        var text = "source: V\(from)\ndestination: V\(to)\nentities:\n  - name: ItemToItem\n    source: Item\n    destination: Item\n"
        if let policy { text += "    policy: \(policy)\n" }
        if !attributes.isEmpty {
            text += "    attributes:\n" + attributes.map { "      \($0.key): \"\($0.value)\"" }.sorted().joined(separator: "\n") + "\n"
        }
        let resolved = try MappingFileReader.parse(text, file: "V\(from)toV\(to).mapping.yaml", name: "V\(from)toV\(to)")
            .resolved(among: versions, from: .plan)
        return PlannedMapping(from: resolved.source.name, to: resolved.destination.name, model: resolved.model)
    }

    /// A bundle's plan: no order but its target, V5.
    static func bundlePlan(_ versions: [Model], _ mappings: [PlannedMapping]) -> Plan {
        var plan = Plan(name: "bundle", file: "App.xcdatamodeld", layout: "coredata", versions: versions, target: "V5")
        plan.versionsAreOrdered = false
        plan.mappings = mappings
        return plan
    }

    struct Rows: StepCostModel {
        var counts: [String: Int]
        func cost(from old: Model, to new: Model, diff: ModelDiff) -> StepCost { StepCost(rowsRewritten: 0) }
        func knownRows(ofEntity canonicalName: String) -> Int? { counts[canonicalName] }
    }

    func chain(_ plan: Plan, from: String, rows: [String: Int]? = nil) throws -> Chain {
        let cost: any StepCostModel = rows.map { Rows(counts: $0) } ?? NominalCostModel()
        return try ChainFinder(graph: VersionGraph(plan: plan, costModel: cost)).cheapestChain(from: from, to: "V5")
    }

    func summary(_ chain: Chain) -> [String] { chain.steps.map { "\($0.from)→\($0.to) \($0.kind.rawValue)" } }

    /// Mapping models for every pair but V3 → V4, the last one computing a value: every mapping model
    /// is walked, and V3 → V4 is inferred (the walk), since jumping to V5 would skip the computation.
    @Test func walksEveryMappingModelAndBridgesTheGapToWhereTheNextStarts() throws {
        let versions = try Self.versions()
        let plan = Self.bundlePlan(versions, [
            try Self.mapping(1, 2, policy: "MovePolicy", versions: versions),
            try Self.mapping(2, 3, versions: versions),
            try Self.mapping(4, 5, attributes: ["a5": "$source.a4"], versions: versions),
        ])
        let chain = try chain(plan, from: "V1")
        #expect(summary(chain) == ["V1→V2 mapping", "V2→V3 mapping", "V3→V4 lightweight", "V4→V5 mapping"])
        #expect(chain.steps.map(\.choice) == [
            .mappingModel, .mappingModel, .walk(because: .mappingRunsCode("V4toV5")), .mappingModel,
        ])
        // From the gap itself, the same walk.
        #expect(summary(try self.chain(plan, from: "V3")) == ["V3→V4 lightweight", "V4→V5 mapping"])
    }

    /// The mapping models after the gap only copy values: the inferred step goes past them to the
    /// target, and names them.
    @Test func jumpsPastMappingModelsThatOnlyCopyValues() throws {
        let versions = try Self.versions()
        let plan = Self.bundlePlan(versions, [
            try Self.mapping(1, 2, policy: "MovePolicy", versions: versions),
            try Self.mapping(3, 4, versions: versions),
            try Self.mapping(4, 5, versions: versions),
        ])
        #expect(try plan.mappings.map(\.model.onlyCopiesValues) == [false, true, true])
        let chain = try chain(plan, from: "V2")
        #expect(summary(chain) == ["V2→V5 lightweight"])
        #expect(chain.steps.map(\.choice) == [.inferredPast(mappingModels: ["V3toV4", "V4toV5"])])
        // A mapping model starting at the store's version is taken all the same.
        #expect(summary(try self.chain(plan, from: "V1")) == ["V1→V2 mapping", "V2→V5 lightweight"])
    }

    /// A jump that needs the store to have no rows (V4 adds a required attribute without a default) is
    /// taken only when the store's counts say it has none; otherwise, and without a store, the walk
    /// (whose own step then checks the rows when it runs, as the app's would).
    @Test func jumpsOnlyWhereTheStoresRowsAllowIt() throws {
        let versions = try Self.versions(requiredAt: 4)
        let plan = Self.bundlePlan(versions, [try Self.mapping(4, 5, versions: versions)])
        let withRows = try chain(plan, from: "V2", rows: ["Item": 20])
        #expect(summary(withRows) == ["V2→V4 lightweight", "V4→V5 mapping"])
        guard case .walk(because: .needsRows(let condition))? = withRows.steps.first?.choice else {
            Issue.record("the walk should say the jump needs rows: \(withRows.steps.map(\.choice))")
            return
        }
        #expect(condition == "no Item rows exist")
        #expect(summary(try chain(plan, from: "V2")) == summary(withRows), "without a store, rows are not assumed absent")
        let empty = try chain(plan, from: "V2", rows: ["Item": 0])
        #expect(summary(empty) == ["V2→V5 lightweight"])
        #expect(empty.steps.map(\.choice) == [.inferredPast(mappingModels: ["V4toV5"])])
    }

    /// Without mapping models a bundle's chain is Core Data's: straight to the target.
    @Test func withoutMappingModelsTheChainGoesStraight() throws {
        let chain = try chain(Self.bundlePlan(try Self.versions(), []), from: "V1")
        #expect(summary(chain) == ["V1→V5 lightweight"])
        #expect(chain.steps.map(\.choice) == [.direct])
    }
}
