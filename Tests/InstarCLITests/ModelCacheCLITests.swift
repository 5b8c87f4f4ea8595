import Foundation
import Testing

@_spi(Layouts) @testable import InstarModel
@testable import InstarModelIO
@_spi(Layouts) @testable import InstarStore
import InstarTestSupport
import InstarStoreTestSupport
import InstarRuntime
@testable import InstarCLI  // ErrorHints, the words the CLI adds to a library error

/// `instar inspect --store S` without `--model`, `instar model export --store`, and the cached model as
/// the source version of a bundle migration: on a store built here and on real stores of the corpus.
@Suite struct ModelCacheCLITests {
    @Test func inspectWithoutModelDescribesTheCacheAndExportReadsBackToTheSameHashes() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = RawDeflate.deflate(try ModelCacheStores.cacheArchive(composite: false))
        let (path, model) = try ModelCacheStores.store(cache: cache, in: folder)
        let inspected = try runInstar(["inspect", "--store", path, "--format", "json"])
        #expect(inspected.status == 0, "\(inspected.stderr)")
        let report = try #require(inspected.json?["cache"] as? [String: Any])
        #expect(report["hashesMatchMetadata"] as? Bool == true)
        #expect(report["versionIdentifier"] as? String == "1.3")
        #expect((report["entities"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Base", "Item"])
        #expect(inspected.json?["version"] as? String == "cached 1.3")
        // The text says the same (its words: the golden transcript cli/inspect-cache.txt).
        #expect(try runInstar(["inspect", "--store", path]).status == 0)

        let output = folder.appendingPathComponent("exported.yaml").path
        let exported = try runInstar(["model", "export", "--store", path, "--output", output])
        #expect(exported.status == 0, "\(exported.stderr)")
        let reread = try ModelFileReader.read(path: output)
        #expect(VersionHashes(model: reread).entityHashes == VersionHashes(model: model).entityHashes)
        let again = try runInstar(["model", "export", "--store", path, "--output", output])
        #expect(again.status == 65, "an existing file is never overwritten")
    }

    @Test func aStoreWithoutCacheIsRefusedByInspectWithoutModel() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, _) = try ModelCacheStores.store(cache: nil, in: folder)
        let result = try runInstar(["inspect", "--store", path])
        #expect(result.status == 66)
        let opened = try SQLiteStore.open(at: path, readOnly: true)
        defer { try? opened.close() }
        let refusal = try #require(#expect(throws: ModelCacheError.self) { try opened.cachedModel() })
        #expect(refusal.kind == .noCache && refusal.path == path, "\(refusal)")
        #expect(result.stderr == "instar: \(ErrorHints.text(refusal))\n", "\(result.stderr)")
    }

    /// A composite-bearing model survives export: the YAML `elements:` key reads back to the same hash.
    @Test func compositeElementsRoundTripThroughTheModelFile() throws {
        let model = try CompiledModelReader.parse(
            data: try ModelCacheStores.cacheArchive(), name: "c", file: "/tmp/c.mom")
        let text = ModelFileWriter.yaml(model)
        #expect(text.contains("elements:"))
        let reread = try ModelFileReader.parse(text, file: "c.yaml")
        #expect(reread.entity(named: "Item")?.attributes.first { $0.name == "kind" }?.elements.count == 2)
        #expect(VersionHashes(model: reread).entityHashes == VersionHashes(model: model).entityHashes)
    }

    /// The three kinds of real caches that once read as zero entities: Core Data framework 641, and
    /// SwiftData with and without composite attributes; and a framework 637 cache whose sub-entities
    /// repeat their inherited properties (Moody). Each hashes exactly as its store's metadata.
    @Test(
        .needsCorpus,
        arguments: [
            "Awful__Awful.app/Smilies/Sources/Smilies/Resources/Smilies.sqlite",
            "objcio__core-data/Migrations/MigrationsTests/Moody.moody",
            "swiftdata/TrinsicVentures__FreezeRay/FreezeRayTestApp/FreezeRay/Fixtures/2.0.0/App-2_0_0.sqlite",
            "swiftdata/MatthewHunt84__MetaCocktailsSwiftData/@f6051d07/MetaCocktailsSwiftData/Model/Database/default.store",
        ])
    func realCachesHashAsTheirMetadata(relative: String) throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try MappingStepCorpusTests.copy(relative, into: folder, as: "store.sqlite")
        let store = try SQLiteStore.open(at: path, readOnly: true)
        let cached = try store.cachedModel()
        let metadata = try #require(try store.metadata())
        #expect(!cached.model.entities.isEmpty)
        #expect(cached.hashConflicts(with: metadata.entityHashes) == [])
    }

    /// EasyLife 1.3.0.sqlite was written by a revision of version 1.3.0 that the bundle no longer has;
    /// Core Data would migrate it from its cache, and so does `instar migrate --model <bundle>`.
    @Test(.needsCorpus) func aStoreWhoseVersionLeftTheBundleMigratesFromItsCache() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try MappingStepCorpusTests.copy(
            "larromba__EasyLife/EasyLifeTests/EasyLife 1.3.0.sqlite", into: folder, as: "EasyLife.sqlite")
        let bundle = corpusRoot.appendingPathComponent("larromba__EasyLife/EasyLife/EasyLife.xcdatamodeld").path
        let planned = try runInstar(["plan", "--model", bundle, "--store", path, "--format", "json"])
        #expect(planned.status == 0, "\(planned.stderr)")
        let implied = try ImpliedPlan(models: [URL(fileURLWithPath: bundle)], store: URL(fileURLWithPath: path), target: nil)
        #expect(implied.notes.contains { if case .cachedModelIsTheSource = $0 { true } else { false } }, "\(implied.notes)")
        // One step, straight to the current version, as Core Data migrates from a cache: never through an
        // older version that lacks the store's Project entity.
        let steps = (planned.json?["steps"] as? [[String: Any]])?.map { "\($0["from"] ?? "")→\($0["to"] ?? "")" }
        #expect(steps == ["cached→EasyLife 1.5.0"])
        let migrated = try runInstar(["migrate", "--store", path, "--model", bundle])
        #expect(migrated.status == 0, "\(migrated.stdout)\n\(migrated.stderr)")
        let target = try ModelBundle.read(xcdatamodeld: URL(fileURLWithPath: bundle))
        let current = try #require(target.versions.first { $0.name == target.currentVersionName })
        let store = try SQLiteStore.open(at: path, readOnly: true)
        #expect(try store.metadata()?.entityHashes == VersionHashes(model: current).entityHashes)
    }
}
