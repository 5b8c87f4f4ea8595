import Foundation
import GRDB
import InstarInference
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarSeeding
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
import Testing
import InstarTestSupport

/// To-many relationships without an inverse in the Core Data layout: a hidden key `Z<e><REL>` in the
/// destination's table, never a join table (docs/coredata-layout.md). Small models check the rule and
/// the migrations that move such links; the corpus's stores check it against Core Data's own output.
@Suite struct CoreDataHiddenKeyTests {
    typealias Fixture = CoreDataLayoutTests.Fixture

    static let albums = """
        entities:
          Album: {attributes: {title: string?}, relationships: {documents: "Document[]"}}
          Document: {attributes: {name: string?}}
        """
    static let albumsWithToOneInverse = """
        entities:
          Album: {attributes: {title: string?}, relationships: {documents: "Document[] inverse album"}}
          Document: {attributes: {name: string?}, relationships: {album: "Album? inverse documents"}}
        """
    static let albumsWithToManyInverse = """
        entities:
          Album: {attributes: {title: string?}, relationships: {documents: "Document[] inverse albums"}}
          Document: {attributes: {name: string?}, relationships: {albums: "Album[] inverse documents"}}
        """
    let documents = RelationshipKey(entity: "Album", name: "documents")

    func columnNames(_ map: StorageMap, _ table: String) -> [String] {
        map.schema.table(named: table)?.columns.map(\.name) ?? []
    }

    /// The key a to-many without an inverse is kept under: the foreign key of a to-one nobody declared.
    static func hiddenKey(of key: RelationshipKey, in map: StorageMap, model: Model) -> RelationshipKey? {
        guard case .inverseForeignKey(let hidden, _)? = map.relationships[key], model.property(hidden.name, of: hidden.entity) == nil
        else { return nil }
        return hidden
    }

    @Test func aToManyWithoutInverseIsAHiddenKeyInTheDestinationsTable() throws {
        let albums = try model(Self.albums)
        let map = try CoreDataLayout().storageMap(for: albums)
        #expect(map.schema.tables.map(\.name).sorted() == ["ZALBUM", "ZDOCUMENT"])  // no join table
        // Album is entity 1: Z1DOCUMENTS, an INTEGER among the keys, before the VARCHAR attribute.
        #expect(columnNames(map, "ZDOCUMENT") == ["Z_PK", "Z_ENT", "Z_OPT", "Z1DOCUMENTS", "ZNAME"])
        let index = map.schema.indexes.first { $0.name == "ZDOCUMENT_Z1DOCUMENTS_INDEX" }
        #expect(index?.table == "ZDOCUMENT")
        #expect(index?.elements.map(\.column) == ["Z1DOCUMENTS"])
        guard let hidden = Self.hiddenKey(of: documents, in: map, model: albums) else {
            Issue.record("Album.documents is not kept in a key: \(String(describing: map.relationships[documents]))")
            return
        }
        #expect(hidden.entity == "Document")
        #expect(map.relationships[hidden] == .foreignKey(table: "ZDOCUMENT", column: "Z1DOCUMENTS"))
    }

    @Test func aSubEntityDestinationKeepsTheKeyInItsRootsTable() throws {
        let map = try CoreDataLayout().storageMap(
            for: try model(
                """
                entities:
                  Folder: {relationships: {notes: "Note[]"}}
                  Item: {attributes: {title: string?}}
                  Note: {parent: Item, attributes: {body: string?}}
                """))
        // Folder 1, Item 2, Note 3: the key is in ZITEM (the hierarchy's one table), named after Folder.
        #expect(map.schema.tables.map(\.name).sorted() == ["ZFOLDER", "ZITEM"])
        #expect(columnNames(map, "ZITEM").contains("Z1NOTES"))
        #expect(map.schema.indexes.contains { $0.name == "ZITEM_Z1NOTES_INDEX" })
    }

    @Test func anOrderedOneKeepsAJoinTable() throws {
        // No store shows where an ordered one's positions go; Instar keeps the join table Core Data's
        // older releases wrote for every to-many without an inverse (docs/coredata-layout.md).
        let map = try CoreDataLayout().storageMap(
            for: try model(Self.albums.replacingOccurrences(of: "Document[]", with: "Document[] ordered")))
        guard case .joinTable? = map.relationships[documents] else {
            Issue.record("Album.documents (ordered) has no join table: \(String(describing: map.relationships[documents]))")
            return
        }
    }

    @Test func aCreatedStoreHasTheKeyAndSeedingFillsIt() throws {
        let v1 = try model(Self.albums, name: "V1")
        let f = try Fixture(v1)
        let tables = try f.values("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'Z\\_%' ESCAPE '\\' ORDER BY name")
        #expect(tables == [["ZALBUM".databaseValue], ["ZDOCUMENT".databaseValue]])
        _ = try f.store.seed(model: v1, options: SeedOptions(rows: 20, seed: 7))
        let linked = try f.values("SELECT count(*) FROM ZDOCUMENT WHERE Z1DOCUMENTS IS NOT NULL")
        let dangling = try f.values(
            "SELECT count(*) FROM ZDOCUMENT WHERE Z1DOCUMENTS IS NOT NULL AND Z1DOCUMENTS NOT IN (SELECT Z_PK FROM ZALBUM)")
        // Every document is seeded in an album: an app creates such rows to put them in the relationship.
        #expect(linked == [[20.databaseValue]])
        #expect(dangling == [[0.databaseValue]])
    }

