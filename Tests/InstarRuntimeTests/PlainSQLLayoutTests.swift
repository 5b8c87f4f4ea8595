import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport

/// The plain SQL layout (`layout: sql`): stores written by hand, adopted and migrated without adding a
/// table of Instar's.
@Suite struct PlainSQLLayoutTests {
    let layout = PlainSQLLayout()

    /// The benchmark's V1 shape, as a model with lowercase entity names.
    let v1 = """
        entities:
          album:
            attributes:
              title: string
              year: int64?
            relationships:
              tracks: track[] inverse album
          track:
            indexes:
              title: [title]
            attributes:
              title: string
              artist_name: string?
              last_played_at: date?
              image_url: string?
            relationships:
              album: album? inverse tracks
        """

    /// The same schema as a person writes it.
    let v1DDL = """
        CREATE TABLE album (
          id INTEGER PRIMARY KEY,
          title TEXT NOT NULL,
          year INTEGER
        );
        CREATE TABLE track (
          id INTEGER PRIMARY KEY,
          title TEXT NOT NULL,
          artist_name TEXT,
          last_played_at REAL,
          image_url TEXT,
          album_id INTEGER REFERENCES album(id)
        );
        CREATE INDEX track_title_idx ON track(title);
        """

    /// A hand-made store (never created by Instar) in a temporary folder.
    final class HandMade {
        let directory: URL
        let path: String

        init(_ ddl: String) throws {
            directory = try temporaryDirectory()
            path = directory.appendingPathComponent("hand.sqlite").path
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in try db.execute(sql: ddl) }
            try queue.close()
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func open() throws -> SQLiteStore { try SQLiteStore.open(at: path, layout: PlainSQLLayout()) }

        func values(_ sql: String) throws -> [[DatabaseValue]] {
            let queue = try DatabaseQueue(path: path)
            defer { try? queue.close() }
            return try queue.read { db in try Row.fetchAll(db, sql: sql).map { Array($0.databaseValues) } }
        }

        func tables() throws -> [String] {
            try values("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { String.fromDatabaseValue($0[0])! }
        }
    }

    /// The tables and indexes SQLite reads back from `ddl`.
    func schema(ofDDL ddl: String) throws -> StoreSchema {
        let store = try HandMade(ddl)
        let opened = try store.open()
        defer { try? opened.close() }
        return try opened.schema()
    }

    func differences(_ yaml: String, _ ddl: String) throws -> [SchemaDifference] {
        SchemaComparison.differences(expected: try layout.storageMap(for: try model(yaml)).schema, actual: try schema(ofDDL: ddl))
    }

    // MARK: Creating

