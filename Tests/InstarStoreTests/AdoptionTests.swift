import Foundation
import GRDB
import InstarCompiler
import Testing
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import InstarAdoption
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport

/// `instar model import` and the naming keys: every fixture schema round-trips (import, write the
/// model file, read it back, create a store: same schema), names collide with `file:line:column`, and
/// naming keys leave Core Data's version hashes alone.
@Suite struct AdoptionTests {
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures/adopt")
    static let fixtureNames = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.path))?
        .filter { $0.hasSuffix(".sql") }.sorted() ?? []

    /// A database built from a fixture's SQL in a temporary folder.
    static func database(_ fixture: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("original.sqlite").path
        let queue = try DatabaseQueue(path: path)
        let sql = try String(contentsOf: fixtures.appendingPathComponent(fixture), encoding: .utf8)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
        return path
    }

    static func schema(_ path: String) throws -> StoreSchema {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try SchemaReader.read(db, skipping: { $0.hasPrefix("_instar_") }) }
    }

    @Test(arguments: fixtureNames) func fixtureRoundTrips(_ fixture: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try Self.database(fixture, in: directory)
        let imported = try SchemaImporter.importModel(path: original, name: "Adopted")
        // Through the model file, as a user gets it.
        let text = ModelFileWriter.yaml(imported.model)
        let reread = try ModelFileReader.parse(text, file: "adopted.yaml", defaultName: "Adopted")
        let json = try ModelFileReader.parse(ModelFileWriter.json(imported.model), file: "adopted.json")
        let expected = try PlainSQLLayout().storageMap(for: reread).schema
        // JSON objects do not keep the entities' order (nor, with it, the tables'); the schema is the same.
        #expect(SchemaComparison.differences(expected: try PlainSQLLayout().storageMap(for: json).schema, actual: expected).isEmpty)
        let before = SchemaComparison.differences(expected: expected, actual: try Self.schema(original))
        #expect(before.isEmpty, "\(fixture): original vs model: \(before)")
        let created = directory.appendingPathComponent("created.sqlite").path
        try SQLiteStore.create(at: created, model: reread, layout: PlainSQLLayout()).close()
        let after = SchemaComparison.differences(expected: expected, actual: try Self.schema(created))
        #expect(after.isEmpty, "\(fixture): created vs model: \(after)")
        // Everything kept raw is listed, with what it blocks.
        #expect(Set(imported.model.rawSQL.map(\.name)).isSubset(of: Set(imported.notes.map(\.name))))
    }

    @Test func chinookBecomesEntitiesWithNamingKeys() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try SchemaImporter.importModel(path: Self.database("chinook.sql", in: directory), name: "C").model
        let track = try #require(model.entity(named: "Track"))
        #expect(track.stored.primaryKey == "TrackId")
        #expect(track.attribute(named: "Name")?.stored.type == "NVARCHAR(200)")
        #expect(track.attribute(named: "UnitPrice")?.defaultValue == "0.99")
        let album = try #require(track.relationship(named: "Album"))
        #expect(album.stored.column.name == "AlbumId" && album.destination == "Album" && album.inverse == "Tracks")
        let playlist = try #require(model.entity(named: "Playlist")?.relationships.first)
        #expect(playlist.isToMany && playlist.destination == "Track")
        var join = StoredNames.JoinTable(name: "PlaylistTrack", columns: ["PlaylistId", "TrackId"], index: "IFK_PlaylistTrackTrackId")
        join.primaryKeyConstraint = "PK_PlaylistTrack"
        #expect(playlist.stored.joinTable == join)
        #expect(model.entity(named: "Album")?.stored.primaryKeyConstraint == "PK_Album")
        #expect(track.stored.primaryKeyConstraint == nil)
        #expect(model.entity(named: "Customer")?.stored.uniqueIndexNames == [["Email"]: "UX_CustomerEmail"])
        #expect(model.rawSQL.isEmpty)
    }

    @Test func inexpressibleObjectsAreListedWithTheirEffect() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let imported = try SchemaImporter.importModel(path: Self.database("checks.sql", in: directory), name: "C")
        let notes = Dictionary(imported.notes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        // CHECK and COLLATE are kept on their columns: the tables stay entities.
        #expect(notes["account"] == nil && notes["movement"] == nil && notes["person"] == nil)
        let model = imported.model
        #expect(model.entity(named: "account")?.attribute(named: "balance")?.stored.sql == "CHECK (balance >= 0)")
        #expect(model.entity(named: "person")?.attribute(named: "name")?.stored.sql == "COLLATE NOCASE")
        #expect(notes["stamp"]?.reasons == ["default of 'at' is an expression"])
        #expect(notes["stamp"]?.blocksMigrations == true)
        #expect(notes["item"] == nil)
        #expect(model.entities.map(\.name) == ["account", "movement", "person", "item"])
    }

    @Test func namingKeysLeaveVersionHashesAlone() throws {
        let plain = try model(
            """
            entities:
              Track:
                attributes: {title: string}
                relationships: {album: Album?}
              Album: {}
            """)
        let named = try model(
            """
            entities:
              Track:
                table: tracks
                primaryKey: TrackId
                attributes:
                  title: {type: string, optional: false, column: Title, columnType: "varchar(80)"}
                relationships:
                  album: {to: Album, column: AlbumId, notNull: true, onDelete: CASCADE}
              Album: {table: albums}
            """)
        #expect(VersionHashes(model: plain) == VersionHashes(model: named))
        let schema = try PlainSQLLayout().storageMap(for: named).schema
        let tracks = try #require(schema.table(named: "tracks"))
        #expect(tracks.columns.map(\.name) == ["TrackId", "Title", "AlbumId"])
        #expect(tracks.column(named: "Title")?.declaredType == "varchar(80)")
        #expect(tracks.column(named: "AlbumId")?.references == ForeignKeyReference(table: "albums", column: "id", onDelete: "CASCADE"))
        // Written and read back unchanged.
        let again = try ModelFileReader.parse(ModelFileWriter.yaml(named), file: "again.yaml")
        #expect(again.entities == named.entities)
    }

    @Test func collidingNamingKeysAreErrorsAtTheirPosition() throws {
        let tables = try model(
            """
            entities:
              Track:
                table: music
              Album:
                table: MUSIC
            """, name: "tables")
        #expect(throws: LayoutError.self) { try PlainSQLLayout().storageMap(for: tables) }
        do {
            _ = try PlainSQLLayout().storageMap(for: tables)
        } catch {
            #expect(error.location == SourceLocation(file: "tables.yaml", line: 5, column: 12), "\(error)")
        }
        let columns = try model(
            """
            entities:
              Track:
                attributes:
                  title: string
                  name: {type: string, column: Title}
            """, name: "columns")
        do {
            _ = try PlainSQLLayout().storageMap(for: columns)
            Issue.record("a column key equal to another column's name was accepted")
        } catch {
            #expect(error.location == SourceLocation(file: "columns.yaml", line: 5, column: 36), "\(error)")
            #expect(error.reason == .nameCollision(name: "Title", with: .conventionalColumn("title", property: "title")), "\(error)")
        }
        let defaultColumn = try model(
            """
            entities:
              Track:
                attributes:
                  title: {type: string, column: Name}
                  name: string
            """, name: "column")
        do {
            _ = try PlainSQLLayout().storageMap(for: defaultColumn)
            Issue.record("a column key equal (but for case) to another attribute's column was accepted")
        } catch {
            #expect(error.location == SourceLocation(file: "column.yaml", line: 4, column: 37), "\(error)")
        }
        let defaultName = try model(
            """
            entities:
              album: {}
              Track:
                table: album
            """, name: "default")
        do {
            _ = try PlainSQLLayout().storageMap(for: defaultName)
            Issue.record("a table key equal to another entity's table was accepted")
        } catch {
            #expect(error.location == SourceLocation(file: "default.yaml", line: 4, column: 12), "\(error)")
        }
    }

    @Test func renamedEntityFollowsItsTableKey() throws {
        let v1 = try model(
            """
            entities:
              Shelf:
                table: Shelf
                primaryKey: ShelfId
                attributes: {label: {type: string, column: Label}}
            """, name: "V1")
        let v2 = try model(
            """
            entities:
              Collection:
                renamedFrom: Shelf
                table: Collection
                primaryKey: ShelfId
                attributes: {name: {type: string, renamedFrom: label, column: Name}}
            """, name: "V2")
        let fixture = try StoreFixture(v1, layout: PlainSQLLayout())
        try fixture.execute(#"INSERT INTO "Shelf" ("ShelfId", "Label") VALUES (7, 'Fiction')"#)
        try fixture.store.migrate(from: v1, to: v2)
        #expect(try fixture.rows("Collection", orderBy: "ShelfId") == [["ShelfId": .int(7), "Name": .text("Fiction")]])
        #expect(try fixture.schema().table(named: "Shelf") == nil)
    }

    /// A database made from `sql` in a temporary folder, for migration tests.
    static func database(sql: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("adopted.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
        return path
    }

    static let withRawObjects = """
        CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, updated REAL);
        CREATE TABLE "order" (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), total REAL NOT NULL DEFAULT 0, note TEXT);
        CREATE INDEX order_lower_note ON "order" (lower(note));
        CREATE TABLE ledger (at REAL NOT NULL PRIMARY KEY, amount INTEGER CHECK (amount <> 0)) WITHOUT ROWID;
        CREATE VIEW customer_totals AS SELECT c.id, sum(o.total) AS total FROM customer c JOIN "order" o ON o.customer_id = c.id GROUP BY c.id;
        CREATE TRIGGER customer_touch AFTER UPDATE OF name ON customer BEGIN UPDATE customer SET updated = 1 WHERE id = new.id; END;
        INSERT INTO customer (id, name) VALUES (1, 'Ada'), (2, 'Zoë');
        INSERT INTO "order" (customer_id, total, note) VALUES (1, 10, 'A'), (1, 5, NULL), (2, 7.5, 'b');
        INSERT INTO ledger VALUES (1.5, 3);
        """

    @Test func rawObjectsAreCarriedAcrossARebuild() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try Self.database(sql: Self.withRawObjects, in: directory)
        let v1 = try SchemaImporter.importModel(path: path, name: "V1").model
        #expect(Set(v1.rawSQL.map(\.name)) == ["order_lower_note", "ledger", "customer_totals", "customer_touch"])
        // `total` becomes optional: the order table is rebuilt (SQLite cannot drop NOT NULL in place).
        let text = ModelFileWriter.yaml(v1).replacingOccurrences(of: "total: double = 0", with: "total: double? = 0")
        let v2 = try ModelFileReader.parse(text.replacingOccurrences(of: "name: V1", with: "name: V2"), file: "v2.yaml")
        let store = try SQLiteStore.open(at: path, layout: PlainSQLLayout())
        defer { try? store.close() }
        let outcome = try store.migrate(from: v1, to: v2)
        #expect(outcome.plan.tables["order"].map { if case .rebuilt = $0 { true } else { false } } == true)
        let rows = try store.withDatabase { db in
            try db.execute(sql: "UPDATE customer SET name = 'Ada L.' WHERE id = 1")
            return (
                try Row.fetchAll(db, sql: "SELECT id, total FROM customer_totals ORDER BY id").map { "\($0[0] as Int64) \($0[1] as Double)" },
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'order_lower_note'"),
                try Double.fetchOne(db, sql: "SELECT updated FROM customer WHERE id = 1"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM ledger"))
        }
        #expect(rows.0 == ["1 15.0", "2 7.5"])
        #expect(rows.1 == 1 && rows.2 == 1 && rows.3 == 1)
        #expect(try store.detectVersion(among: [v1, v2]).version?.name == "V2")
    }

    @Test func aVersionThatChangesARawTableIsABlocker() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try Self.database(sql: Self.withRawObjects, in: directory)
        let v1 = try SchemaImporter.importModel(path: path, name: "V1").model
        let text = ModelFileWriter.yaml(v1).replacingOccurrences(of: "amount <> 0", with: "amount > 0")
        let v2 = try ModelFileReader.parse(text.replacingOccurrences(of: "name: V1", with: "name: V2"), file: "v2.yaml")
        let store = try SQLiteStore.open(at: path, layout: PlainSQLLayout())
        defer { try? store.close() }
        do {
            try store.migrate(from: v1, to: v2)
            Issue.record("a step that would rewrite a raw table ran")
        } catch {
            let compile = (error as? StoreError)?.underlying as? StepCompileError
            guard case .rawSQL(let blockers)? = compile?.reason else {
                Issue.record("not refused for its raw SQL: \(error)")
                return
            }
            #expect(blockers.map(\.problem) == [.rewritten] && blockers.first?.object.name == "ledger" && blockers.first?.version == "V2")
        }
        #expect(try store.detectVersion(among: [v1, v2]).version?.name == "V1")
    }
}
