import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore
import InstarSwiftData
import InstarSwiftDataCheck
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarSwiftDataTestSupport
@testable import InstarCLI

/// `instar migrate --swiftdata`: a SwiftData store migrated through the app's plan (or, unversioned, the
/// one step SwiftData infers), leaving the metadata SwiftData itself writes at the target schema.
@Suite struct SwiftDataMigrateTests {
    /// The metadata SwiftData writes for a store at `model` (FreezeRay's fixtures show every key).
    static func expectedMetadata(_ model: Model, frameworkVersion: Int) -> [String: Any] {
        let hashes = VersionHashes(model: model)
        return [
            "NSPersistenceFrameworkVersion": frameworkVersion, "NSPersistenceMaximumFrameworkVersion": frameworkVersion,
            "NSStoreModelVersionChecksumKey": hashes.versionChecksum, "NSStoreModelVersionHashes": hashes.entityHashes,
            "NSStoreModelVersionHashesDigest": hashes.versionHashesDigest, "NSStoreModelVersionHashesVersion": 3,
            "NSStoreModelVersionIdentifiers": model.versionIdentifiers, "NSStoreType": "SQLite", "_NSAutoVacuumLevel": "2",
        ]
    }

    @Test func aVersionedStoreMigratesToTheMetadataSwiftDataWrites() throws {
        let folder = try SwiftDataStores.folder(SwiftDataStores.versioned)
        defer { try? FileManager.default.removeItem(at: folder) }
        let v1 = try SwiftDataStores.schema(SwiftDataStores.versioned, "1.0.0")
        let v2 = try SwiftDataStores.schema(SwiftDataStores.versioned, "2.0.0")
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(v1, at: path)
        let before = try SwiftDataStores.metadata(path)

        let result = try runInstar(["migrate", "--swiftdata", folder.appendingPathComponent("Models.swift").path, "--store", path])
        #expect(result.status == 0, "\(result.stderr)")
        let after = try SwiftDataStores.metadata(path)
        #expect(after.uuid == before.uuid, "the store keeps its identity")
        #expect(SwiftDataStores.canonical(after.dictionary) == SwiftDataStores.canonical(Self.expectedMetadata(v2, frameworkVersion: 1518)))
        #expect(after.primaryKeys == ["1 Trip 0 1"])
        let store = try SQLiteStore.open(at: path, readOnly: true)
        defer { try? store.close() }
        #expect(try store.schema().table(named: "ZTRIP")?.columns.map(\.name) == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME", "ZNOTE"])
        #expect(!(try store.schema().tables.contains { $0.name.hasPrefix("_instar") }), "Core Data opens it: no journal left")
    }

    @Test func aPlanWrittenAsFilesKeepsWhatMakesItSwiftData() throws {
        // An app migrates at launch from exported files, without swift-syntax: model YAML + the plan.
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let v1 = try SwiftDataStores.schema(SwiftDataStores.versioned, "1.0.0")
        let v2 = try SwiftDataStores.schema(SwiftDataStores.versioned, "2.0.0")
        let fromFiles = try [v1, v2].map { try ModelFileReader.parse(ModelFileWriter.yaml($0), file: "\($0.name).yaml") }
        #expect(fromFiles.map(\.versionIdentifiers) == [["1.0.0"], ["2.0.0"]])
        #expect(fromFiles.map { VersionHashes(model: $0) } == [v1, v2].map { VersionHashes(model: $0) })
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(v1, at: path)
        let plan = Plan(name: "Plan", file: "plan.yaml", layout: "coredata", versions: fromFiles)
        _ = try Migrator(plan: plan).migrate(storeAt: path)
        let after = try SwiftDataStores.metadata(path)
        #expect(SwiftDataStores.canonical(after.dictionary) == SwiftDataStores.canonical(Self.expectedMetadata(v2, frameworkVersion: 1518)))
    }

    @Test func anUnversionedStoreMigratesInOneStepFromItsOwnModel() throws {
        let shipped = SwiftDataStores.unversioned("var name: String;")
        let current = SwiftDataStores.unversioned("var name: String; var note: String?;")
        let folder = try SwiftDataStores.folder(current)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(shipped, "1.0.0"), at: path, cache: try SwiftDataStores.cache())