    @Test func createdStoreIsExactlyTheHandWrittenDDL() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("made.sqlite").path
        let made = try SQLiteStore.create(at: path, model: try model(v1, name: "V1"), layout: layout)
        let madeSchema = try made.schema()
        try made.close()
        #expect(SchemaComparison.differences(expected: madeSchema, actual: try schema(ofDDL: v1DDL)).isEmpty)
        #expect(SchemaComparison.differences(expected: try schema(ofDDL: v1DDL), actual: madeSchema).isEmpty)
        // No bookkeeping: the store has only the model's tables, and says nothing about its version.
        let queue = try DatabaseQueue(path: path)
        let tables = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        let sql = try queue.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'track'") }
        try queue.close()
        #expect(tables == ["album", "track"])
        #expect(
            sql
                == #"CREATE TABLE "track" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "artist_name" TEXT, "last_played_at" REAL, "image_url" TEXT, "album_id" INTEGER REFERENCES "album"("id"))"#
        )
        let reopened = try SQLiteStore.open(at: path, layout: layout)
        #expect(try reopened.metadata() == nil)
        #expect(try reopened.detectVersion(among: [try model(v1, name: "V1")]).matchedBy == .schema)
        try reopened.close()
    }

    @Test func typesNullabilityDefaultsAndUniqueness() throws {
        let yaml = """
            entities:
              item:
                unique: [[code], [shelf, slot]]
                indexes:
                  byPrice: [-price, code]
                attributes:
                  code: string
                  shelf: int16
                  slot: int32
                  price: decimal?
                  weight: double = 1.5
                  inStock: bool = true
                  added: date?
                  photo: binary?
                  tag: uuid?
                  note:
                    type: string
                    optional: true
                    indexed: true
            """
        let map = try layout.storageMap(for: try model(yaml))
        let table = try #require(map.schema.table(named: "item"))
        #expect(table.columns.map(\.name) == ["id", "code", "shelf", "slot", "price", "weight", "inStock", "added", "photo", "tag", "note"])
        #expect(table.columns.map(\.declaredType) == ["INTEGER", "TEXT", "INTEGER", "INTEGER", "NUMERIC", "REAL", "INTEGER", "REAL", "BLOB", "TEXT", "TEXT"])
        #expect(table.column(named: "weight")?.defaultValue == .real(1.5))
        #expect(table.column(named: "inStock")?.defaultValue == .integer(1))
        #expect(table.uniqueConstraints == [["code"], ["shelf", "slot"]])
        #expect(table.createSQL().contains(#""code" TEXT NOT NULL UNIQUE"#))
        #expect(table.createSQL().contains(#"CONSTRAINT "shelf_slot" UNIQUE ("shelf", "slot")"#))
        #expect(map.schema.indexes.map(\.name).sorted() == ["item_byPrice_idx", "item_note_idx"])
        let ddl = """
            CREATE TABLE item (
              id INTEGER PRIMARY KEY,
              code TEXT NOT NULL UNIQUE,
              shelf INTEGER NOT NULL,
              slot INTEGER NOT NULL,
              price NUMERIC,
              weight REAL NOT NULL DEFAULT 1.5,
              inStock INTEGER NOT NULL DEFAULT 1,
              added REAL,
              photo BLOB,
              tag TEXT,
              note TEXT,
              UNIQUE (shelf, slot)
            );
            CREATE INDEX item_byPrice_idx ON item(price DESC, code);
            CREATE INDEX item_note_idx ON item(note);
            """
        #expect(try differences(yaml, ddl).isEmpty)
    }

    @Test func subEntitiesAreRefusedWithAnExplanation() throws {
        let yaml = """
            entities:
              media:
                attributes: {title: string}
              song:
                parent: media
            """
        #expect(throws: LayoutError.self) { try layout.storageMap(for: try model(yaml)) }
    }

    // MARK: Join tables

    @Test func manyToManyJoinTableIsNamedOwnerFirstInDeclarationOrder() throws {
        let yaml = """
            entities:
              track:
                attributes: {title: string?}
                relationships:
                  artists: artist[] inverse tracks
              artist:
                unique: [name]
                attributes:
                  name: string
                relationships:
                  tracks: track[] inverse artists
            """
        let map = try layout.storageMap(for: try model(yaml))
        #expect(map.joinTables.keys.sorted() == ["track_artist"])
        let join = try #require(map.schema.table(named: "track_artist"))
        #expect(join.columns.map(\.name) == ["track_id", "artist_id"])
        #expect(join.primaryKey == ["track_id", "artist_id"])
        #expect(join.columns.allSatisfy { $0.notNull && $0.references?.onDelete == nil })
        #expect(map.schema.indexes.map(\.name) == ["track_artist_artist_idx"])
        #expect(
            map.relationships[RelationshipKey(entity: "artist", name: "tracks")]
                == .joinTable(name: "track_artist", ownerColumn: "artist_id", destinationColumn: "track_id", position: nil))
        let ddl = """
            CREATE TABLE track (id INTEGER PRIMARY KEY, title TEXT);
            CREATE TABLE artist (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE track_artist (
              track_id INTEGER NOT NULL REFERENCES track(id),
              artist_id INTEGER NOT NULL REFERENCES artist(id),
              PRIMARY KEY (track_id, artist_id)
            );
            CREATE INDEX track_artist_artist_idx ON track_artist(artist_id);
            """
        #expect(try differences(yaml, ddl).isEmpty)

        // Declared the other way round, the same relationship is named after artist.
        let swapped = """
            entities:
              artist:
                attributes: {name: string}
                relationships:
                  tracks: track[] inverse artists
              track:
                attributes: {title: string?}
                relationships:
                  artists: artist[] inverse tracks
            """
        #expect(try layout.storageMap(for: try model(swapped)).joinTables.keys.sorted() == ["artist_track"])
    }

    @Test func reflexiveAndSecondJoinTablesAreNamedAfterTheRelationship() throws {
        let yaml = """
            entities:
              node:
                relationships:
                  children: node[] inverse parents
                  parents: node[] inverse children
              tag:
                relationships:
                  nodes: node[]
                  pinned: node[]
            """
        let map = try layout.storageMap(for: try model(yaml))
        #expect(map.joinTables.keys.sorted() == ["node_children", "tag_node", "tag_pinned"])
        #expect(map.schema.table(named: "node_children")?.columns.map(\.name) == ["parents_id", "children_id"])
        #expect(map.schema.table(named: "tag_node")?.columns.map(\.name) == ["tag_id", "node_id"])
    }

    // MARK: Adopting and migrating

    @Test func adoptsAHandMadeStoreAndDetectsItsVersionBySchema() throws {
        let store = try HandMade(v1DDL)
        let opened = try store.open()
        defer { try? opened.close() }
        let v2 = v1.replacingOccurrences(of: "image_url: string?", with: "artwork_url: string?")
        let detection = try opened.detectVersion(among: [try model(v2, name: "V2"), try model(v1, name: "V1")])
        #expect(detection.version?.name == "V1")
        #expect(detection.matchedBy == .schema)
        #expect(detection.drift.isEmpty)
        // Without a layout, no layout claims the store (it has no bookkeeping to recognise).
        let queue = try DatabaseQueue(path: store.path)
        #expect(try queue.read { db in try Layouts.all.contains { try $0.recognizes(db) } } == false)
        try queue.close()
        #expect(Layouts.named("sql")?.name == "sql")
        #expect(Layouts.all.last?.name == "sql")
    }

    @Test func aStepWithRenameAddDropAndNullableKeepsValuesAndAddsNoTable() throws {
        let store = try HandMade(
            v1DDL + """

                INSERT INTO album VALUES (1, 'One', 1999), (2, 'Two', NULL);
                INSERT INTO track VALUES (1, 'a', 'X', 1.6e9, 'u1', 1), (2, 'b', NULL, NULL, NULL, NULL), (3, 'c', 'Y', 2.5, 'u3', 2);
                """)
        let v2 = """
            entities:
              album:
                attributes:
                  title: string
                  year: int64?
                relationships:
                  tracks: track[] inverse album
              track:
                indexes:
                  title: [title]
                attributes:
                  title: string?
                  last_played_at: date?
                  artwork_url: {type: string, optional: true, renamedFrom: image_url}
                  play_count: {type: int64, default: 0, userInfo: {sqlColumn: appended}}
                relationships:
                  album: album? inverse tracks
            """
        let opened = try store.open()
        _ = try opened.migrate(from: try model(v1, name: "V1"), to: try model(v2, name: "V2"))
        let expected = try layout.storageMap(for: try model(v2, name: "V2")).schema
        #expect(SchemaComparison.differences(expected: expected, actual: try opened.schema()).isEmpty)
        try opened.close()
        #expect(try store.tables() == ["album", "track"])
        let columns = try store.values("SELECT name FROM pragma_table_info('track') ORDER BY cid").map { String.fromDatabaseValue($0[0])! }
        #expect(columns == ["id", "title", "last_played_at", "artwork_url", "album_id", "play_count"])
        let rows = try store.values("SELECT id, title, last_played_at, artwork_url, album_id, play_count, typeof(play_count) FROM track ORDER BY id")
        #expect(rows[0] == [1.databaseValue, "a".databaseValue, 1.6e9.databaseValue, "u1".databaseValue, 1.databaseValue, 0.databaseValue, "integer".databaseValue])
        #expect(rows[1][3] == .null && rows[1][4] == .null)
        #expect(rows[2][3] == "u3".databaseValue)
        // The result is exactly what a person would have written for V2.
        let ddl = """
            CREATE TABLE album (id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER);
            CREATE TABLE track (
              id INTEGER PRIMARY KEY, title TEXT, last_played_at REAL, artwork_url TEXT,
              album_id INTEGER REFERENCES album(id), play_count INTEGER NOT NULL DEFAULT 0
            );
            CREATE INDEX track_title_idx ON track(title);
            """
        #expect(try differences(v2, ddl).isEmpty)
    }

    /// The benchmark's plan end to end on a small hand-made V1 store: the result has exactly the
    /// benchmark's V2 tables, the hook's artists and links, and no table of Instar's.
    @Test func benchTracksPlanMigratesAHandMadeStore() throws {
        let store = try HandMade(
            """
            CREATE TABLE album (id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER);
            CREATE TABLE track (
              id INTEGER PRIMARY KEY, title TEXT NOT NULL, artist_name TEXT, json TEXT,
              last_played_at REAL, image_url TEXT, album_id INTEGER REFERENCES album(id)
            );
            CREATE INDEX track_title_idx ON track(title);
            INSERT INTO album VALUES (1, 'One', 2001);
            INSERT INTO track VALUES
              (1, 't1', 'A & B', '[{"id":1,"name":"A","imageURL":"u9"},{"id":2,"name":"B","imageURL":null}]', NULL, 'i1', 1),
              (2, 't2', 'A', '[{"id":3,"name":"A","imageURL":"u2"},{"id":3,"name":"A","imageURL":"u2"}]', 1.5, NULL, NULL),
              (3, 't3', NULL, NULL, NULL, NULL, 1);
            """)
        let plan = try PlanFileReader.read(path: packageRoot.appendingPathComponent("Plans/bench-tracks/plan.yaml").path)
        _ = try Migrator(plan: plan).migrate(storeAt: store.path)
        #expect(try store.tables() == ["album", "artist", "track", "track_artist"])
        #expect(
            try store.values("SELECT name, image_url FROM artist ORDER BY name")
                == [["A".databaseValue, "u2".databaseValue], ["B".databaseValue, .null]])
        #expect(
            try store.values("SELECT t.track_id, a.name FROM track_artist t JOIN artist a ON a.id = t.artist_id ORDER BY 1, 2")
                == [[1.databaseValue, "A".databaseValue], [1.databaseValue, "B".databaseValue], [2.databaseValue, "A".databaseValue]])
        let columns = try store.values("SELECT name FROM pragma_table_info('track') ORDER BY cid").map { String.fromDatabaseValue($0[0])! }
        #expect(columns == ["id", "title", "last_played_at", "artwork_url", "album_id", "play_count"])
        #expect(try store.values("PRAGMA foreign_key_check").isEmpty)
    }
}
