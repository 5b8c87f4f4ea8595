import Foundation
import GRDB
@_spi(Layouts) import Instar
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport
@testable import InstarCLI

/// The cases of DecompositionTests (InstarRuntimeTests) that run `instar`.
@Suite struct DecompositionCLITests {
    @Test func scaffoldWritesFilesRefusesToOverwriteAndTheChainMigrates() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let models = dir.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        try "name: Shop 1\nentities:\n  Item:\n    attributes:\n      name: string\n      code: string?\n"
            .write(to: models.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        try "name: Shop 2\nentities:\n  Item:\n    attributes:\n      name: string\n      code: int32?\n      email: string?\n"
            .write(to: models.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        let planFile = dir.appendingPathComponent("plan.yaml")
        try "name: shop\nlayout: instar\nversions: [models/v1.yaml, models/v2.yaml]\n"
            .write(to: planFile, atomically: true, encoding: .utf8)

        // The report explains and proposes.
        let plain = try runInstar(["plan", planFile.path, "--format", "json"])
        #expect(plain.status == 1)
        let json = try #require(plain.json)
        let proposals = try #require(json["proposals"] as? [[String: Any]])
        #expect(proposals.count == 1)
        let steps = try #require(proposals[0]["steps"] as? [[String: Any]])
        #expect(steps.map { $0["kind"] as? String } == ["synthesized", "synthesized"])
        #expect((proposals[0]["hooks"] as? [[String: Any]])?.first?["name"] as? String == "convert_Item_code")
        #expect(plain.member("proposals", 0, "from") as? String == "Shop 1" && plain.member("proposals", 0, "to") as? String == "Shop 2")
        let change = try plain.member("proposals", 0, "recipes", 0, "change", as: Change.self)
        #expect((plain.member("proposals", 0, "recipes") as? [Any])?.count == 1 && change.kind == .attributeTypeChanged && !change.isInferable)
        // The text report renders the same proposal (its words: the golden transcript cli/plan-no-chain.txt).
        #expect(try runInstar(["plan", planFile.path]).status == 1)

        // Scaffold.
        let scaffold = dir.appendingPathComponent("scaffold")
        let first = try runInstar(["plan", planFile.path, "--scaffold", scaffold.path, "--format", "json"])
        #expect(first.status == 0, "\(first.stderr)")
        let expected = ["shop-1-prepare-shop-2.yaml", "shop-2.yaml", "hooks.yaml"]
        // What it says it wrote is what it wrote (the text's "wrote …" lines: golden cli/plan-scaffold.txt).
        let written = (first.member("scaffold") as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        #expect(Set(written) == Set(expected.map { scaffold.appendingPathComponent($0).path }), "\(written)")
        for name in expected {
            #expect(FileManager.default.fileExists(atPath: scaffold.appendingPathComponent(name).path), "\(name)")
        }
        let snippet = try String(contentsOf: scaffold.appendingPathComponent("hooks.yaml"), encoding: .utf8)
        #expect(snippet.contains("  - scaffold/shop-1-prepare-shop-2.yaml\n  - scaffold/shop-2.yaml\n"))

        // Again: nothing is overwritten.
        let before = try Data(contentsOf: scaffold.appendingPathComponent("hooks.yaml"))
        let second = try runInstar(["plan", planFile.path, "--scaffold", scaffold.path])
        #expect(second.status == 1, "refused (the words: golden cli/scaffold-refusals.txt): \(second.stderr)")
        #expect(try Data(contentsOf: scaffold.appendingPathComponent("hooks.yaml")) == before)

        // Paste the snippet into the plan and run it on a store at Shop 1.
        let newPlan = dir.appendingPathComponent("plan2.yaml")
        try ("name: shop\nlayout: instar\n" + snippet).write(to: newPlan, atomically: true, encoding: .utf8)
        let plan = try PlanFileReader.read(path: newPlan.path)
        #expect(plan.versions.map(\.name) == ["Shop 1", "Shop 1 (prepare Shop 2)", "Shop 2"])
        let store = dir.appendingPathComponent("shop.sqlite").path
        let created = try SQLiteStore.create(at: store, model: plan.versions[0])
        try created.withDatabase { db in
            try db.execute(sql: "INSERT INTO \"Item\" (\"name\", \"code\") VALUES ('a', '42'), ('b', ' 7 '), ('c', 'abc')")
        }
        try created.close()
        let dry = try runInstar(["plan", newPlan.path, "--store", store])
        #expect(dry.status == 0, "\(dry.stdout)\(dry.stderr)")
        let migrated = try runInstar(["migrate", newPlan.path, "--store", store])
        #expect(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")
        let reopened = try SQLiteStore.open(at: store)
        defer { try? reopened.close() }
        let codes = try reopened.withDatabase { db in
            try DatabaseValue.fetchAll(db, sql: "SELECT \"code\" FROM \"Item\" ORDER BY \"_pk\"")
        }
        #expect(codes == [.int(42), .int(7), .null])
        #expect(try reopened.metadata()?.versionName == "Shop 2")
    }

    @Test func scaffoldWithAChainWritesNothing() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plan = packageRoot.appendingPathComponent("Plans/garage/plan.yaml").path
        let result = try runInstar(["plan", plan, "--scaffold", dir.appendingPathComponent("out").path, "--format", "json"])
        #expect(result.status == 0)
        #expect(
            result.member("noChain") == nil && (result.member("scaffold") as? [Any])?.isEmpty == true,
            "a chain, so nothing to scaffold: \(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
    }
}