        let planned = try runInstar(["plan", "--swiftdata", folder.path, "--store", path])
        #expect(planned.status == 0, "\(planned.stderr)")  // its note's words: golden cli/swiftdata-inferred.txt
        let plannedJSON = try runInstar(["plan", "--swiftdata", folder.path, "--store", path, "--format", "json"])
        #expect(plannedJSON.status == 0, "\(plannedJSON.stderr)")
        let steps = plannedJSON.member("steps") as? [[String: Any]] ?? []
        #expect(
            steps.map { $0["kind"] as? String } == ["lightweight"] && steps.map { $0["from"] as? String } == ["cached 1.0.0"]
                && steps.map { $0["to"] as? String } == ["Schema"], "\(plannedJSON.stdout)")

        let result = try runInstar(["migrate", "--swiftdata", folder.path, "--store", path])
        #expect(result.status == 0, "\(result.stderr)")
        let after = try SwiftDataStores.metadata(path)
        let target = try SwiftDataStores.schema(current, "1.0.0")
        #expect(SwiftDataStores.canonical(after.dictionary) == SwiftDataStores.canonical(Self.expectedMetadata(target, frameworkVersion: 1518)))
        #expect(after.dictionary["NSStoreModelVersionIdentifiers"] as? [String] == ["1.0.0"], "unversioned stays 1.0.0")
        #expect(after.cacheRows == 1, "the store's own model, as SwiftData keeps it")
        let opened = try SQLiteStore.open(at: path, readOnly: true)
        let cached = try opened.cachedModel()
        try opened.close()
        #expect(VersionHashes(model: cached.model).entityHashes == VersionHashes(model: target).entityHashes, "the cache is the target's model")
        #expect(cached.model.versionIdentifiers == ["1.0.0"])

        let again = try runInstar(["migrate", "--swiftdata", folder.path, "--store", path, "--progress", "json"])
        #expect(again.status == 0 && again.progressEvents.isEmpty, "nothing to do: \(again.stdout) \(again.stderr)")
    }

    @Test func anUnversionedChangeSwiftDataCannotInferIsNamedAtTheProperty() throws {
        let shipped = SwiftDataStores.unversioned("var name: String;")
        let current = SwiftDataStores.unversioned("var name: Int;")
        let folder = try SwiftDataStores.folder(current)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(shipped, "1.0.0"), at: path, cache: try SwiftDataStores.cache())
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))

        for command in ["plan", "migrate"] {
            let result = runInstarInProcess([command, "--swiftdata", folder.path, "--store", path])  // refused before a run
            #expect(result.status == 1, "\(command): \(result.stdout)")  // the words: golden cli/swiftdata-not-inferable.txt
        }
        let refused = try runInstar(["plan", "--swiftdata", folder.path, "--store", path, "--format", "json"])
        let problems = try refused.decoded(SwiftDataPlanRefusal.self).problems
        #expect(refused.status == 1 && problems.map(\.kind) == [.notInferable], "\(refused.stdout)")
        let property = folder.appendingPathComponent("Models.swift").path + ":2:"
        #expect(problems.first?.location?.description.hasPrefix(property) == true, "at the property: \(problems)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "nothing written")

        // Outside the sources: the reader would read the scaffold as part of them.
        let scaffold = try temporaryDirectory().appendingPathComponent("scaffold")
        defer { try? FileManager.default.removeItem(at: scaffold.deletingLastPathComponent()) }
        let offered = try runInstar(["plan", "--swiftdata", folder.path, "--store", path, "--scaffold", scaffold.path])
        #expect(offered.status == 0, "\(offered.stdout) \(offered.stderr)")
        let text = try String(contentsOf: scaffold.appendingPathComponent("MigrationPlan.swift"), encoding: .utf8)
        #expect(text.contains("enum SchemaV1: VersionedSchema") && text.contains("enum SchemaV2: VersionedSchema"))
        #expect(text.contains("@Model final class Trip {") && text.contains("var name: String\n"), "the shipped shape, from the store: \(text)")
        #expect(text.contains("every entity's version hash equals the store's"), "written from the cache and read back: \(text)")
        #expect(text.contains("MigrationStage.custom(") && text.contains("Trip.name"), "\(text)")
        let twice = try runInstar(["plan", "--swiftdata", folder.path, "--store", path, "--scaffold", scaffold.path])
        #expect(twice.status == 1, "\(twice.stderr)")
        #expect(try String(contentsOf: scaffold.appendingPathComponent("MigrationPlan.swift"), encoding: .utf8) == text, "nothing is overwritten")

        // Without a store: the current schema is planned alone, and the note says what the step needs.
        let withoutStore = try runInstar(["plan", "--swiftdata", folder.path, "--format", "json"])
        #expect(withoutStore.status == 0, "\(withoutStore.stderr)")
        #expect((withoutStore.member("steps") as? [Any])?.isEmpty == true, "\(withoutStore.stdout)")
    }

    @Test func lintChecksAnUnversionedAppsCurrentSchema() throws {
        let folder = try SwiftDataStores.folder(SwiftDataStores.unversioned("@Attribute(.unique) var name: String;"))
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runInstar(["lint", "--swiftdata", folder.path, "--cloudkit", "--format", "json"])
        #expect(!result.stderr.contains("no SchemaMigrationPlan"), "\(result.stderr)")
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        let lint = try result.decoded(LintReport.self)
        #expect(lint.errors > 0 && lint.findings.contains { $0.file.hasSuffix("/Models.swift") && $0.line == 2 }, "at the property: \(lint.findings)")
    }

    /// lint with the shipped store, or that release's sources: the inferred step is linted, each change it
    /// cannot infer an error at the property, with the fix and the scaffold to start from.
    @Test func lintChecksAnUnversionedAppsStepFromTheShippedStoreOrSources() throws {
        let shipped = try SwiftDataStores.folder(SwiftDataStores.unversioned("var name: String;"))
        let current = try SwiftDataStores.folder(SwiftDataStores.unversioned("var name: Int;"))
        defer { for folder in [shipped, current] { try? FileManager.default.removeItem(at: folder) } }
        let path = current.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(SwiftDataStores.unversioned("var name: String;"), "1.0.0"), at: path, cache: try SwiftDataStores.cache())

        for source in [["--store", path], ["--from-swiftdata", shipped.path]] {
            let result = try runInstar(["lint", "--swiftdata", current.path] + source)
            #expect(result.status == 1, "\(source): \(result.stdout) \(result.stderr)")  // the words: golden cli/swiftdata-not-inferable.txt
            let json = try runInstar(["lint", "--swiftdata", current.path, "--format", "json"] + source)
            #expect(json.status == 1, "\(source): \(json.stderr)")
            let lint = try json.decoded(LintReport.self)
            let errors = lint.findings.filter { $0.severity == .error }
            #expect(lint.errors == 1 && errors.count == 1, "one finding, at the property, not a second for the whole step: \(lint.findings)")
            #expect(errors.first?.file.hasSuffix("/Models.swift") == true && errors.first?.line == 2, "at the property: \(errors)")
        }
        let alone = try runInstar(["lint", "--swiftdata", current.path])
        #expect(alone.status == 0, "the current schema alone is fine: \(alone.stdout) \(alone.stderr)")
        let stray = try runInstar(["lint", "plan.yaml", "--store", path])
        #expect(stray.status == 64, "\(stray.stderr)")
    }

    static let custom = """
        import SwiftData
        enum V1: VersionedSchema {
            static var versionIdentifier = Schema.Version(1, 0, 0)
            static var models: [any PersistentModel.Type] { [Trip.self] }
            @Model final class Trip { var name: String = ""; init() {} }
        }
        enum V2: VersionedSchema {
            static var versionIdentifier = Schema.Version(2, 0, 0)
            static var models: [any PersistentModel.Type] { [Trip.self] }
            @Model final class Trip { var name: String = ""; var note: String?; init() {} }
        }
        enum Plan: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self] }
            static var stages: [MigrationStage] {
                [.custom(fromVersion: V1.self, toVersion: V2.self, willMigrate: nil, didMigrate: { context in try context.save() })]
            }
        }
        """

    static func notes(_ path: String) throws -> [String?] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try String?.fetchAll(db, sql: "SELECT ZNOTE FROM ZTRIP ORDER BY Z_PK") }
    }

    @Test func aCustomStagesClosureRunsAsSQLFromHooksAndIsRefusedWithoutIt() throws {
        let folder = try SwiftDataStores.folder(Self.custom)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(Self.custom, "1.0.0"), at: path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let sources = folder.appendingPathComponent("Models.swift").path

        let missing = try runInstar(["migrate", "--swiftdata", sources, "--store", path])
        #expect(missing.status == 1, "\(missing.stdout)")
        // The library's refusal names the closure's hook (the CLI's words for it: golden error-hints.txt).
        let checked = try SwiftDataPlan.make(sources: [sources], planName: nil, hooksFile: nil, store: path)
        let refusal = try #require(#expect(throws: HookError.self) { try Migrator(plan: checked.plan).migrate(storeAt: path) })
        #expect(refusal.kind == .notDefined && refusal.hook == "V1→V2.didMigrate", "\(refusal)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "refused before writing")

        let hooks = folder.appendingPathComponent("hooks.yaml")
        try "V1→V2.didMigrate: UPDATE ZTRIP SET ZNOTE = 'kept'\n".write(to: hooks, atomically: true, encoding: .utf8)
        let given = try runInstar(["migrate", "--swiftdata", sources, "--store", path, "--hooks", hooks.path])
        #expect(given.status == 0, "\(given.stdout) \(given.stderr)")
        #expect(try Self.notes(path) == ["kept"])
        #expect(try SwiftDataStores.metadata(path).dictionary["NSStoreModelVersionIdentifiers"] as? [String] == ["2.0.0"])
    }

    /// In an app: the plan as exported files (model YAML, the custom stage and its hook names as
    /// `plan --swiftdata` gives them), the closure registered as a Swift hook of that name.
    @Test func anAppRunsTheCustomStageWithARegisteredSwiftHook() throws {
        let folder = try SwiftDataStores.folder(Self.custom)
        defer { try? FileManager.default.removeItem(at: folder) }
        let listed = try runInstar(["plan", "--swiftdata", folder.path, "--format", "json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let steps = try #require(report["steps"] as? [[String: Any]])
        let names = steps.flatMap { ($0["hooks"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        #expect(names == ["V1→V2.didMigrate"])

        let v1 = try SwiftDataStores.schema(Self.custom, "1.0.0")
        let v2 = try SwiftDataStores.schema(Self.custom, "2.0.0")
        let versions = try [v1, v2].map { try ModelFileReader.parse(ModelFileWriter.yaml($0), file: "\($0.name).yaml") }
        let plan = Plan(
            name: "Plan", file: "plan.yaml", layout: "coredata", versions: versions, pinned: versions.map(\.name),
            stages: [CustomStage(from: v1.name, to: v2.name, after: names)], hooks: [names[0]: .swift(names[0])])
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(v1, at: path)
        let migrator = Migrator(plan: plan)
        migrator.register(hook: names[0]) { context in
            try context.write { db in try db.execute(sql: "UPDATE ZTRIP SET ZNOTE = 'from Swift'") }
        }
        _ = try migrator.migrate(storeAt: path)
        #expect(try Self.notes(path) == ["from Swift"])
        let after = try SwiftDataStores.metadata(path)
        #expect(SwiftDataStores.canonical(after.dictionary) == SwiftDataStores.canonical(Self.expectedMetadata(v2, frameworkVersion: 1518)))
    }

    @Test func testTakesAnUnversionedFixturesOwnModelAsTheSource() throws {
        let folder = try SwiftDataStores.folder(SwiftDataStores.unversioned("var name: String; var note: String?;"))
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shipped.store").path
        try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(SwiftDataStores.unversioned("var name: String;"), "1.0.0"), at: path, cache: try SwiftDataStores.cache())
        let result = try runInstar(["test", "--swiftdata", folder.appendingPathComponent("Models.swift").path, "--fixtures", path])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
    }

    @Test func versionedSchemasWithoutAPlanMigrateToTheNewest() throws {
        let text = SwiftDataStores.versioned.components(separatedBy: "enum Plan:")[0]
        let folder = try SwiftDataStores.folder(text)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(text, "1.0.0"), at: path, cache: try SwiftDataStores.cache())
        let result = try runInstar(["migrate", "--swiftdata", folder.path, "--store", path])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")  // its note's words: golden cli/swiftdata-inferred.txt
        let after = try SwiftDataStores.metadata(path)
        #expect(SwiftDataStores.canonical(after.dictionary) == SwiftDataStores.canonical(Self.expectedMetadata(try SwiftDataStores.schema(text, "2.0.0"), frameworkVersion: 1518)))
    }

    /// One VersionedSchema per model, all 1.0.0, and no plan: none of them is the app's schema. Without
    /// the file that makes the container the reader cannot tell which classes it holds, and says so; with it,
    /// the container's list is the current schema.
    @Test func perModelVersionedSchemasNeedTheContainersList() throws {
        let models = """
            import SwiftData
            enum CardSchemaV1: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, 0, 0)
                static var models: [any PersistentModel.Type] { [Card.self] }
                @Model final class Card { var title: String = ""; init() {} }
            }
            enum TagSchemaV1: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, 0, 0)
                static var models: [any PersistentModel.Type] { [Tag.self] }
                @Model final class Tag { var name: String = ""; init() {} }
            }
            """
        let folder = try SwiftDataStores.folder(models)
        defer { try? FileManager.default.removeItem(at: folder) }
        let alone = try runInstar(["plan", "--swiftdata", folder.path])
        #expect(alone.status == 65, "\(alone.stdout) \(alone.stderr)")  // the words: golden cli/swiftdata-sources.txt

        try "let container = try! ModelContainer(for: CardSchemaV1.Card.self, TagSchemaV1.Tag.self)\n"
            .write(to: folder.appendingPathComponent("App.swift"), atomically: true, encoding: .utf8)
        let withApp = try runInstar(["plan", "--swiftdata", folder.path])
        #expect(withApp.status == 0, "\(withApp.stdout) \(withApp.stderr)")
        let planned = try runInstar(["plan", "--swiftdata", folder.path, "--format", "json"])
        #expect(planned.member("to") as? String == "Schema", "the container's classes are the current schema: \(planned.stdout)")
    }

    /// A store whose cache is gone (a migration by Instar empties it): the sources it shipped with are the source.
    @Test func earlierSourcesStandInForAStoreWithoutItsModel() throws {
        let shipped = try SwiftDataStores.folder(SwiftDataStores.unversioned("var name: String;"))
        let current = try SwiftDataStores.folder(SwiftDataStores.unversioned("var name: String; var note: String?; var rating: Int?;"))
        defer { for folder in [shipped, current] { try? FileManager.default.removeItem(at: folder) } }
        let path = current.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(SwiftDataStores.unversioned("var name: String;"), "1.0.0"), at: path)

        // Both refused while the plan is made, before a run: in-process.
        let noCache = runInstarInProcess(["migrate", "--swiftdata", current.path, "--store", path])
        #expect(noCache.status == 65, "\(noCache.stdout) \(noCache.stderr)")  // the words: golden cli/swiftdata-sources.txt

        let wrong = runInstarInProcess(["migrate", "--swiftdata", current.path, "--from-swiftdata", current.path, "--store", path])
        #expect(wrong.status == 65, "\(wrong.stderr)")

        let result = try runInstar(["migrate", "--swiftdata", current.path, "--from-swiftdata", shipped.path, "--store", path])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")  // its note's words: golden cli/swiftdata-sources.txt
        let target = try SwiftDataStores.schema(SwiftDataStores.unversioned("var name: String; var note: String?; var rating: Int?;"), "1.0.0")
        #expect(SwiftDataStores.canonical(try SwiftDataStores.metadata(path).dictionary) == SwiftDataStores.canonical(Self.expectedMetadata(target, frameworkVersion: 1518)))

        // Without a store, 'test' seeds one at the earlier schema and runs the inferred step.
        let tested = try runInstar(["test", "--swiftdata", current.path, "--from-swiftdata", shipped.path, "--rows", "5"])
        #expect(tested.status == 0, "\(tested.stdout) \(tested.stderr)")
    }
}