    /// V1 with documents 1 → album 1, 2 → album 2, 3 unlinked.
    func filledAlbums() throws -> Fixture {
        let f = try Fixture(try model(Self.albums, name: "V1"))
        try f.execute("INSERT INTO ZALBUM (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (1, 1, 1, 'a'), (2, 1, 1, 'b')")
        try f.execute(
            "INSERT INTO ZDOCUMENT (Z_PK, Z_ENT, Z_OPT, ZNAME, Z1DOCUMENTS) VALUES (1, 2, 1, 'x', 1), (2, 2, 1, 'y', 2), (3, 2, 1, 'z', NULL)")
        return f
    }

    @Test func gainingAToOneInverseMovesTheHiddenKeyIntoIt() throws {
        let f = try filledAlbums()
        try f.store.migrate(from: try model(Self.albums, name: "V1"), to: try model(Self.albumsWithToOneInverse, name: "V2"))
        #expect(try f.values("SELECT ZALBUM FROM ZDOCUMENT ORDER BY Z_PK") == [[1.databaseValue], [2.databaseValue], [.null]])
        let columns = try f.values("SELECT name FROM pragma_table_info('ZDOCUMENT') WHERE name = 'Z1DOCUMENTS'")
        #expect(columns.isEmpty)
    }

    static let albumsWithRequiredInverse = albumsWithToOneInverse.replacingOccurrences(of: "Album? inverse", with: "Album inverse")

    @Test func aRequiredToOneInverseIsInferableWhenEveryRowIsLinked() throws {
        // SwiftDeveloperBlog V01 → V02: `PathPoint.path`, required, becomes the inverse of `Path.points`.
        let v1 = try model(Self.albums, name: "V1")
        let v2 = try model(Self.albumsWithRequiredInverse, name: "V2")
        let change = ModelDiff(from: v1, to: v2).changes.first { $0.kind == .relationshipAdded }
        #expect(change?.verdict.condition == .linked(entity: "Document", by: "Album", relationship: "documents"))
        let f = try Fixture(v1)
        try f.execute("INSERT INTO ZALBUM (Z_PK, Z_ENT, Z_OPT) VALUES (1, 1, 1), (2, 1, 1)")
        try f.execute("INSERT INTO ZDOCUMENT (Z_PK, Z_ENT, Z_OPT, Z1DOCUMENTS) VALUES (1, 2, 1, 2), (2, 2, 1, 1)")
        try f.store.migrate(from: v1, to: v2)
        #expect(try f.values("SELECT ZALBUM FROM ZDOCUMENT ORDER BY Z_PK") == [[2.databaseValue], [1.databaseValue]])
    }

    @Test func aRequiredToOneInverseRefusesUnlinkedRowsAndChangesNothing() throws {
        let f = try filledAlbums()  // document 3 is in no album
        let before = try Data(contentsOf: URL(fileURLWithPath: f.path))
        do {
            try f.store.migrate(from: try model(Self.albums, name: "V1"), to: try model(Self.albumsWithRequiredInverse, name: "V2"))
            Issue.record("an unlinked document did not block the step")
        } catch let error as StoreError {
            #expect(error.kind == .dataCondition)
            #expect(error.condition == .linked(entity: "Document", by: "Album", relationship: "documents") && error.violations == 1, "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.path)) == before)
    }

    @Test func losingAToOneInverseKeepsTheLinksInTheHiddenKey() throws {
        let v2 = try model(Self.albumsWithToOneInverse, name: "V2")
        let f = try Fixture(v2)
        try f.execute("INSERT INTO ZALBUM (Z_PK, Z_ENT, Z_OPT) VALUES (1, 1, 1), (2, 1, 1)")
        try f.execute("INSERT INTO ZDOCUMENT (Z_PK, Z_ENT, Z_OPT, ZALBUM) VALUES (1, 2, 1, 2), (2, 2, 1, NULL), (3, 2, 1, 1)")
        try f.store.migrate(from: v2, to: try model(Self.albums, name: "V3"))
        #expect(try f.values("SELECT Z1DOCUMENTS FROM ZDOCUMENT ORDER BY Z_PK") == [[2.databaseValue], [.null], [1.databaseValue]])
    }

    @Test func gainingAToManyInverseMovesTheLinksIntoAJoinTable() throws {
        let f = try filledAlbums()
        let v2 = try model(Self.albumsWithToManyInverse, name: "V2")
        try f.store.migrate(from: try model(Self.albums, name: "V1"), to: v2)
        guard case .joinTable(let table, let owner, let destination, _)? = try CoreDataLayout().storageMap(for: v2).relationships[documents]
        else {
            Issue.record("Album.documents has no join table in V2")
            return
        }
        let links = try f.values(
            "SELECT \(owner.sqlQuoted), \(destination.sqlQuoted) FROM \(table.sqlQuoted) ORDER BY 2")
        #expect(links == [[1.databaseValue, 1.databaseValue], [2.databaseValue, 2.databaseValue]])
    }

    @Test func aJoinTableBecomingAHiddenKeyKeepsItsLinks() throws {
        let v2 = try model(Self.albumsWithToManyInverse, name: "V2")
        let f = try Fixture(v2)
        guard case .joinTable(let table, let owner, let destination, _)? = try CoreDataLayout().storageMap(for: v2).relationships[documents]
        else {
            Issue.record("Album.documents has no join table in V2")
            return
        }
        try f.execute("INSERT INTO ZALBUM (Z_PK, Z_ENT, Z_OPT) VALUES (1, 1, 1), (2, 1, 1)")
        try f.execute("INSERT INTO ZDOCUMENT (Z_PK, Z_ENT, Z_OPT) VALUES (1, 2, 1), (2, 2, 1), (3, 2, 1)")
        try f.execute("INSERT INTO \(table.sqlQuoted) (\(owner.sqlQuoted), \(destination.sqlQuoted)) VALUES (2, 1), (1, 3)")
        try f.store.migrate(from: v2, to: try model(Self.albums, name: "V3"))
        #expect(try f.values("SELECT Z1DOCUMENTS FROM ZDOCUMENT ORDER BY Z_PK") == [[2.databaseValue], [.null], [1.databaseValue]])
        let joins = try f.values("SELECT count(*) FROM sqlite_master WHERE name = \(table.sqlQuoted.replacingOccurrences(of: "\"", with: "'"))")
        #expect(joins == [[0.databaseValue]])
    }

