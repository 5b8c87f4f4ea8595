import Foundation
@testable import InstarCompiler
import InstarInference
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
import InstarTestSupport
import Testing

/// Fusing consecutive steps in the compiler: a table two steps rewrite is rewritten once, and fusion is
/// refused where running the steps one after the other could give another result.
@Suite struct FusionTests {
    static func program(_ old: Model, _ new: Model) throws -> StepProgram {
        try StepCompiler(diff: ModelDiff(from: old, to: new), from: old, to: new, layout: PlainSQLLayout()).compile()
    }

    static let versions = [
        "entities: {Note: {attributes: {title: string, score: int32?}}}",
        "entities: {Note: {attributes: {title: string, score: double?}}}",
        "entities: {Note: {attributes: {title: string, score: double?, body: string?}}}",
    ]

    /// A type change then an added column: fused, the table is rebuilt once with both, where step by
    /// step it would be rebuilt then altered.
    @Test func twoStepsRewriteATableOnce() throws {
        let models = try Self.versions.enumerated().map { try model($0.element, name: "V\($0.offset + 1)") }
        let first = try Self.program(models[0], models[1])
        let second = try Self.program(models[1], models[2])
        let fused = try #require(first.fused(with: second))
        #expect(fused.fromVersion == "V1" && fused.toVersion == "V3")
        let schema = try PlainSQLLayout().storageMap(for: models[0]).schema
        let plan = StepSQLPlanner.plan(fused, actual: schema, viewsAndTriggers: [])
        #expect(plan.rebuiltTables == ["Note"])
        #expect(plan.statements.filter { $0.sql.hasPrefix("INSERT INTO") }.count == 1, "\(plan.statements)")
        #expect(!plan.statements.contains { $0.sql.contains("ADD COLUMN") }, "the new column is part of the one rebuild")
    }

    /// A second step with data conditions is checked on the data the first leaves: not fused.
    @Test func conditionsOfTheSecondStepRefuseFusion() throws {
        let models = try Self.versions.enumerated().map { try model($0.element, name: "V\($0.offset + 1)") }
        let first = try Self.program(models[0], models[1])
        let second = try Self.program(models[1], models[2])
        #expect(throws: FusionRefusal.conditions) { try first.fusion(with: second, nextHasConditions: true).get() }
        // Steps that do not follow each other are never fused.
        #expect(throws: FusionRefusal.notConsecutive) { try second.fusion(with: first).get() }
    }
}
