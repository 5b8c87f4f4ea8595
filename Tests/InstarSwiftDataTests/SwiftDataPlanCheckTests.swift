import Foundation
import GRDB
@_spi(Layouts) import Instar
import InstarSwiftDataCheck
import InstarTestSupport
import InstarSwiftDataTestSupport
import InstarStoreTestSupport
import Testing

/// SwiftData's plan rules through the library alone (`SwiftDataPlanCheck`), as an app or its tests call
/// them: typed findings, and an unversioned app shipping two releases whose one inferred step starts each
/// time from the model the store keeps of itself (`Z_MODELCACHE`).
@Suite struct SwiftDataPlanCheckTests {
    static let releases = [
        SwiftDataStores.unversioned("var name: String;"),
        SwiftDataStores.unversioned("var name: String; var note: String?;"),
        SwiftDataStores.unversioned("var name: String; var note: String?; var rating: Int?;"),
    ]

    /// The entity hashes the store's metadata records, and those of its cached model.
    static func hashes(_ path: String) throws -> (recorded: [String: Data], cached: [String: Data]) {
        let store = try SQLiteStore.open(at: path, readOnly: true)
        defer { try? store.close() }
        let recorded = try #require(try store.metadata()).entityHashes
        return (recorded, VersionHashes(model: try store.cachedModel().model).entityHashes)
    }

