import Foundation
import GRDB
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import InstarTestSupport
import InstarStoreTestSupport
import Testing

/// The store keeps its own model: moving a Core Data store to a version writes that version's model into
/// `Z_MODELCACHE` in the same transaction (``ModelCacheWriter``), decoded back before the commit.
@Suite struct StoreModelCacheWriteTests {
    /// Inheritance, an abstract entity with a hash modifier, an ordered to-many with a maximum and the deny
    /// rule, integer and float defaults, transient, external-storage and user-info attributes: shapes the
    /// SwiftData caches never show, which a Core Data store's cache must still hold.
    static let v1YAML = """
        entities:
          Item:
            abstract: true
            hashModifier: items1
            attributes:
              name: string?
              count: {type: int16, default: 3}
              price: {type: double, optional: true, default: 1.5}
              scratch: {type: string, optional: true, transient: true}
              photo: {type: binary, optional: true, externalStorage: true}
              note: {type: string, optional: true, userInfo: {purpose: shown}}
            relationships:
              shelf: {to: Shelf, optional: true, inverse: items}
          Book:
            parent: Item
            attributes: {pages: int32?}
          Shelf:
            relationships:
              items: {to: Item, toMany: true, ordered: true, inverse: shelf, deleteRule: deny, max: 5}
        """
    static let v2YAML = v1YAML.replacingOccurrences(of: "attributes: {pages: int32?}", with: "attributes: {pages: int32?, isbn: string?}")

    static func cacheBytes(_ store: SQLiteStore) throws -> [Data] {
        try store.withDatabase { db in try Data.fetchAll(db, sql: "SELECT \"Z_CONTENT\" FROM \"Z_MODELCACHE\"") }
    }

    @Test func aMigratedStoresCacheDecodesToTheTargetsHashes() throws {
        let (v1, v2) = (try model(Self.v1YAML, name: "V1"), try model(Self.v2YAML, name: "V2"))
        let f = try CoreDataLayoutTests.Fixture(v1)
        // A created store keeps none yet; the step writes the target's.
        #expect(try Self.cacheBytes(f.store).isEmpty)
        _ = try f.store.migrate(from: v1, to: v2)
        #expect(try Self.cacheBytes(f.store).count == 1)
        let cached = try f.store.cachedModel()
        #expect(cached.hashConflicts(with: v2.versionHashes.entityHashes) == [])
        #expect(cached.hashConflicts(with: try #require(try f.store.metadata()).entityHashes) == [])
        // What is not hashed comes back too.
        let item = try #require(cached.model.entity(named: "Item"))
        #expect(item.isAbstract && item.versionHashModifier == "items1")
        #expect(item.attributes.first { $0.name == "count" }?.defaultValue == "3")
        #expect(item.attributes.first { $0.name == "price" }?.defaultValue == "1.5")
        #expect(item.attributes.first { $0.name == "note" }?.userInfo == ["purpose": "shown"])
        #expect(cached.model.entity(named: "Book")?.parent == "Item")
        let items = try #require(cached.model.entity(named: "Shelf")?.relationships.first)
        #expect(items.isOrdered && items.deleteRule == .deny && items.maxCount == 5)
    }

    @Test func aLayoutBeforeTheCacheGetsNone() throws {
        let (v1, v2) = (try model(Self.v1YAML, name: "V1"), try model(Self.v2YAML, name: "V2"))
        let f = try CoreDataLayoutTests.Fixture(v1, layout: CoreDataLayout(frameworkVersion: 479))
        _ = try f.store.migrate(from: v1, to: v2)
        #expect(try f.values("SELECT count(*) FROM sqlite_master WHERE name = 'Z_MODELCACHE'") == [[.int(0)]])
        let outcome = try f.store.withDatabase { db in
            try ModelCacheWriter.write(db, model: v2, layout: CoreDataLayout(frameworkVersion: 479))
        }
        #expect(outcome == .notKept(frameworkVersion: 479))
    }

