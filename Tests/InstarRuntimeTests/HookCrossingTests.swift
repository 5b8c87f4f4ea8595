@_spi(Layouts) import Instar
import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarRuntime
@_spi(Layouts) @testable import InstarStore
import Testing
@_spi(Layouts) @testable import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport

/// What a hook's SQL reads and writes (``SQLAccess``), and the work the planner moves across a hook
/// because of it (``TransactionPlan``): each rule fires where it should and not where it must not,
/// and moving work never changes the resulting store.
@Suite struct SQLAccessTests {
    let schema = StoreSchema(tables: [
        SchemaTable(name: "track", columns: [
            SchemaColumn(name: "id", declaredType: "INTEGER", isPrimaryKey: true),
            SchemaColumn(name: "title", declaredType: "TEXT"),
            SchemaColumn(name: "json", declaredType: "TEXT"),
        ]),
        SchemaTable(name: "artist", columns: [
            SchemaColumn(name: "id", declaredType: "INTEGER", isPrimaryKey: true),
            SchemaColumn(name: "name", declaredType: "TEXT", notNull: true),
        ]),
    ])

    @Test func readsAndWritesAreTheColumnsAndTablesSQLiteReports() {
        let access = SQLAccess.of(
            [
                #"CREATE TEMP TABLE "x" AS SELECT t."id" AS "id", j."value" ->> 'name' AS "name" FROM "track" AS t, json_each(t."json") AS j"#,
                #"INSERT INTO "artist" ("name") SELECT DISTINCT "name" FROM "temp"."x" WHERE "name" IS NOT NULL"#,
                #"DROP TABLE "temp"."x""#,
            ], in: schema)
        #expect(access.opaqueReason == nil)
        #expect(access.reads == ["track": ["id", "json"]])
        #expect(access.inserts == ["artist"])
        #expect(access.updates.isEmpty && access.deletes.isEmpty && access.schemaChanges.isEmpty)
        #expect(!access.writes("track") && access.writes("artist"))
    }

    @Test func updatesDeletesCountsAndSchemaChangesAreSeen() {
        let access = SQLAccess.of(
            [
                #"UPDATE "track" SET "title" = upper("title") WHERE "id" > 3"#,
                #"DELETE FROM "artist" WHERE "id" NOT IN (SELECT "id" FROM "track")"#,
                #"SELECT count(*) FROM "artist""#,
                #"CREATE INDEX "t" ON "track" ("title")"#,
            ], in: schema)
        #expect(access.opaqueReason == nil)
        #expect(access.updates["track"] == ["title"])
        #expect(access.deletes == ["artist"])
        #expect(access.reads["track"] == ["id", "title"])
        #expect(access.reads["artist"]?.contains("id") == true)
        #expect(access.schemaChanges == ["track"])
    }

