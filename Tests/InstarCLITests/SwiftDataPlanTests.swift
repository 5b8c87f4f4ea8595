import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import InstarPlanner
import InstarSwiftData
import InstarSwiftDataCheck
import InstarTesting
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
@testable import InstarCLI

/// `instar plan --swiftdata` and `instar test --swiftdata`: what SwiftData would refuse, found from the
/// sources; and the corpus apps' real plans accepted against their real stores.
@Suite struct SwiftDataPlanTests {
    static func schema(_ name: String, _ version: String, _ drink: String) -> String {
        """
        enum \(name): VersionedSchema {
            static var versionIdentifier = Schema.Version(\(version.replacingOccurrences(of: ".", with: ", ")))
            static var models: [any PersistentModel.Type] { [Drink.self] }
            @Model final class Drink { \(drink) }
        }
        """
    }

    /// Writes `Models.swift` with the schemas and a plan of `stages`, in a temporary folder.
    static func sources(_ schemas: [String], stages: String, plan: [String]) throws -> URL {
        let folder = try temporaryDirectory()
        let text = "import SwiftData\n" + schemas.joined(separator: "\n") + """

            enum Plan: SchemaMigrationPlan {
                static var schemas: [any VersionedSchema.Type] { [\(plan.map { "\($0).self" }.joined(separator: ", "))] }
                static var stages: [MigrationStage] { [\(stages)] }
            }
            """
        try text.write(to: folder.appendingPathComponent("Models.swift"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test func duplicateChecksumsNameBothSchemas() throws {
        let folder = try Self.sources(
            [Self.schema("V1", "1.0.0", "var name: String = \"\""), Self.schema("V2", "2.0.0", "var name: String = \"\"")],
            stages: ".lightweight(fromVersion: V1.self, toVersion: V2.self)", plan: ["V1", "V2"])
        defer { try? FileManager.default.removeItem(at: folder) }
        // Its words, on standard error and in JSON, are pinned by the golden transcript cli/swiftdata.txt.
        let result = try runInstar(["plan", "--swiftdata", folder.path, "--format", "json"])
        #expect(result.status == 1)
        let refused = try result.decoded(SwiftDataPlanRefusal.self)
        #expect(!refused.passed && refused.problems.map(\.kind) == [.duplicateChecksum], "\(refused)")
    }

    /// A plan with a stage from V2 back to V1 used to be printed as an error and then dropped, so `plan`
    /// and `lint` went on as for an unversioned app and passed: now both refuse it (exit 1), at the stage.
    @Test func aPlanWithABackwardStageIsRefusedNotReplacedByInference() throws {
        let folder = try Self.sources(
            [Self.schema("V1", "1.0.0", "var name: String = \"\""), Self.schema("V2", "2.0.0", "var name: String = \"\"; var note: String?")],
            stages: ".lightweight(fromVersion: V2.self, toVersion: V1.self)", plan: ["V1", "V2"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let planned = try runInstar(["plan", "--swiftdata", folder.path, "--format", "json"])
        #expect(planned.status == 1, "\(planned.stdout)")
        let refused = try planned.decoded(SwiftDataPlanRefusal.self)
        #expect(!refused.passed && refused.plan == "Plan" && refused.problems.map(\.kind) == [.refusedPlan], "\(refused)")
        #expect(refused.problems.first?.versions == ["V2", "V1"])
        #expect(refused.problems.first?.location?.description.contains("Models.swift:") == true)

        let linted = try runInstar(["lint", "--swiftdata", folder.path, "--format", "json"])
        #expect(linted.status == 1, "\(linted.stdout)")
        let findings = try linted.decoded(LintReport.self)
        #expect(findings.errors == 1 && findings.findings.first?.file.hasSuffix("Models.swift") == true, "\(findings)")
        #expect(findings.findings.first?.check == .invalidPlan)

        // Named explicitly, the same: a refused plan is never passed over.
        let named = try runInstar(["plan", "--swiftdata", folder.path, "--migration-plan", "Plan", "--format", "json"])
        #expect(named.status == 1)
    }

    @Test func aLightweightStageThatCannotBeInferredSaysWhichAttributeAndTheFix() throws {
        let folder = try Self.sources(
            [Self.schema("V1", "1.0.0", "var when: String = \"\""), Self.schema("V2", "2.0.0", "var when: Date = Date()")],
            stages: ".lightweight(fromVersion: V1.self, toVersion: V2.self)", plan: ["V1", "V2"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runInstar(["plan", "--swiftdata", folder.path, "--format", "json"])
        #expect(result.status == 1)
        let refusal = try result.decoded(SwiftDataPlanRefusal.self)
        #expect(jsonText(refusal) + "\n" == result.stdout, "the library's value encodes to the same bytes")
        let problem = try #require(refusal.problems.first)
        #expect(problem.kind == .notInferable && problem.location?.description.contains("Models.swift:") == true, "\(problem)")
        #expect(problem.entity == "Drink" && problem.property == "when" && problem.versions == ["V1", "V2"], "\(problem)")
        #expect(problem.fix.contains(".custom(fromVersion:toVersion:willMigrate:didMigrate:)"))
    }

    @Test func aSchemaNoStageReachesIsNamed() throws {
        let folder = try Self.sources(
            [Self.schema("V1", "1.0.0", "var name: String = \"\""), Self.schema("V2", "2.0.0", "var name: String = \"\"; var note: String?"),
             Self.schema("V3", "3.0.0", "var name: String = \"\"; var note: String?; var rating: Int?")],
            stages: ".lightweight(fromVersion: V1.self, toVersion: V2.self)", plan: ["V1", "V2", "V3"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runInstar(["plan", "--swiftdata", folder.path, "--format", "json"])
        #expect(result.status == 1)
        let problems = try result.decoded(SwiftDataPlanRefusal.self).problems
        #expect(problems.map(\.kind) == [.unreachable, .unreachable], "\(problems)")
        #expect(problems.compactMap(\.versions).sorted { $0.lexicographicallyPrecedes($1) } == [["V1", "V3"], ["V2", "V3"]], "\(problems)")
    }

    @Test func customStagesBecomeHooksThatRunAsSQL() throws {
        let folder = try Self.sources(
            [Self.schema("V1", "1.0.0", "var name: String = \"\""), Self.schema("V2", "2.0.0", "var name: String = \"\"; var note: String?")],
            stages: ".custom(fromVersion: V1.self, toVersion: V2.self, willMigrate: nil, didMigrate: { context in try context.save() })",
            plan: ["V1", "V2"])
        defer { try? FileManager.default.removeItem(at: folder) }
        // The run's words (the hook named): golden cli/swiftdata-sources.txt.
        let missing = try runInstar(["test", "--swiftdata", folder.path, "--rows", "5", "--format", "json"])
        #expect(missing.status == 1, "\(missing.stderr)")
        let failure = try missing.decoded(MigrationTestReport.self).runs.first?.firstFailure
        #expect(failure?.kind == .migration && failure?.step == "V1 → V2", "the step whose closure is missing: \(missing.stdout)")
        let hooks = folder.appendingPathComponent("hooks.yaml")
        try "V1→V2.didMigrate: UPDATE ZDRINK SET ZNOTE = 'migrated'\n".write(to: hooks, atomically: true, encoding: .utf8)
        let given = try runInstar(["test", "--swiftdata", folder.path, "--hooks", hooks.path, "--rows", "5", "--format", "json"])
        #expect(given.status == 0, "\(given.stdout)\(given.stderr)")
        let tested = try given.decoded(MigrationTestReport.self)
        #expect(tested.passed && tested.runs.map(\.fromVersion) == ["V1"])
    }

    /// A store written by a schema that was edited after it shipped: SwiftData's 134504, with the edit.
    @Test func aStoreOfAnEditedSchemaNamesTheClosestSchemaAndTheEdit() throws {
        let shipped = Self.schema("V1", "1.0.0", "var name: String = \"\"; var price: Double = 0")
        let folder = try Self.sources(
            [Self.schema("V1", "1.0.0", "var name: String = \"\""), Self.schema("V2", "2.0.0", "var name: String = \"\"; var note: String?")],
            stages: ".lightweight(fromVersion: V1.self, toVersion: V2.self)", plan: ["V1", "V2"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let read = SwiftDataReader().read(files: [(path: "Shipped.swift", text: "import SwiftData\n" + shipped)])
        let model = try #require(read.schemas.first).model
        let store = folder.appendingPathComponent("shipped.store").path
        try SQLiteStore.create(at: store, model: model, layout: CoreDataLayout()).close()
        // The words (134504, the closest schema, the edit): golden cli/swiftdata-edited-schema.txt.
        let result = try runInstar(["plan", "--swiftdata", folder.path, "--store", store, "--format", "json"])
        #expect(result.status == 1)
        let problems = try result.decoded(SwiftDataPlanRefusal.self).problems
        #expect(problems.map(\.kind) == [.unknownModelVersion], "\(result.stdout)")
    }
}

extension SwiftDataPlanTests {
    /// `= Date()` is a default in SwiftData's model (computed once): CloudKit's rule is satisfied; a
    /// required attribute without any initializer is not.
    @Test func cloudKitLintCountsAppEvaluatedDefaults() throws {
        let folder = try Self.sources(
            [Self.schema("V1", "1.0.0", "var created: Date = Date(); var name: String; init() { name = \"\" }")],
            stages: "", plan: ["V1"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runInstar(["lint", "--swiftdata", folder.path, "--cloudkit", "--format", "json"])
        #expect(result.status == 1)
        let required = try result.decoded(LintReport.self).findings.filter { $0.check == .cloudKitRequiredAttribute }
        #expect(required.count == 1 && required[0].entity == "Drink" && required[0].property == "name", "\(required)")
    }
}

/// The corpus apps' own plans, against their own stores.
@Suite(.needsCorpus) struct SwiftDataPlanCorpusTests {
    static let root = corpusRoot.appendingPathComponent("swiftdata")
    static let andrei = "AndreiMaksimovich__SwiftDeveloperBlog/06 - SwiftData Migration"

    @Test(arguments: [
        ("TrinsicVentures__FreezeRay/FreezeRayTestApp/FreezeRayTestApp", "TrinsicVentures__FreezeRay/FreezeRayTestApp/FreezeRay/Fixtures/1.0.0/App-1_0_0.sqlite", "AppSchemaV1"),
        ("TrinsicVentures__FreezeRay/FreezeRayTestApp/FreezeRayTestApp", "TrinsicVentures__FreezeRay/FreezeRayTestApp/FreezeRayTestApp/FreezeRay/Fixtures/2.0.0/App-2_0_0.sqlite", "AppSchemaV2"),
        ("\(andrei)/06 - SwiftData Migration/Lib/AppData", "\(andrei)/06 - SwiftData MigrationTests/Resources/AppData/V01/app-model-v01-container", "AppDataSchemaV01"),
        ("nobelnrj__myhome/MyHomeApp", "nobelnrj__myhome/@33a81a50/MyHomeTests/Resources/MyHomeV1Seed.store", "SchemaV1"),
    ])
    func theAppsPlanIsAcceptedForItsStore(sources: String, store: String, schema: String) throws {
        let result = try runInstar([
            "plan", "--swiftdata", Self.root.appendingPathComponent(sources).path, "--store", Self.root.appendingPathComponent(store).path,
            "--format", "json",
        ])
        #expect(result.status == 0, "the checks passed: \(result.stderr)")
        #expect(result.member("detectedVersion") as? String == schema, "the store was written by \(schema): \(result.stdout)")
    }

    @Test func freezeRaysPlanPassesInstarTestSeededAndWithItsFixtures() throws {
        let sources = Self.root.appendingPathComponent("TrinsicVentures__FreezeRay/FreezeRayTestApp/FreezeRayTestApp").path
        let seeded = try runInstar(["test", "--swiftdata", sources, "--rows", "20", "--format", "json"])
        #expect(seeded.status == 0, "\(seeded.stdout)\(seeded.stderr)")
        let seededReport = try seeded.decoded(MigrationTestReport.self)
        #expect(seededReport.passed && seededReport.runs.count == 2)
        let fixtures = Self.root.appendingPathComponent("TrinsicVentures__FreezeRay/FreezeRayTestApp/FreezeRay/Fixtures").path
        let real = try runInstar(["test", "--swiftdata", sources, "--fixtures", fixtures, "--format", "json"])
        #expect(real.status == 0, "\(real.stdout)\(real.stderr)")
        let realReport = try real.decoded(MigrationTestReport.self)
        #expect(realReport.passed && realReport.runs.count == 2)
    }
}
