import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarPlanner
import InstarRuntime
import InstarSwiftData
import Testing
import InstarTestSupport
import InstarSwiftDataTestSupport

/// The cases of AssumedMappingTests (InstarSwiftDataTests) that run `instar`.
@Suite struct AssumedMappingCLITests {
    @Test func aMigrationWritingAnUnprovenAssumptionIsRefusedAndTheStoreUntouched() throws {
        let folder = try SwiftDataStores.folder(AssumedTypeSources.tripChanges)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(AssumedTypeSources.tripChanges, "1.0.0"), at: path)
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
        let v2 = try SwiftDataStores.schema(AssumedTypeSources.tripChanges, "2.0.0")
        let after = try SwiftDataStores.metadata(path)
        #expect(
            SwiftDataStores.canonical(after.dictionary["NSStoreModelVersionHashes"])
                == SwiftDataStores.canonical(VersionHashes(model: v2).entityHashes))
    }

    @Test func anEntityTheStoreRecordsWithTheSameHashProvesItsAssumption() throws {
        let folder = try SwiftDataStores.folder(AssumedTypeSources.tripKept)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(AssumedTypeSources.tripKept, "1.0.0"), at: path)
        let result = try runInstar(["migrate", "--swiftdata", folder.appendingPathComponent("Models.swift").path, "--store", path])
        #expect(result.status == 0, "Trip is unchanged and the store records its hash: \(result.stderr)")
    }

    @Test func aReleaseCheckSaysTheLaunchWillRefuseAnUnprovenAssumption() throws {
        let folder = try SwiftDataStores.folder(AssumedTypeSources.tripChanges)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sources = folder.appendingPathComponent("Models.swift").path
        let path = folder.appendingPathComponent("default.store").path
        try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(AssumedTypeSources.tripChanges, "1.0.0"), at: path)

        // Without a store and with one: the step writes V2's changed Trip, which no store can prove.
        for extra in [[], ["--store", path]] {
            let refused = try runInstar(["check", "--swiftdata", sources] + extra)
            #expect(refused.status == 3, "\(extra): \(refused.stdout)")
            #expect(refused.stdout.contains("[assumedMapping] Trip.ratio: CGFloat → Double"), "\(refused.stdout)")
            let accepted = try runInstar(["check", "--swiftdata", sources, "--accept-assumed-types"] + extra)
            #expect(accepted.status == 0, "\(extra): \(accepted.stdout) \(accepted.stderr)")
        }
        // The kept entity is proven by any store at V1: nothing to say.
        let kept = try SwiftDataStores.folder(AssumedTypeSources.tripKept)
        defer { try? FileManager.default.removeItem(at: kept) }
        #expect(try runInstar(["check", "--swiftdata", kept.appendingPathComponent("Models.swift").path]).status == 0)
    }
}