    /// `INSERT OR REPLACE` deletes the rows it conflicts with: links to them must be checked.
    @Test func replacingInsertsCountAsRemovingRows() {
        let access = SQLAccess.of([#"INSERT OR REPLACE INTO "artist" ("id", "name") VALUES (1, 'x')"#], in: schema)
        #expect(access.removesOrChangesRows.contains("artist"))
    }

    @Test func whatCannotBeSeenThroughIsOpaque() {
        let cases: [(String, String)] = [
            (#"CREATE VIEW "v" AS SELECT "title" FROM "track""#, "view or trigger"),
            (#"CREATE TRIGGER "t" AFTER INSERT ON "artist" BEGIN DELETE FROM "track"; END"#, "view or trigger"),
            ("PRAGMA foreign_keys = ON", "PRAGMA"),
            (#"SELECT "sql" FROM "sqlite_master""#, "schema table"),
            (#"UPDATE "nope" SET "x" = 1"#, "fails on the expected schema"),
            (#"CREATE TEMP TRIGGER "t" AFTER INSERT ON "artist" BEGIN DELETE FROM "track"; END"#, "temporary trigger"),
            ("ATTACH ':memory:' AS other", "ATTACH"),
        ]
        for (sql, reason) in cases {
            let access = SQLAccess.of([sql], in: schema)
            #expect(access.isOpaque, "\(sql)")
            #expect(access.opaqueReason?.contains(reason) == true, "\(sql): \(access.opaqueReason ?? "-")")
            #expect(access.touches("track") && access.writes("artist"))
        }
    }
}

@Suite struct HookCrossingTests {
    // Track 1 → 2 rebuilds `track` (title becomes required with a default that fills its NULLs,
    // image → artwork, a new NOT NULL default column); 2 → 3 adds `artist` and a join table that the
    // hook fills from the JSON; 3 → 4 drops the JSON and note columns (a second rebuild of `track`,
    // with `secure_delete` off as ``fixture(_:)`` sets it, unless the first one moves past the hook).
    static let v1 = """
        entities:
          track:
            attributes:
              title: string?
              note: string?
              json: string?
              image: string?
        """
    static let v2 = """
        entities:
          track:
            attributes:
              title: string = untitled
              note: string?
              json: string?
              artwork: { type: string, optional: true, renamedFrom: image }
              plays: int64 = 0
        """
    static let v3 = """
        entities:
          track:
            attributes:
              title: string = untitled
              note: string?
              json: string?
              artwork: string?
              plays: int64 = 0
            relationships:
              artists: artist[] inverse tracks
          artist:
            attributes:
              name: string
              image: string?
            relationships:
              tracks: track[] inverse artists
        """
    static let v4 = """
        entities:
          track:
            attributes:
              title: string = untitled
              artwork: string?
              plays: int64 = 0
            relationships:
              artists: artist[] inverse tracks
          artist:
            attributes:
              name: string
              image: string?
            relationships:
              tracks: track[] inverse artists
        """

    func models() throws -> [Model] {
        try [Self.v1, Self.v2, Self.v3, Self.v4].enumerated().map { try model($0.1, name: "Track \($0.0 + 1)") }
    }

    /// The join table's name and columns in the instar layout, from the storage map.
    func joinTable(_ model: Model) throws -> (table: String, owner: String, other: String) {
        let links = try #require(StorageMapNaming(model: model, layout: InstarLayout()).links(of: "artists", in: "track"))
        guard case .joinTable(let table, let owner, let other, _) = links else {
            Issue.record("expected a join table")
            throw CancellationError()
        }
        return (table, owner, other)
    }

    /// The hook: one artist per JSON name, one link per track and artist.
    func fillArtists(_ model: Model, reading column: String = "json") throws -> [String] {
        let (table, owner, other) = try joinTable(model)
        return [
            #"INSERT INTO "artist" ("name") SELECT DISTINCT j."value" FROM "track" AS t, json_each(t."\#(column)") AS j ORDER BY 1"#,
            #"INSERT OR IGNORE INTO "\#(table)" ("\#(owner)", "\#(other)") SELECT t."_pk", a."_pk" FROM "track" AS t, json_each(t."json") AS j JOIN "artist" AS a ON a."name" = j."value""#,
        ]
    }

    func fixture(_ first: Model) throws -> StoreFixture {
        let f = try StoreFixture(first)
        // Two dropped columns of a table without indexes cost less than a rebuild only when freed pages
        // are zero-filled (``DropColumnCost``): fixed here so that 3 → 4 rebuilds on every SQLite build.
        try f.store.setSecureDelete(.off)
        try f.execute(
            """
            INSERT INTO "track" ("_pk", "title", "json", "image") VALUES
              (1, 'one', '["A","B"]', 'i1'), (2, 'two', '["A"]', NULL), (3, 'three', NULL, 'i3'), (4, 'four', '["C","A","C"]', 'i4')
            """)
        return f
    }

    func hooks(_ statements: [String]) -> [Int: [InlineHook]] {
        [2: [InlineHook(name: "fillArtists", statements: statements) { db in for sql in statements { try db.execute(sql: sql) } }]]
    }

    @Test func aRebuildTheHookCannotSeeMovesPastItAndTheTableIsRebuiltOnce() throws {
        let versions = try models()
        let statements = try fillArtists(versions[2])
        let plan = try TransactionPlan.make(versions: versions, hooks: hooks(statements), layout: InstarLayout(), fuse: true)
        let moved = try #require(plan.moves.first)
        #expect(moved.hooks == ["fillArtists"] && moved.position == 2)
        #expect(moved.work.tables == ["track"])
        // The join table's plain index is made after the hook fills it; artist's unique constraint is not moved.
        let (table, _, _) = try joinTable(versions[2])
        #expect(!moved.work.indexes.isEmpty && moved.work.indexes.allSatisfy { $0.hasPrefix(table) })

        let fused = try fixture(versions[0])
        let outcome = try fused.store.migrate(through: versions, fuse: true, hooks: hooks(statements))
        #expect(outcome.plan.statements.filter { $0.purpose == "copy rows into track" }.count == 1)
        let stepwise = try fixture(versions[0])
        let unfused = try stepwise.store.migrate(through: versions, fuse: false, hooks: hooks(statements))
        #expect(unfused.plan.statements.filter { $0.purpose == "copy rows into track" }.count == 2)
        #expect(try StoreContent.digest(fused.store) == StoreContent.digest(stepwise.store))
        #expect(try fused.rows("artist").map { $0["name"] } == ["A", "B", "C"].map { $0.databaseValue })
        #expect(try fused.column("track", "plays") == Array(repeating: .int(0), count: 4))
    }

    @Test func aRebuildStaysWhereTheHookCouldSeeIt() throws {
        let versions = try models()
        let (table, owner, _) = try joinTable(versions[2])
        let cases: [(String, [String])] = [
            // Reads a column the rebuild renames.
            ("reads artwork", try fillArtists(versions[2]) + [#"INSERT INTO "artist" ("name") SELECT "artwork" FROM "track" WHERE "artwork" = 'none'"#]),
            // Reads a column the rebuild fills with a default.
            ("reads plays", try fillArtists(versions[2]) + [#"DELETE FROM "\#(table)" WHERE "\#(owner)" IN (SELECT "_pk" FROM "track" WHERE "plays" > 0)"#]),
            // Writes the table.
            ("writes track", try fillArtists(versions[2]) + [#"UPDATE "track" SET "title" = upper("title")"#]),
            // An unqualified name inside the subquery: in the shape the hook expects, "image" is artist's
            // column; in track's older shape (which still has its own "image") it would be track's.
            ("resolves a name differently", try fillArtists(versions[2]) + [
                #"UPDATE "artist" SET "image" = 'seen' WHERE EXISTS (SELECT 1 FROM "track" AS t WHERE t."_pk" = "artist"."_pk" AND "image" IS NULL)"#
            ]),
            // Reads every column.
            ("select star", try fillArtists(versions[2]) + [#"CREATE TEMP TABLE "everything" AS SELECT * FROM "track""#]),
            // Cannot be analysed.
            ("opaque", try fillArtists(versions[2]) + ["PRAGMA user_version"]),
        ]
        for (name, statements) in cases {
            let plan = try TransactionPlan.make(versions: versions, hooks: hooks(statements), layout: InstarLayout(), fuse: true)
            #expect(plan.moves.allSatisfy { !$0.work.tables.contains("track") }, "\(name)")
            let fused = try fixture(versions[0])
            try fused.store.migrate(through: versions, fuse: true, hooks: hooks(statements))
            let stepwise = try fixture(versions[0])
            try stepwise.store.migrate(through: versions, fuse: false, hooks: hooks(statements))
            #expect(try StoreContent.digest(fused.store) == StoreContent.digest(stepwise.store), "\(name)")
        }
        // A hook that is code, not SQL, moves nothing at all.
        let code = [2: [InlineHook(name: "code", statements: nil) { _ in }]]
        #expect(try TransactionPlan.make(versions: versions, hooks: code, layout: InstarLayout(), fuse: true).moves.isEmpty)
        // Without fusion nothing moves either.
        let statements = try fillArtists(versions[2])
        #expect(try TransactionPlan.make(versions: versions, hooks: hooks(statements), layout: InstarLayout(), fuse: false).moves.isEmpty)
    }

    @Test func aHookThatBreaksALinkRollsEverythingBackAndIsNamed() throws {
        let versions = try models()
        let (table, owner, other) = try joinTable(versions[2])
        let broken = try fillArtists(versions[2]) + [#"INSERT INTO "\#(table)" ("\#(owner)", "\#(other)") VALUES (99, 1)"#]
        for fuse in [true, false] {
            let f = try fixture(versions[0])
            let before = try f.fileBytes()
            #expect {
                try f.store.migrate(through: versions, fuse: fuse, hooks: hooks(broken))
            } throws: { error in
                let text = "\(error)"
                return text.contains("foreign key is broken after hook 'fillArtists'") && text.contains("\(table) row")
            }
            #expect(try f.fileBytes() == before)
        }
    }

    /// The fast check (each distinct value looked up once) agrees with `PRAGMA foreign_key_check`, and
    /// composite keys are left to the pragma.
    @Test func linkChecksAgreeWithSQLite() throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(configuration: configuration)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE p (id INTEGER PRIMARY KEY, code TEXT UNIQUE, a INTEGER, b INTEGER, UNIQUE (a, b));
                    CREATE TABLE c (x INTEGER REFERENCES p(id), y TEXT REFERENCES p(code));
                    CREATE TABLE d (a INTEGER, b INTEGER, FOREIGN KEY (a, b) REFERENCES p(a, b));
                    INSERT INTO p VALUES (1, 'one', 1, 1), (2, 'two', 1, 2);
                    """)
            let schema = try SchemaReader.read(db)
            let rows: [(String, String, Bool)] = [
                ("c", "(1, 'one'), (2, NULL), (NULL, 'two')", true),
                ("c", "(1, 'one'), (3, 'one')", false),
                ("c", "(1, 'three')", false),
            ]
            for (table, values, intact) in rows {
                try db.execute(sql: "DELETE FROM \(table); INSERT INTO \(table) VALUES \(values)")
                let pragma = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check(\(table))").isEmpty
                #expect(pragma == intact)
                #expect(try PendingForeignKeyChecks.linksAreIntact(schema.table(named: table)!, schema: schema, db) == intact)
            }
            // (1, 2) and (2, 1) each match a column of some parent row, but (2, 1) is no parent's key.
            try db.execute(sql: "INSERT INTO d VALUES (1, 2), (2, 1)")
            #expect(try !Row.fetchAll(db, sql: "PRAGMA foreign_key_check(d)").isEmpty)
            #expect(try !PendingForeignKeyChecks.linksAreIntact(schema.table(named: "d")!, schema: schema, db))
        }
    }
}
