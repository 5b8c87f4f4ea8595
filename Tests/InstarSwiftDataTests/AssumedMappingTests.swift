import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarPlanner
import InstarRuntime
import InstarSwiftData
import Testing
import InstarTestSupport
import InstarSwiftDataTestSupport

/// Swift types whose SwiftData storage no real store shows: analysis goes on with the natural Core Data
/// type and says so at the declaration; a migration that would write a schema resting on such a
/// mapping is refused unless the store proves it or the app accepts it (issue 40, item 3).
@Suite struct AssumedMappingTests {
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

    @Test func anAppMigratingFromAnExportIsRefusedUntilItAccepts() throws {
        // The mark travels in the exported model files: an app at launch meets the same refusal.
        let v1 = try SwiftDataStores.schema(AssumedTypeSources.tripChanges, "1.0.0")
        let v2 = try SwiftDataStores.schema(AssumedTypeSources.tripChanges, "2.0.0")
        let fromFiles = try [v1, v2].map { try ModelFileReader.parse(ModelFileWriter.yaml($0), file: "\($0.name).yaml") }
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(v1, at: path)
        let migrator = Migrator(plan: Plan(name: "Plan", file: "plan.yaml", layout: "coredata", versions: fromFiles))

        let error = #expect(throws: AssumedMappingError.self) { try migrator.migrate(storeAt: path) }
        #expect(error?.assumptions.map { "\($0.version) \($0.entity).\($0.property) \($0.mapping)" } == ["V2 Trip.ratio CGFloat → Double"])
        #expect(try migrator.configured(acceptsAssumedMappings: true).migrate(storeAt: path) == .finished(steps: 1))
    }

}