    static func names(_ path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchAll(db, sql: #"SELECT "ZNAME" FROM "ZTRIP" ORDER BY "Z_PK""#) }
    }

    /// Release 0 wrote the store (with its own model cached); releases 1 and 2 each check their sources,
    /// export the plan, and at launch migrate from whatever model the store keeps: release 2's step starts
    /// from the model release 1 wrote into Z_MODELCACHE, not from any sources.
    @Test func anUnversionedAppsTwoReleasesMigrateFromTheStoresOwnModel() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let schemas = try Self.releases.map { try SwiftDataStores.schema($0, "1.0.0") }
        let store = dir.appendingPathComponent("default.store")
        try SwiftDataStores.swiftDataStore(schemas[0], at: store.path, cache: try SwiftDataStores.cache())
        #expect(try Self.hashes(store.path).cached == VersionHashes(model: schemas[0]).entityHashes, "release 0's model cached")

        for release in 1...2 {
            let sources = try SwiftDataStores.folder(Self.releases[release])
            defer { try? FileManager.default.removeItem(at: sources) }
            // Build time: the sources alone (no store): the current schema, checked; exported for the app.
            let built = try SwiftDataPlanCheck.check(sources: [sources])
            #expect(built.isInferred && built.passed, "release \(release): \(built.findings)")
            #expect(built.plan.versions.map(\.name) == [SwiftDataPlanCheck.currentSchemaName])
            #expect(built.exportablePlan.versionsAreOrdered == false, "the store's own model is added at launch")
            let summary = try PlanExport.write(built.exportablePlan, to: dir.appendingPathComponent("release\(release)"))

            // The same sources checked against the store: the step's source is the model that wrote it.
            let against = try SwiftDataPlanCheck.check(sources: [sources], store: store)
            #expect(against.isInferred && against.passed, "release \(release): \(against.findings)")
            #expect(against.plan.versions.count == 2)
            #expect(
                against.plan.versions.first.map { VersionHashes(model: $0).entityHashes } == VersionHashes(model: schemas[release - 1]).entityHashes,
                "release \(release): the inferred step starts at release \(release - 1)'s model, from Z_MODELCACHE")

            // Launch: the exported plan, the store's cached model as the source.
            let implied = ImpliedPlan(exported: try PlanFileReader.read(url: summary.planFile), store: store)
            #expect(implied.plan.versions.count == 2, "release \(release): \(implied.notes)")
            #expect(try Migrator(plan: implied.plan).migrate(storeAt: store.path) == .finished(steps: 1), "release \(release)")
            let (recorded, cached) = try Self.hashes(store.path)
            #expect(recorded == VersionHashes(model: schemas[release]).entityHashes, "release \(release): the store is at its schema")
            #expect(cached == recorded, "release \(release): the model it wrote is the one the store keeps")
            #expect(try Self.names(store.path) == ["Lisbon"], "release \(release): the row is kept")

            // Launched again: nothing to do.
            let again = ImpliedPlan(exported: try PlanFileReader.read(url: summary.planFile), store: store)
            #expect(try Migrator(plan: again.plan).migrate(storeAt: store.path) == .finished(steps: 0), "release \(release)")
        }
    }

    /// Each release's launch killed inside its one step, then launched again through the library: the
    /// rerun finishes, and release 2's step still starts from the model release 1 wrote into Z_MODELCACHE.
    /// The killed launch is a child process (a failpoint SIGKILLs it), which here is the `instar`
    /// executable running the same inferred step (`migrate --swiftdata`); every rerun is the app's
    /// path: the exported plan, `ImpliedPlan(exported:store:)`, `Migrator`.
    @Test(arguments: ["step.before-commit", "step.after-commit"])
    func eachReleaseKilledInItsStepFinishesOnTheRerun(failpoint: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let schemas = try Self.releases.map { try SwiftDataStores.schema($0, "1.0.0") }
        let store = dir.appendingPathComponent("default.store")
        try SwiftDataStores.swiftDataStore(schemas[0], at: store.path, cache: try SwiftDataStores.cache())

        for release in 1...2 {
            let sources = try SwiftDataStores.folder(Self.releases[release])
            defer { try? FileManager.default.removeItem(at: sources) }
            let built = try SwiftDataPlanCheck.check(sources: [sources])
            let summary = try PlanExport.write(built.exportablePlan, to: dir.appendingPathComponent("release\(release)"))

            let killed = try InstarProcess(
                ["migrate", "--swiftdata", sources.path, "--store", store.path], environment: ["INSTAR_FAILPOINT": failpoint], directory: dir
            ).result(timeout: 120)
            #expect(killed.reason == .uncaughtSignal && killed.status == SIGKILL, "release \(release), \(failpoint): \(killed)")
            let (recorded, cached) = try Self.hashes(store.path)
            let expected = failpoint.hasSuffix("after-commit") ? release : release - 1
            #expect(recorded == VersionHashes(model: schemas[expected]).entityHashes, "release \(release), \(failpoint): the store after the kill")
            #expect(cached == recorded, "release \(release), \(failpoint): the store and its cached model go together")

            let implied = ImpliedPlan(exported: try PlanFileReader.read(url: summary.planFile), store: store)
            let rerun = try Migrator(plan: implied.plan).migrate(storeAt: store.path)
            #expect(rerun == .finished(steps: expected == release ? 0 : 1), "release \(release), \(failpoint): \(implied.notes)")
            let after = try Self.hashes(store.path)
            #expect(after.recorded == VersionHashes(model: schemas[release]).entityHashes && after.cached == after.recorded, "release \(release)")
            #expect(try Self.names(store.path) == ["Lisbon"], "release \(release): the row is kept")
        }
    }

    /// A lightweight stage SwiftData cannot infer is a typed finding: its kind, schemas, entity, property
    /// and place in the sources, with the fix; it encodes and decodes as it is.
    @Test func aStageSwiftDataCannotInferIsATypedFinding() throws {
        let sources = try SwiftDataStores.folder(
            SwiftDataStores.versioned.replacingOccurrences(of: #"@Model final class Trip { var name: String = ""; var note"#, with: #"@Model final class Trip { var name: Int = 0; var note"#))
        defer { try? FileManager.default.removeItem(at: sources) }
        let checked = try SwiftDataPlanCheck.check(sources: [sources])
        #expect(!checked.isInferred && !checked.passed)
        let finding = try #require(checked.findings.first { $0.kind == .notInferable })
        #expect(finding.versions == ["V1", "V2"] && finding.entity == "Trip" && finding.property == "name", "\(finding)")
        #expect(finding.location?.file.hasSuffix("Models.swift") == true && finding.location?.line != nil, "\(finding)")
        #expect(finding.fix.contains(".custom(fromVersion:toVersion:willMigrate:didMigrate:)"))
        let decoded = try JSONDecoder().decode(SwiftDataFinding.self, from: try JSONEncoder().encode(finding))
        #expect(decoded == finding)
        #expect(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(finding)) is [String: Any])
        #expect(String(decoding: try JSONEncoder().encode(finding.kind), as: UTF8.self) == #""not-inferable""#)
    }

    /// A store no schema of the plan wrote is SwiftData's 134504, as a finding without a place in the sources.
    @Test func aStoreAtNoSchemaOfThePlanIsAnUnknownModelVersion() throws {
        let sources = try SwiftDataStores.folder(SwiftDataStores.versioned)
        defer { try? FileManager.default.removeItem(at: sources) }
        let store = sources.appendingPathComponent("default.store")
        try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(Self.releases[2], "1.0.0"), at: store.path)
        let checked = try SwiftDataPlanCheck.check(sources: [sources], store: store)
        #expect(checked.findings.map(\.kind) == [.unknownModelVersion], "\(checked.findings)")
        #expect(checked.storeSchema == nil && checked.findings.first?.location == nil)

        let matched = try SwiftDataStores.folder(SwiftDataStores.versioned)
        defer { try? FileManager.default.removeItem(at: matched) }
        let v1 = matched.appendingPathComponent("v1.store")
        try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(SwiftDataStores.versioned, "1.0.0"), at: v1.path)
        let atV1 = try SwiftDataPlanCheck.check(sources: [matched], store: v1)
        #expect(atV1.passed && atV1.storeSchema == "V1", "\(atV1.findings)")
    }

    /// Sources that cannot be read, and an unversioned app's store without metadata, are errors with a reason.
    @Test func whatMakesNoPlanIsAnErrorWithItsReason() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = #expect(throws: SwiftDataPlanCheckError.self) {
            try SwiftDataPlanCheck.check(sources: [dir.appendingPathComponent("nowhere.swift")])
        }
        #expect(missing?.reason == .unreadable && missing?.messages.isEmpty == false)
        let sources = try SwiftDataStores.folder(Self.releases[1])
        defer { try? FileManager.default.removeItem(at: sources) }
        let empty = dir.appendingPathComponent("empty.sqlite")
        let queue = try DatabaseQueue(path: empty.path)
        try queue.write { db in try db.execute(sql: #"CREATE TABLE "t" ("x")"#) }
        try queue.close()
        let error = #expect(throws: SwiftDataPlanCheckError.self) { try SwiftDataPlanCheck.check(sources: [sources], store: empty) }
        #expect(error?.reason == .invalidInput && error?.description.contains("no Core Data metadata") == true, "\(String(describing: error))")
    }
}
