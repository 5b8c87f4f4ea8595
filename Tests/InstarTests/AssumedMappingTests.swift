import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarPlanner
import InstarRuntime
import InstarSwiftData
import Testing
import InstarTestSupport

/// Swift types whose SwiftData storage no real store shows: analysis goes on with the natural Core Data
/// type and says so at the declaration; a migration that would write a schema resting on such a
/// mapping is refused unless the store proves it or the app accepts it (issue 40, item 3).
@Suite struct AssumedMappingTests {
    static func versioned(v1 trip1: String, v2 trip2: String, v2Models: String = "Trip.self", extra: String = "") -> String {
        """
        import SwiftData
        import CoreGraphics
        enum V1: VersionedSchema {
            static var versionIdentifier = Schema.Version(1, 0, 0)
            static var models: [any PersistentModel.Type] { [Trip.self] }
            @Model final class Trip { var name: String = ""; \(trip1) init() {} }
        }
        enum V2: VersionedSchema {
            static var versionIdentifier = Schema.Version(2, 0, 0)
            static var models: [any PersistentModel.Type] { [\(v2Models)] }
            @Model final class Trip { var name: String = ""; \(trip2) init() {} }
            \(extra)
        }
        enum Plan: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self] }
            static var stages: [MigrationStage] { [.lightweight(fromVersion: V1.self, toVersion: V2.self)] }
        }
        """
    }

    /// The V2 Trip differs from V1's: the store (at V1) cannot prove V2's Trip.
    static let tripChanges = versioned(v1: "var ratio: CGFloat?;", v2: "var ratio: CGFloat?; var note: String?;")
    /// V2 adds an entity and leaves Trip as it is: the store's recorded Trip hash proves the mapping.
    static let tripKept = versioned(
        v1: "var ratio: CGFloat?;", v2: "var ratio: CGFloat?;", v2Models: "Trip.self, Place.self",
        extra: "@Model final class Place { var title: String = \"\"; init() {} }")

    @Test func eachAssumedTypeIsReadWithALocatedWarningAndAMark() throws {
        let text = """
            import SwiftData
            enum Unit: String, Codable { case km, mi }
            struct Leg: Codable { var unit: Unit; var length: Double }
            enum Stop: Codable { case none; case note(String) }
            @Model final class Trip {
                var ratio: CGFloat = 0
                var count: UInt64 = 0
                var small: Int8?
                var tags: Set<String> = []
                var extras: [String: Int]?
                var leg: Leg?
                var stop: Stop?
                init() {}
            }
            let schema = Schema([Trip.self])
            """
        let read = SwiftDataReader().read(files: [(path: "Models.swift", text: text)])
        #expect(read.errors.isEmpty, "\(read.errors)")
        let trip = try #require(read.schemas.first?.model.entities.first { $0.name == "Trip" })
        func marked(_ name: String) -> String? { trip.attributes.first { $0.name == name }?.userInfo[SwiftDataUserInfo.assumedMapping] }
        func type(_ name: String) -> AttributeType? { trip.attributes.first { $0.name == name }?.type }
        #expect(type("ratio") == .double && marked("ratio") == "CGFloat → Double")
        #expect(type("count") == .integer64 && marked("count") == "UInt64 → Integer 64")
        #expect(type("small") == .integer16 && marked("small") == "Int8 → Integer 16")
        #expect(type("tags") == .transformable && marked("tags") == "Set<String> → Transformable")
        #expect(type("extras") == .transformable && marked("extras") == "[String: Int] → Transformable")
        #expect(marked("leg") == "Leg.unit: Unit → String element")
        #expect(type("stop") == .composite && marked("stop") == "Stop → Composite of one optional element per case")
        #expect(marked("name") == nil)
        let warnings = read.diagnostics.filter { $0.severity == .warning && $0.message.contains("is assumed") }
        #expect(warnings.count == 7, "\(warnings.map(\.description))")
        // Each at its declaration: `var ratio` is on line 6.
        #expect(warnings.contains { $0.location.line == 6 && $0.message.contains("CGFloat") })
    }

