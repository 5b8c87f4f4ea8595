import Crypto
import Foundation
import GRDB
import Testing

@_spi(Layouts) @testable import InstarModel
@testable import InstarModelIO
@_spi(Layouts) @testable import InstarStore
@_spi(Layouts) @testable import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport

/// A store's own model (`Z_MODELCACHE`): raw DEFLATE, the `NSKnownKeysDictionary1` that holds a cached
/// model's entities, composite attributes and their hash, and every way a cache can be unusable.
@Suite struct ModelCacheTests {
    @Test func knownKeysDictionaryEntitiesProxiesAndCompositesAreRead() throws {
        let model = try CompiledModelReader.parse(data: try ModelCacheStores.cacheArchive(), name: "c", file: "/tmp/c.mom")
        #expect(model.entities.map(\.name) == ["Base", "Item"])
        #expect(model.versionIdentifier == "1.3")
        let item = try #require(model.entity(named: "Item"))
        // The proxy stands for the inherited `created`: not declared again on Item.
        #expect(item.attributes.map(\.name) == ["kind", "title"])
        #expect(model.attributes(of: "Item").map(\.name).contains("created"))
        let kind = try #require(item.attributes.first { $0.name == "kind" })
        #expect(kind.type == .composite)
        #expect(kind.elements.map(\.name) == ["count", "raw"])
        #expect(kind.elements.map(\.isOptional) == [false, true])
    }

    /// A composite hashes as SHA-256 over its elements' attribute hashes in name order, and nothing of
    /// its own: the rule that made six SwiftData stores' caches equal their metadata.
    @Test func compositeHashIsTheHashOfItsElementHashes() throws {
        let count = Attribute(name: "count", type: .integer64, isOptional: false)
        let raw = Attribute(name: "raw", type: .string)
        var kind = Attribute(name: "kind", type: .composite)
        kind.elements = [raw, count]
        let expected = Data(SHA256.hash(data: EntityHasher.hash(of: count) + EntityHasher.hash(of: raw)))
        #expect(EntityHasher.hash(of: kind) == expected)
        var renamed = kind
        renamed.name = "sort"
        #expect(EntityHasher.hash(of: renamed) == expected, "the composite's own name is not hashed")
        kind.elements[1].isOptional = true
        #expect(EntityHasher.hash(of: kind) != expected, "an element's flags are")
    }

    @Test func anArchiveWithoutEntitiesIsAnErrorNamingTheFile() throws {
        let data = try ModelCacheStores.cacheArchive(entities: false)
        do {
            _ = try CompiledModelReader.parse(data: data, name: "c", file: "/tmp/empty.mom")
            Issue.record("a model without entities was accepted")
        } catch {
            let problem = try #require(error.problems.first)
            #expect(problem.location?.file == "/tmp/empty.mom")
            // No entity, and what NSEntities held instead, as values.
            #expect(problem.kind == .missingKey)
            guard case .noEntities(_, .emptyCollection(let className, _)) = (error.underlying as? KeyedArchiveError)?.reason else {
                Issue.record("\(error)")
                return
            }
            #expect(className == "NSKnownKeysDictionary1", "says what it found: \(problem.message)")
        }
    }

    @Test func rawDeflateRoundTripsAndRejectsDamage() throws {
        let text = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 % 251 ^ ($0 >> 7)) })
        let packed = RawDeflate.deflate(text)
        #expect(!packed.isEmpty && packed.count < text.count)
        #expect(try RawDeflate.inflate(packed) == text)
        #expect(throws: RawDeflate.Failure.truncated) { try RawDeflate.inflate(packed.prefix(packed.count / 2)) }
        // A zlib-wrapped stream (header 0x78 0x9c) is not raw DEFLATE.
        #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate(Data([0x78, 0x9C, 0xFF, 0xFF, 0xFF])) }
    }

    @Test func aStoreReadsItsOwnModelAndItHashesAsTheMetadata() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = try ModelCacheStores.cacheArchive(composite: false)
        let (path, model) = try ModelCacheStores.store(cache: RawDeflate.deflate(archive), in: folder)
        let store = try SQLiteStore.open(at: path, readOnly: true)
        let cached = try store.cachedModel()
        #expect(cached.model.name == "cached 1.3")
        #expect(cached.archiveSize == archive.count)
        #expect(VersionHashes(model: cached.model).entityHashes == VersionHashes(model: model).entityHashes)
        let metadata = try #require(try store.metadata())
        #expect(cached.hashConflicts(with: metadata.entityHashes).isEmpty)
        var other = metadata.entityHashes
        other["Item"] = Data(repeating: 7, count: 32)
        other["Gone"] = Data(repeating: 1, count: 32)
        let conflicts = cached.hashConflicts(with: other)
        #expect(conflicts.count == 2)
        #expect(conflicts.contains { $0.hasPrefix("entity Item: the cache hashes to") })
        #expect(conflicts.contains { $0 == "entity Gone is in the metadata, not in the cache" })
    }

    @Test(arguments: [
        ("none", nil), ("not deflate", Data([0x07, 0xFF, 0xFF, 0x00])), ("not a plist", RawDeflate.deflate(Data("hello".utf8))),
    ] as [(String, Data?)])
    func unusableCachesAreTypedErrors(label: String, blob: Data?) throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, _) = try ModelCacheStores.store(cache: blob, in: folder)
        let store = try SQLiteStore.open(at: path, readOnly: true)
        do {
            _ = try store.cachedModel()
            Issue.record("\(label): read")
        } catch {
            #expect(error.path == path)
            #expect(error.description.hasPrefix(path))
            switch (label, error.kind) {
            case ("none", .noCache), ("not deflate", .notDeflate), ("not a plist", .notAPropertyList): break
            default: Issue.record("\(label): \(error.kind)")
            }
        }
    }

    @Test func archivesThatAreNotModelsAreTypedErrors() throws {
        let notArchive = try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .binary, options: 0)
        do {
            _ = try CachedStoreModel.decode(archive: notArchive, compressedSize: 1, path: "s")
            Issue.record("a dictionary was read as a model")
        } catch {
            guard case .notAModelArchive = error.kind, case .notAKeyedArchive? = error.archiveReason else {
                Issue.record("\(error)")
                return
            }
        }
        let empty = try ModelCacheStores.cacheArchive(entities: false)
        do {
            _ = try CachedStoreModel.decode(archive: empty, compressedSize: 1, path: "s")
            Issue.record("an empty model was accepted")
        } catch {
            guard case .noEntities = error.kind, case .noEntities? = error.archiveReason else {
                Issue.record("\(error)")
                return
            }
        }
    }
}