    /// A non-zero decimal default has no archived form the writer knows: the migration succeeds, the
    /// store's previous cache row stays byte for byte, and the refusal names the attribute.
    @Test func aModelTheWriterCannotExpressKeepsThePreviousCache() throws {
        let v1 = try model(Self.v1YAML, name: "V1")
        let v2 = try model(Self.v2YAML.replacingOccurrences(of: "isbn: string?", with: "cost: {type: decimal, optional: true, default: 2.5}"), name: "V2")
        let f = try CoreDataLayoutTests.Fixture(v1)
        let planted = try ModelCacheWriter.compressedArchive(of: v1).get()
        try f.execute("INSERT INTO \"Z_MODELCACHE\" (\"Z_CONTENT\") VALUES (?)", [planted])
        let before = try Self.cacheBytes(f.store)
        #expect(before == [planted])
        _ = try f.store.migrate(from: v1, to: v2)
        #expect(try f.store.metadata()?.entityHashes == v2.versionHashes.entityHashes)
        #expect(try Self.cacheBytes(f.store) == before)
        guard case .failure(let refusal) = ModelCacheWriter.compressedArchive(of: v2) else {
            Issue.record("a non-zero decimal default was archived")
            return
        }
        #expect(refusal.version == "V2" && refusal.description.contains("Book.cost: a Decimal default `2.5`"), "\(refusal)")
    }

    /// Written and decoded in the same shapes whatever the style, so the SwiftData caches the corpus
    /// reproduces are unchanged by the Core Data style: a SwiftData-shaped model archives identically.
    @Test func bothStylesWriteTheSameBytesForAModelBothAccept() throws {
        let plain = try model("entities:\n  Note:\n    attributes: {text: string?, rank: int64}\n", name: "N")
        #expect(try ModelCacheArchive.archive(plain, style: .coreData) == ModelCacheArchive.archive(plain, style: .swiftDataCorpus))
    }

    /// `instar migrate` killed at the step's commit failpoints: before the commit the store is the old
    /// version with the old model; after it, the new version with the new model; a kill never pairs one
    /// version with the other's cache.
    @Test(arguments: ["step.statement", "step.before-commit", "step.after-commit"])
    func aKillAtTheCommitLeavesStoreAndCacheTogether(failpoint: String) throws {
        let (v1, v2) = (try model(Self.v1YAML, name: "V1"), try model(Self.v2YAML, name: "V2"))
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (path, from, to) = (dir.appendingPathComponent("S.sqlite").path, dir.appendingPathComponent("V1.yaml").path, dir.appendingPathComponent("V2.yaml").path)
        try Self.v1YAML.write(toFile: from, atomically: true, encoding: .utf8)
        try Self.v2YAML.write(toFile: to, atomically: true, encoding: .utf8)
        // The store at V1 with V1's own model in its cache, as Core Data leaves it.
        let created = try SQLiteStore.create(at: path, model: v1, layout: CoreDataLayout())
        let planted = try ModelCacheWriter.compressedArchive(of: v1).get()
        try created.withDatabase { db in try db.execute(sql: "INSERT INTO \"Z_MODELCACHE\" (\"Z_CONTENT\") VALUES (?)", arguments: [planted]) }
        try created.close()

        let killed = try InstarProcess(["migrate", "--store", path, "--model", from, "--to-model", to], environment: ["INSTAR_FAILPOINT": failpoint], directory: dir).result(timeout: 120)
        #expect(killed.reason == .uncaughtSignal && killed.status == SIGKILL, "\(failpoint): \(killed)")
        func versionAndCache() throws -> (String, Bool) {
            let store = try SQLiteStore.open(at: path, readOnly: true)
            defer { try? store.close() }
            let hashes = try #require(try store.metadata()).entityHashes
            let version = hashes == v1.versionHashes.entityHashes ? "V1" : hashes == v2.versionHashes.entityHashes ? "V2" : "?"
            return (version, try store.cachedModel().hashConflicts(with: hashes).isEmpty)
        }
        let (version, cacheMatches) = try versionAndCache()
        #expect(version == (failpoint.hasSuffix("after-commit") ? "V2" : "V1"), "\(failpoint)")
        #expect(cacheMatches, "\(failpoint): the cache is not the model of \(version)")

        let resumed = try InstarProcess(["migrate", "--store", path, "--model", from, "--to-model", to], environment: [:], directory: dir).result(timeout: 120)
        #expect(resumed.status == 0, "\(failpoint): \(resumed)")
        let (after, afterMatches) = try versionAndCache()
        #expect(after == "V2" && afterMatches, "\(failpoint): \(after)")
    }
}
