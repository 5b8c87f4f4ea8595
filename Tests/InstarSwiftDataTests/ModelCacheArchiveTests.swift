import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import InstarSwiftData
import InstarModelIO
import Testing
import InstarTestSupport
import InstarSwiftDataTestSupport
@testable import InstarModelIO

/// The model SwiftData keeps in `Z_MODELCACHE`, written by Instar from the app's sources: as an object
/// graph (classes, keys, values; references followed), equal to the cache SwiftData itself wrote, for
/// every store of the corpus.
@Suite struct ModelCacheArchiveTests {
    /// A schema with every shape the caches show: scalars, an optional and an indexed property, a
    /// `#Unique`, a compound `#Index`, an enum and a struct composite, a to-many with its inverse, a
    /// one-sided cascade, defaults.
    @Test func writesWhatTheReaderReadsBack() throws {
        let read = SwiftDataReader().read(files: [(path: "M.swift", text: """
            enum Kind: String, Codable { case a, b }
            struct Box: Codable { var width: Double?; var label: String? }
            @Model final class Trip {
                #Unique<Trip>([\\.code])
                #Index<Trip>([\\.code], [\\.code, \\.nights])
                var code: String
                var nights: Int = 2
                var done: Bool = false
                var start: Date?
                var id = UUID()
                var kind: Kind?
                var box: Box = Box()
                var tags: [String]?
                @Relationship(deleteRule: .cascade) var stops: [Stop] = []
                @Relationship(inverse: \\Note.trip) var notes: [Note] = []
                init(code: String) { self.code = code }
            }
            @Model final class Stop { var place: String?; init() {} }
            @Model final class Note { var text: String = ""; var trip: Trip?; init() {} }
            let schema = Schema([Trip.self, Stop.self, Note.self])
            """)])
        let model = try LaunchDefaults.evaluated(try #require(read.schemas.first, "\(read.errors)").model)
        let archive = try ModelCacheArchive.archive(model)
        #expect(archive.starts(with: Array("bplist00".utf8)))
        let decoded = try CachedStoreModel.decode(archive: archive, compressedSize: 0, path: "written")
        #expect(VersionHashes(model: decoded.model).entityHashes == VersionHashes(model: model).entityHashes)
        #expect(decoded.model.versionIdentifiers == ["1.0.0"])
        let text = try ModelCacheGraph.graph(archive)
        #expect(text.contains("_P: 177") || text.contains("_P: 179"), "an enum composite's flags: \(text)")
        #expect(text.contains("NSMutableDictionary{}"), "Box() of optional members is an empty dictionary")
        #expect(text.contains("\"Array<String>\""), "[String]'s value class")
    }

    /// What no cache shows is refused, each reason named, rather than written as a guess.
    @Test func shapesNoCacheShowsAreRefusedWithReasons() throws {
        let read = SwiftDataReader().read(files: [(path: "M.swift", text: """
            @Model final class Trip {
                var small: Int32 = 0
                @Attribute(.preserveValueOnDeletion) var photo: Data?
                @Relationship(deleteRule: .deny) var stops: [Stop] = []
                var score: Float = 1.5
                init() {}
            }
            @Model final class Stop { var place: String?; init() {} }
            let schema = Schema([Trip.self, Stop.self])
            """)])
        let model = try #require(read.schemas.first, "\(read.errors)").model
        #expect(throws: ModelCacheArchive.Unsupported.self) { try ModelCacheArchive.archive(model) }
        do {
            _ = try ModelCacheArchive.archive(model)
        } catch {
            let text = error.description
            for fragment in ["Trip.small: Integer 32", "Trip.photo: an @Attribute option", "Trip.stops: delete rule deny", "Trip.score: a Float default"] {
                #expect(text.contains(fragment), "\(fragment): \(text)")
            }
        }
    }

    /// Every corpus store: the cache Instar writes from the app's sources (the store's schema, launch
    /// defaults evaluated) has the object graph of the cache SwiftData wrote.
    @Test(.needsCorpus) func everyCorpusStoresCacheIsWrittenAsSwiftDataWroteIt() throws {
        let root = corpusRoot.appendingPathComponent("swiftdata")
        var equal: [String] = []
        for store in try SwiftDataCorpus.stores() {
            let schema = try SwiftDataCorpus.schema(for: store)
            let model = try LaunchDefaults.evaluated(Self.suppliedNoon(schema.model))

            let folder = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let original = root.appendingPathComponent(store.path)
            let copy = folder.appendingPathComponent(original.lastPathComponent)
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: original.path + suffix) {
                try FileManager.default.copyItem(atPath: original.path + suffix, toPath: copy.path + suffix)
            }
            let opened = try SQLiteStore.open(at: copy.path, readOnly: true)
            let real = try opened.cachedModel().archive
            try opened.close()

            let written: Data
            do {
                // ChefTime's framework (1327) leaves composite elements' NSEntity null.
                written = try ModelCacheArchive.archive(
                    model, configurations: Self.configurations(of: store.path),
                    elementsNameTheirEntity: !store.path.hasPrefix("jdeda__iOS-ChefTime/"))
            } catch {
                Issue.record("\(store.path): \(error)")
                continue
            }
            let (mine, theirs) = (try ModelCacheGraph.graph(written), try ModelCacheGraph.graph(real))
            #expect(mine == theirs, "\(store.path): \(ModelCacheGraph.firstDifference(mine, theirs))")
            if mine == theirs { equal.append(store.path) }
        }
        print("Z_MODELCACHE written from sources, equal as object graphs to SwiftData's: \(equal.count) stores:\n  " + equal.joined(separator: "\n  "))
        #expect(equal.count == (try SwiftDataCorpus.stores()).count)
    }

    /// The configuration comes from the app's `ModelConfiguration`, not from the schema: Retroview names
    /// it (`ModelConfiguration("MyStereoviews", …)`, RetroviewApp.swift); ChefTime's is unnamed and its
    /// framework (1327, the oldest here) writes no NSConfigurations; every other store has `default`.
    static func configurations(of store: String) -> ModelCacheArchive.Configurations {
        if store.hasPrefix("atomicguy__Retroview/") { return .named("MyStereoviews") }
        if store.hasPrefix("jdeda__iOS-ChefTime/") { return .absent }
        return .default
    }

    /// PegaseUIData's `= Date().noon` defaults call an extension the corpus copy lacks: they stand in as
    /// a date (the graph compares launch-evaluated dates by kind), the one fact supplied here.
    static func suppliedNoon(_ model: Model) throws -> Model {
        var entities = model.entities
        for e in entities.indices {
            for a in entities[e].attributes.indices
            where entities[e].attributes[a].userInfo[SwiftDataUserInfo.appEvaluatedDefault] == "Date().noon" {
                entities[e].attributes[a].defaultValue = "0"
            }
        }
        return try Model(
            name: model.name, versionIdentifier: model.versionIdentifier, entities: entities, locations: model.locations.all,
            source: model.source, versionIdentifiers: model.versionIdentifiers, rawSQL: model.rawSQL)
    }
}
