import Foundation
@_spi(Layouts) import Instar
import InstarMapping
import InstarTesting
import Testing
import InstarTestSupport
@testable import InstarCLI

/// The corpus's bundles that ship mapping models, as their apps walk them: planned from every version
/// (each step taking the mapping model that starts there) and tested from every version, each custom
/// policy and uncomputable expression registered as a hook that does nothing (the apps' policy code is
/// not in the corpus; what is tested is that the walk runs and keeps every row).
@Suite(.serialized) struct MappingChainCorpusTests {
    struct Outcome: CustomStringConvertible {
        var bundle: String
        var versions: Int
        var passed: Int
        var failures: [String]
        var description: String { "\(bundle): \(passed)/\(versions)" + (failures.isEmpty ? "" : " — " + failures.joined(separator: "; ")) }
    }

    /// Three corpus bundles (billmoss's, CoreDataPlus's and MWKCoreData's test fixtures, whose code
    /// names the version to migrate to) keep their first-named version as the current one, which no
    /// mapping model leads to: for them the target is where the mapping models lead, the destination
    /// of the longest run of them.
    static func target(of plan: Plan) -> String? {
        let sources = Set(plan.mappings.map(\.from)), destinations = Set(plan.mappings.map(\.to))
        guard let current = plan.targetVersion, current == plan.versions.first?.name, !destinations.contains(current) else {
            return plan.targetVersion
        }
        func depth(_ version: String, _ seen: Set<String>) -> Int {
            plan.mappings.filter { $0.to == version && !seen.contains($0.from) }
                .map { 1 + depth($0.from, seen.union([version])) }.max() ?? 0
        }
        return destinations.subtracting(sources).max { (depth($0, []), $1) < (depth($1, []), $0) }
    }

    /// The CoreStore demo's V1 bundle holds a downgrade (V2 → V1 by the mapping model `V1.FromV2`),
    /// which drops V2's `numberOfFlippers` on purpose (MANIFEST: "two-way mapping models").
    static let intendedDrops: Set<String> = ["Creature.numberOfFlippers"]

    static func outcome(_ bundle: URL) throws -> Outcome? {
        var plan = try ImpliedPlan(models: [bundle]).plan
        guard !plan.mappings.isEmpty else { return nil }
        plan.target = target(of: plan)
        let migrator = Migrator(plan: plan)
        for mapping in plan.mappings {
            for hook in PlanExport.mappingHooks(mapping, plan: plan) { migrator.register(mappingHook: hook.name) { _ in } }
        }
        let report = try MigrationTester(migrator: migrator).run(MigrationTestOptions(rows: 10, acceptedDrops: intendedDrops))
        let name = bundle.path.replacingOccurrences(of: corpusRoot.path + "/", with: "")
        return Outcome(
            bundle: name, versions: report.runs.count, passed: report.runs.filter(\.passed).count,
            failures: report.failures.map { "\($0.fromVersion): \($0.firstFailure?.message ?? "?")" })
    }

    @Test(.needsCorpus) func everyBundleWithMappingModelsIsTestedFromEveryVersion() throws {
        var outcomes: [Outcome] = []
        for bundle in MappingCorpus.bundlesWithMappingModels() {
            if let outcome = try Self.outcome(bundle) { outcomes.append(outcome) }
        }
        print(outcomes.map(\.description).joined(separator: "\n"))
        let versions = outcomes.map(\.versions).reduce(0, +), passed = outcomes.map(\.passed).reduce(0, +)
        print("mapping-model bundles: \(outcomes.count); versions tested: \(versions); passed: \(passed)")
        #expect(passed == versions, "\(outcomes.filter { !$0.failures.isEmpty })")
    }
}

/// `instar test --model` with the mapping models' policies given as SQL (`--hooks`), by the names
/// `instar plan` lists: every version of a bundle whose releases each ship a mapping model passes.
@Suite struct MappingChainCLITests {
    @Test(.needsCorpus) func testModelWithPoliciesAsHooksPassesFromEveryVersion() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = corpusRoot.appendingPathComponent(
            "jdspoone__CoreDataMigrationExample/CoreDataMigration/CoreDataMigration.xcdatamodeld").path
        let without = try runInstar(["test", "--model", bundle, "--rows", "5", "--format", "json"])
        #expect(without.status == 1, "\(without.stdout)")
        let failing = try without.decoded(MigrationTestReport.self)
        #expect(failing.runs.count == 3 && failing.failures.count == 3, "\(without.stdout)")
        let hooks = dir.appendingPathComponent("hooks.yaml")
        try """
            v1.1-to-v1.2.NoteToNote: SELECT 1
            v1.2-to-v1.3.ImageToImage: SELECT 1
            v1.2-to-v1.3.NoteToNote: [SELECT 1]
            """.write(to: hooks, atomically: true, encoding: .utf8)
        let with = try runInstar(["test", "--model", bundle, "--hooks", hooks.path, "--rows", "20", "--format", "json"])
        #expect(with.status == 0, "\(with.stdout)\n\(with.stderr)")
        let passing = try with.decoded(MigrationTestReport.self)
        #expect(passing.passed && passing.runs.count == 3)
    }
}