    @Test func aMigrationWritingAnUnprovenAssumptionIsRefusedAndTheStoreUntouched() throws {
        let folder = try SwiftDataMigrateTests.folder(Self.tripChanges)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataMigrateTests.swiftDataStore(try SwiftDataMigrateTests.schema(Self.tripChanges, "1.0.0"), at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let sources = folder.appendingPathComponent("Models.swift").path

        let refused = try runInstar(["migrate", "--swiftdata", sources, "--store", path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Trip.ratio: CGFloat → Double"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Models.swift:"), "located: \(refused.stderr)")
        #expect(refused.stderr.contains("--accept-assumed-types"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "nothing was written")

        let accepted = try runInstar(["migrate", "--swiftdata", sources, "--store", path, "--accept-assumed-types"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let v2 = try SwiftDataMigrateTests.schema(Self.tripChanges, "2.0.0")
        let after = try SwiftDataMigrateTests.metadata(path)
        #expect(
            SwiftDataMigrateTests.canonical(after.dictionary["NSStoreModelVersionHashes"])
                == SwiftDataMigrateTests.canonical(VersionHashes(model: v2).entityHashes))
    }

    @Test func anEntityTheStoreRecordsWithTheSameHashProvesItsAssumption() throws {
        let folder = try SwiftDataMigrateTests.folder(Self.tripKept)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataMigrateTests.swiftDataStore(try SwiftDataMigrateTests.schema(Self.tripKept, "1.0.0"), at: path)
        let result = try runInstar(["migrate", "--swiftdata", folder.appendingPathComponent("Models.swift").path, "--store", path])
        #expect(result.status == 0, "Trip is unchanged and the store records its hash: \(result.stderr)")
    }

    @Test func anAppMigratingFromAnExportIsRefusedUntilItAccepts() throws {
        // The mark travels in the exported model files: an app at launch meets the same refusal.
        let v1 = try SwiftDataMigrateTests.schema(Self.tripChanges, "1.0.0")
        let v2 = try SwiftDataMigrateTests.schema(Self.tripChanges, "2.0.0")
        let fromFiles = try [v1, v2].map { try ModelFileReader.parse(ModelFileWriter.yaml($0), file: "\($0.name).yaml") }
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataMigrateTests.swiftDataStore(v1, at: path)
        let migrator = Migrator(plan: Plan(name: "Plan", file: "plan.yaml", layout: "coredata", versions: fromFiles))

        let error = #expect(throws: AssumedMappingError.self) { try migrator.migrate(storeAt: path) }
        #expect(error?.assumptions.map { "\($0.version) \($0.entity).\($0.property) \($0.mapping)" } == ["V2 Trip.ratio CGFloat → Double"])
        #expect(try migrator.configured(acceptsAssumedMappings: true).migrate(storeAt: path) == .finished(steps: 1))
    }

    @Test func aReleaseCheckSaysTheLaunchWillRefuseAnUnprovenAssumption() throws {
        let folder = try SwiftDataMigrateTests.folder(Self.tripChanges)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sources = folder.appendingPathComponent("Models.swift").path
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataMigrateTests.swiftDataStore(try SwiftDataMigrateTests.schema(Self.tripChanges, "1.0.0"), at: path)

        // Without a store and with one: the step writes V2's changed Trip, which no store can prove.
        for extra in [[], ["--store", path]] {
            let refused = try runInstar(["check", "--swiftdata", sources] + extra)
            #expect(refused.status == 3, "\(extra): \(refused.stdout)")
            #expect(refused.stdout.contains("[assumedMapping] Trip.ratio: CGFloat → Double"), "\(refused.stdout)")
            let accepted = try runInstar(["check", "--swiftdata", sources, "--accept-assumed-types"] + extra)
            #expect(accepted.status == 0, "\(extra): \(accepted.stdout) \(accepted.stderr)")
        }
        // The kept entity is proven by any store at V1: nothing to say.
        let kept = try SwiftDataMigrateTests.folder(Self.tripKept)
        defer { try? FileManager.default.removeItem(at: kept) }
        #expect(try runInstar(["check", "--swiftdata", kept.appendingPathComponent("Models.swift").path]).status == 0)
    }
}
