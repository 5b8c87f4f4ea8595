import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import InstarSwiftData
import Testing
import InstarTestSupport
import InstarSwiftDataTestSupport

/// A model written back as SwiftData sources (the scaffold's shipped schema): read again, it hashes as the
/// model; what a model does not describe in full is named and left to fill in, never invented.
@Suite struct SchemaSourceWriterTests {
    static let source = """
        import SwiftData
        enum V1: VersionedSchema {
            static var versionIdentifier = Schema.Version(1, 0, 0)
            static var models: [any PersistentModel.Type] { [Trip.self, Stop.self] }
            @Model final class Trip {
                #Unique<Trip>([\\.name, \\.start])
                #Index<Trip>([\\.name])
                @Attribute(.unique) var code: String
                var name: String = "Lisbon"
                var start: Date?
                var nights: Int = 2
                var `default`: Bool = false
                var rating: Double?
                var budget: Decimal?
                var id: UUID
                @Attribute(.externalStorage, hashModifier: "v2") var photo: Data?
                @Relationship(deleteRule: .cascade, inverse: \\Stop.trip) var stops: [Stop] = []
                @Relationship(minimumModelCount: 1) var home: Stop
                init(code: String, id: UUID, home: Stop) { self.code = code; self.id = id; self.home = home }
            }
            @Model final class Stop {
                var place: String?
                var trip: Trip?
                init() {}
            }
        }
        """

    static func model(_ text: String, _ name: String) throws -> Model {
        let read = SwiftDataReader().read(files: [(path: "M.swift", text: text)])
        return try #require(read.schemas.first { $0.name == name }, "\(read.errors)").model
    }

    @Test func everyScalarRelationshipAndConstraintHashesAsTheModel() throws {
        let model = try Self.model(Self.source, "V1")
        let written = SchemaSourceWriter.versionedSchema(model, name: "SchemaV1", version: "1.0.0")
        #expect(written.unwritten.isEmpty, "\(written.unwritten)")
        #expect(written.hashesEqual, "\(written.text)")
        #expect(written.text.contains("var `default`: Bool = false"), "\(written.text)")
        #expect(written.text.contains("@Relationship(deleteRule: .cascade, inverse: \\Stop.trip) var stops: [Stop] = []")
                || written.text.contains("inverse: \\Trip.stops"), "one side declares the inverse: \(written.text)")
        #expect(written.text.contains("init(code: String, home: Stop, id: UUID)"), "\(written.text)")
    }

    /// A composite's enum or struct and a transformable's Swift type are not in a model: named, not guessed.
    @Test func compositesAndTransformablesAreLeftToFillIn() throws {
        let model = try Self.model("""
            enum Kind: String, Codable { case a, b }
            enum V1: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, 0, 0)
                static var models: [any PersistentModel.Type] { [Item.self] }
                @Model final class Item { var kind: Kind?; var tags: [String]?; var name: String = ""; init() {} }
            }
            """, "V1")
        let written = SchemaSourceWriter.versionedSchema(model, name: "SchemaV1", version: "1.0.0")
        #expect(!written.hashesEqual)
        #expect(written.unwritten.contains { $0.hasPrefix("Item.kind: a composite (kind: String)") }, "\(written.unwritten)")
        #expect(written.unwritten.contains { $0.hasPrefix("Item.tags: Transformable") }, "\(written.unwritten)")
        #expect(written.text.contains("// FILL IN: var kind: …"), "\(written.text)")
    }

    /// Every corpus SwiftData store's own model (Z_MODELCACHE) written back: read again, it hashes as the
    /// store's metadata, or names what it leaves to fill in (MetaCocktails' enums and structs).
    @Test(.needsCorpus) func everyCorpusStoresCachedModelRoundTrips() throws {
        let root = corpusRoot.appendingPathComponent("swiftdata")
        var exact = 0
        var partial: [String] = []
        for store in try SwiftDataCorpus.stores() {
            let folder = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let original = root.appendingPathComponent(store.path)
            let copy = folder.appendingPathComponent(original.lastPathComponent)
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: original.path + suffix) {
                try FileManager.default.copyItem(atPath: original.path + suffix, toPath: copy.path + suffix)
            }
            let opened = try SQLiteStore.open(at: copy.path, readOnly: true)
            let cached = try opened.cachedModel()
            try opened.close()
            #expect(VersionHashes(model: cached.model).base64EntityHashes == store.hashes, "\(store.path)")
            let written = SchemaSourceWriter.versionedSchema(cached.model, name: "SchemaV1", version: "1.0.0")
            if written.hashesEqual {
                exact += 1
            } else {
                #expect(!written.unwritten.isEmpty, "\(store.path): written in full but hashes differ:\n\(written.text)")
                #expect(written.unwritten.allSatisfy { $0.contains("a composite") || $0.contains("Transformable") }, "\(written.unwritten)")
                partial.append(store.path)
            }
        }
        print("cached models written back as Swift: \(exact) exact, \(partial.count) with composites or transformables to fill in: \(partial)")
        #expect(exact >= 7, "FreezeRay 4, SwiftDeveloperBlog 1, myhome 1, ResourcesManager 1")
    }
}
