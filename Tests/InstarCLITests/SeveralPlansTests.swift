import Foundation
@_spi(Layouts) import InstarModel
import InstarSwiftDataCheck
import Testing
import InstarTestSupport
import InstarSwiftDataTestSupport

/// An app with two containers declares two `SchemaMigrationPlan`s in one module: each is planned, and a
/// store is migrated by the plan whose schemas include the store's (issue 40, item 4).
@Suite struct SeveralPlansTests {
    static func plan(_ name: String, _ prefix: String, _ model: String, _ v1: String, _ v2: String) -> String {
        """
        enum \(prefix)1: VersionedSchema {
            static var versionIdentifier = Schema.Version(1, 0, 0)
            static var models: [any PersistentModel.Type] { [\(model).self] }
            @Model final class \(model) { \(v1) init() {} }
        }
        enum \(prefix)2: VersionedSchema {
            static var versionIdentifier = Schema.Version(2, 0, 0)
            static var models: [any PersistentModel.Type] { [\(model).self] }
            @Model final class \(model) { \(v2) init() {} }
        }
        enum \(name): SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [\(prefix)1.self, \(prefix)2.self] }
            static var stages: [MigrationStage] { [.lightweight(fromVersion: \(prefix)1.self, toVersion: \(prefix)2.self)] }
        }
        """
    }

    static let sources = "import SwiftData\n"
        + plan("TripsPlan", "A", "Trip", "var name: String = \"\";", "var name: String = \"\"; var note: String?;") + "\n"
        + plan("PhotosPlan", "B", "Photo", "var title: String = \"\";", "var title: String = \"\"; var taken: Date?;")

    @Test func withoutAStoreEachPlanIsPlanned() throws {
        let folder = try SwiftDataStores.folder(Self.sources)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runInstar(["plan", "--swiftdata", folder.appendingPathComponent("Models.swift").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("SwiftData plan TripsPlan") && result.stdout.contains("chain: A1 → A2"))
        #expect(result.stdout.contains("SwiftData plan PhotosPlan") && result.stdout.contains("chain: B1 → B2"))
        #expect(result.stderr.contains("2 SchemaMigrationPlans"))

        // The library says which plans there are, for an app to check each.
        let error = #expect(throws: SwiftDataPlanCheckError.self) { try SwiftDataPlanCheck.check(sources: [folder]) }
        #expect(error?.plans == ["TripsPlan", "PhotosPlan"])
        #expect(try SwiftDataPlanCheck.check(sources: [folder], migrationPlan: "PhotosPlan").plan.versions.map(\.name) == ["B1", "B2"])
    }

    @Test func aStoreIsMigratedByThePlanWhoseSchemasIncludeIt() throws {
        let folder = try SwiftDataStores.folder(Self.sources)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sources = folder.appendingPathComponent("Models.swift").path
        let path = folder.appendingPathComponent("photos.store").path
        let b1 = try SwiftDataStores.schema(Self.sources, "1.0.0", named: "B1")
        try SwiftDataStores.swiftDataStore(b1, at: path, row: false)

        let result = try runInstar(["migrate", "--swiftdata", sources, "--store", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("using PhotosPlan"), "\(result.stderr)")
        let b2 = try SwiftDataStores.schema(Self.sources, "2.0.0", named: "B2")
        let after = try SwiftDataStores.metadata(path)
        #expect(
            SwiftDataStores.canonical(after.dictionary["NSStoreModelVersionHashes"])
                == SwiftDataStores.canonical(VersionHashes(model: b2).entityHashes))
    }

    @Test func aStoreAtNoPlansSchemaIsRefusedNamingThePlans() throws {
        let folder = try SwiftDataStores.folder(Self.sources)
        defer { try? FileManager.default.removeItem(at: folder) }
        let other = try SwiftDataStores.schema(SwiftDataStores.unversioned("var name: String; var stops: Int = 0;"), "1.0.0")
        let path = folder.appendingPathComponent("other.store").path
        try SwiftDataStores.swiftDataStore(other, at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try runInstar(["migrate", "--swiftdata", folder.appendingPathComponent("Models.swift").path, "--store", path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("no schema of the 2 SchemaMigrationPlans (TripsPlan, PhotosPlan)"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
