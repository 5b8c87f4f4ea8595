import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import InstarSwiftData
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarSwiftDataTestSupport
import InstarStoreTestSupport

/// Composite attributes in the Core Data layout, checked against every SwiftData store of the corpus:
/// the tables, columns (names, types, order) and indexes Instar lays out for the schema read from
/// source are those SwiftData created.
@Suite(.needsCorpus) struct SwiftDataLayoutCorpusTests {
    /// Persistent history (`ACHANGE`, `ATRANSACTION`, `ATRANSACTIONSTRING`) is SwiftData's, not the model's.
    static func isHistory(_ table: String) -> Bool { ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"].contains(table) }

    @Test func createdSchemaEqualsEveryStore() throws {
        let stores = try SwiftDataCorpus.stores()
        let versions = try Self.frameworkVersions()
        var equal: [String] = []
        for store in stores {
            let schema = try SwiftDataCorpus.schema(for: store)
            let layout = CoreDataLayout(frameworkVersion: versions[store.path] ?? CoreDataLayout.defaultFrameworkVersion)
            let expected = try layout.storageMap(for: schema.model).schema
            let copy = try SwiftDataCorpus.copyOfStore(store.path)
            defer { try? FileManager.default.removeItem(at: copy.directory) }
            let opened = try SQLiteStore.open(at: copy.path, readOnly: true)
            defer { try? opened.close() }
            let real = try opened.schema()
            let modelTables = real.tables.map(\.name).filter { !Self.isHistory($0) && !layout.isBookkeepingTable($0) }
            #expect(modelTables.sorted() == expected.tables.map(\.name).sorted(), "\(store.path)")
            var same = true
            for table in expected.tables {
                let columns = real.table(named: table.name)?.columns.map { "\($0.name) \($0.declaredType)" }
                let made = table.columns.map { "\($0.name) \($0.declaredType)" }
                #expect(columns == made, "\(store.path) \(table.name)")
                same = same && columns == made
            }
            func indexes(_ s: StoreSchema) -> Set<String> {
                Set(s.indexes.filter { !Self.isHistory($0.table) && !layout.isBookkeepingTable($0.table) }.map {
                    "\($0.isUnique ? "UNIQUE " : "")\($0.name) ON \($0.table) (\($0.elements.map { "\($0.column)\($0.descending ? " DESC" : "")" }.joined(separator: ", ")))"
                })
            }
            #expect(indexes(real) == indexes(expected), "\(store.path)")
            if same && indexes(real) == indexes(expected) && modelTables.count == expected.tables.count {
                equal.append("\(store.path): \(expected.tables.count) tables, \(expected.tables.map(\.columns.count).reduce(0, +)) columns, \(indexes(expected).count) indexes")
            }
        }
        print("SwiftData stores whose schema Instar lays out exactly (\(equal.count)/\(stores.count)):\n  " + equal.joined(separator: "\n  "))
        #expect(equal.count == stores.count)
    }

    static func frameworkVersions() throws -> [String: Int] {
        let data = try Data(contentsOf: SwiftDataCorpus.root.appendingPathComponent("stores.json"))
        let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        var versions: [String: Int] = [:]
        for entry in list {
            if let path = entry["corpus_path"] as? String, let version = entry["frameworkVersion"] as? Int { versions[path] = version }
        }
        return versions
    }
}

/// Adding, changing and removing a composite attribute migrates its element columns.
@Suite struct CompositeMigrationTests {
    static func model(_ source: String, version: String) throws -> Model {
        let read = SwiftDataReader().read(files: [(path: "Models.swift", text: source)])
        #expect(read.errors.isEmpty, "\(read.errors)")
        return try #require(read.schemas.first { $0.versionIdentifier == version }).model
    }

    static let v1 = """
        import SwiftData
        enum V1: VersionedSchema {
            static var versionIdentifier = Schema.Version(1, 0, 0)
            static var models: [any PersistentModel.Type] { [Drink.self] }
            @Model final class Drink { var id: UUID; var name: String; init() { id = UUID(); name = "" } }
        }
        """
    static let v2 = """
        import SwiftData
        struct Author: Codable { var id: UUID?; var person: String? }
        enum V2: VersionedSchema {
            static var versionIdentifier = Schema.Version(2, 0, 0)
            static var models: [any PersistentModel.Type] { [Drink.self] }
            @Model final class Drink { var author: Author?; var id: UUID; var name: String; init() { id = UUID(); name = "" } }
        }
        """
    static let v3 = """
        import SwiftData
        struct Author: Codable { var id: UUID?; var person: String?; var year: Int? }
        enum V3: VersionedSchema {
            static var versionIdentifier = Schema.Version(3, 0, 0)
            static var models: [any PersistentModel.Type] { [Drink.self] }
            @Model final class Drink { var author: Author?; var id: UUID; var name: String; init() { id = UUID(); name = "" } }
        }
        """

    @Test func addingGrowingAndRemovingACompositeKeepsTheRows() throws {
        let (v1, v2, v3) = (try Self.model(Self.v1, version: "1.0.0"), try Self.model(Self.v2, version: "2.0.0"), try Self.model(Self.v3, version: "3.0.0"))
        let fixture = try StoreFixture(v1, layout: CoreDataLayout())
        try fixture.execute("INSERT INTO ZDRINK (Z_PK, Z_ENT, Z_OPT, ZID, ZNAME) VALUES (1, 1, 1, x'01', 'Negroni')")
        try fixture.store.migrate(from: v1, to: v2)
        func columns() throws -> [String] { try #require(try fixture.schema().table(named: "ZDRINK")).columns.map(\.name) }
        #expect(Set(try columns()) == ["Z_PK", "Z_ENT", "Z_OPT", "ZID", "ZID1", "ZNAME", "ZPERSON"])
        // `author` sorts before `id`, so its element claims ZID, as in a store SwiftData creates at
        // V2 (MetaCocktails' Cocktail): the drink's own id moved to ZID1 with its value.
        let author = try #require(try CoreDataLayout().storageMap(for: v2).entities["Drink"]).columns
        #expect(author["author.id"] == "ZID" && author["id"] == "ZID1" && author["author.person"] == "ZPERSON")
        #expect(try fixture.column2("ZDRINK", "ZID1") == [Data([1]).databaseValue])
        #expect(try fixture.column2("ZDRINK", "ZID") == [.null])
        let personColumn = try #require(author["author.person"])
        try fixture.execute("UPDATE ZDRINK SET \(personColumn) = 'Camillo'")
        try fixture.store.migrate(from: v2, to: v3)
        #expect(try columns().contains("ZYEAR"))
        let v3Columns = try #require(try CoreDataLayout().storageMap(for: v3).entities["Drink"]).columns
        #expect(try fixture.column2("ZDRINK", try #require(v3Columns["author.person"])) == [.text("Camillo")])
        #expect(try fixture.column2("ZDRINK", "ZNAME") == [.text("Negroni")])
        try fixture.store.migrate(from: v3, to: v1)
        #expect(Set(try columns()) == ["Z_PK", "Z_ENT", "Z_OPT", "ZID", "ZNAME"])
        #expect(try fixture.column2("ZDRINK", "ZNAME") == [.text("Negroni")])
        #expect(try fixture.column2("ZDRINK", "ZID") == [Data([1]).databaseValue])
    }
}

extension StoreFixture {
    /// One column of every row, by `Z_PK` (Core Data tables have no `_pk`).
    func column2(_ table: String, _ column: String) throws -> [DatabaseValue] {
        try rows(table, orderBy: "Z_PK").map { $0[column] ?? .null }
    }
}
