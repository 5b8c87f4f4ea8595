import Foundation
import GRDB
import Testing

@_spi(Layouts) @testable import InstarModel
@_spi(Layouts) @testable import InstarStore
@_spi(Layouts) @testable import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport

/// `StoreInspection`: what `instar inspect` says, decided in the store layer, on the paths an app's store
/// takes: a store with bookkeeping, one without any (a hand-written schema), one known only by its cache.
@Suite struct StoreInspectionTests {
    let v1 = try! model(
        """
        name: V1
        entities:
          Note:
            attributes:
              title: string
        """, name: "V1")
    let v2 = try! model(
        """
        name: V2
        entities:
          Note:
            attributes:
              title: string
              body: string?
        """, name: "V2")

    @Test func aStoreWithBookkeepingIsMatchedByItsMetadata() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("s.sqlite").path
        try SQLiteStore.create(at: path, model: v2).close()
        let inspection = try StoreInspection.of(storeAt: path, layout: nil, candidates: [[v1], [v2]])
        #expect(inspection.detection.version?.name == "V2" && inspection.detection.matchedBy == .metadata)
        #expect(inspection.isExactMatch && inspection.rowCounts == ["Note": 0] && !inspection.describedFromCache)
    }

    /// A schema written by hand has no bookkeeping: the default layout finds no version, so every other
    /// layout is tried and the one whose schema matches is named; the store is left as it was.
    @Test func aStoreWithoutBookkeepingIsMatchedInTheLayoutWhoseSchemaFits() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("plain.sqlite").path
        try SQLiteStore.create(at: path, model: v1, layout: PlainSQLLayout()).close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let inspection = try StoreInspection.of(storeAt: path, layout: nil, candidates: [[v1, v2]])
        #expect(inspection.detection.layout == PlainSQLLayout().name)
        #expect(inspection.detection.version?.name == "V1" && inspection.detection.matchedBy == .schema)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "inspecting writes nothing")

        // Told the layout, no other is tried: the Instar layout sees a store without its tables.
        let told = try StoreInspection.of(storeAt: path, layout: InstarLayout(), candidates: [[v1, v2]])
        #expect(!told.isExactMatch && told.detection.layout == InstarLayout().name)
    }

    /// No model given and no cache: the error says so (the CLI's exit 66), rather than an empty report.
    @Test func withoutModelsAStoreWithoutACacheIsRefused() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (path, _) = try ModelCacheStores.store(cache: nil, in: directory)
        #expect {
            _ = try StoreInspection.of(storeAt: path, layout: nil, candidates: [])
        } throws: { ($0 as? ModelCacheError)?.kind == .noCache }
    }

    /// A cache whose hashes differ from the metadata's is shown, but is not the store's version.
    @Test func aCacheThatDisagreesWithTheMetadataIsNotTheVersion() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let agreeing = try ModelCacheStores.store(
            cache: RawDeflate.deflate(try ModelCacheStores.cacheArchive(composite: false)), in: directory).path
        let matched = try StoreInspection.of(storeAt: agreeing, layout: nil, candidates: [])
        #expect(matched.describedFromCache && matched.detection.matchedBy == .cache && matched.isExactMatch)
        #expect(matched.cache?.agreesWithMetadata == true)

        let other = directory.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let disagreeing = try ModelCacheStores.store(
            cache: RawDeflate.deflate(try ModelCacheStores.cacheArchive(composite: true)), in: other).path
        let unmatched = try StoreInspection.of(storeAt: disagreeing, layout: nil, candidates: [])
        #expect(unmatched.detection.version == nil && unmatched.detection.matchedBy == nil && !unmatched.isExactMatch)
        #expect(unmatched.cache?.metadataConflicts.isEmpty == false)
    }
}