    @Test func anUnrelatedChangeKeepsTheHiddenKey() throws {
        let f = try filledAlbums()
        let v2 = try model(Self.albums.replacingOccurrences(of: "name: string?", with: "name: string?, size: int32?"), name: "V2")
        try f.store.migrate(from: try model(Self.albums, name: "V1"), to: v2)
        #expect(try f.values("SELECT Z1DOCUMENTS FROM ZDOCUMENT ORDER BY Z_PK") == [[1.databaseValue], [2.databaseValue], [.null]])
    }

    /// Stores written by Core Data and SwiftData with a to-many without an inverse, and the hidden keys
    /// they have (read from the store; the layout must predict exactly these from the store's own model).
    static let corpusStores: [(path: String, keys: Int)] = [
        ("Karim-ezzedine__CartKit/Tests/CartKitStorageCoreDataTests/LegacyCoreData/CartStorage_v1.sqlite", 1),
        ("Karim-ezzedine__CartKit/Tests/CartKitStorageSwiftDataTests/LegacySwiftData/CartKitSwiftData_v1.sqlite", 2),
        ("swiftdata/MatthewHunt84__MetaCocktailsSwiftData/@3292fc79/MetaCocktailsSwiftData/default.store", 1),
        ("swiftdata/MatthewHunt84__MetaCocktailsSwiftData/@f6051d07/MetaCocktailsSwiftData/Model/Database/PreloadedCocktails.store", 1),
        (
            "swiftdata/AndreiMaksimovich__SwiftDeveloperBlog/06 - SwiftData Migration/06 - SwiftData MigrationTests/Resources/AppData/V01/app-model-v01-container",
            1
        ),
    ]

    /// The layout of each store's own model (its `Z_MODELCACHE`) names the store's hidden keys, with
    /// their indexes, and no join table for those relationships.
    @Test(.needsCorpus, arguments: corpusStores)
    func corpusStoresKeepToManysWithoutInverseAsHiddenKeys(_ entry: (path: String, keys: Int)) throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = corpusRoot.appendingPathComponent(entry.path)
        let copy = folder.appendingPathComponent("Store.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: copy.path + suffix)
        }
        let store = try SQLiteStore.open(at: copy.path, readOnly: true)
        defer { try? store.close() }
        let cached = try store.cachedModel().model
        let map = try CoreDataLayout().storageMap(for: cached)
        var found = 0
        for (key, _) in map.relationships {
            guard let hidden = Self.hiddenKey(of: key, in: map, model: cached) else { continue }
            guard case .foreignKey(let table, let column)? = map.relationships[hidden] else {
                Issue.record("\(key): the hidden key has no column")
                continue
            }
            found += 1
            try store.withDatabase { db in
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                #expect(columns.contains(column), "\(entry.path): \(key) expects \(table).\(column); the store has \(columns)")
                let indexed = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name = ?",
                    arguments: [table, "\(table)_\(column)_INDEX"])
                #expect(indexed.count == 1, "\(entry.path): no index \(table)_\(column)_INDEX")
            }
        }
        #expect(found == entry.keys, "\(entry.path): \(found) hidden keys predicted, the store has \(entry.keys)")
        // Every table the layout predicts is in the store: no join table for these relationships.
        try store.withDatabase { db in
            let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            for table in map.schema.tables.map(\.name) {
                #expect(tables.contains(table), "\(entry.path): the layout predicts table \(table), the store has none")
            }
        }
    }
}
