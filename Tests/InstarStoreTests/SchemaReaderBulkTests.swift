import Foundation
import GRDB
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarStore
import Testing
import InstarTestSupport

/// `SchemaReader.read` reads every table's pragmas in a few joined statements; reading each table on
/// its own (a statement per pragma and per index, as `readTable` does) must give the same schema, on
/// schemas written to be awkward and on every real store of the corpus.
@Suite struct SchemaReaderBulkTests {
    /// The schema read table by table: the reference the joined statements must reproduce.
    static func tableByTable(_ db: Database) throws -> (tables: [InstarLayouts.SchemaTable], indexes: [InstarLayouts.SchemaIndex]) {
        let names = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
        var tables: [InstarLayouts.SchemaTable] = []
        var indexes: [InstarLayouts.SchemaIndex] = []
        for name in names {
            tables.append(try SchemaReader.readTable(db, name))
            indexes += try SchemaReader.readIndexes(db, name)
        }
        return (tables, indexes)
    }

    static func expectSame(_ db: Database, _ label: String) throws {
        let bulk = try SchemaReader.read(db)
        let reference = try tableByTable(db)
        #expect(bulk.tables.map(\.name) == reference.tables.map(\.name), "\(label)")
        for (read, expected) in zip(bulk.tables, reference.tables) {
            var read = read  // AUTOINCREMENT is read from the schema's SQL text, not from a table's pragmas
            for i in read.columns.indices { read.columns[i].autoincrement = false }
            #expect(read == expected, "\(label): table \(expected.name)")
        }
        #expect(bulk.indexes == reference.indexes, "\(label)")
    }

    @Test func awkwardSchemasReadTheSameInBulk() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE "parent" (id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT CONSTRAINT code_unique UNIQUE COLLATE NOCASE);
                    CREATE TABLE "Ärger und a b" ("x y" TEXT DEFAULT 'it''s', "Z" REAL DEFAULT -1.5 CHECK ("Z" < 10),
                        parent INTEGER REFERENCES parent ON DELETE CASCADE, other INTEGER CONSTRAINT fk_other REFERENCES parent(id),
                        blob BLOB DEFAULT X'00FF', total INTEGER GENERATED ALWAYS AS ("Z" * 2) VIRTUAL,
                        PRIMARY KEY ("x y", "Z"), CONSTRAINT pair UNIQUE (parent, other)) WITHOUT ROWID;
                    CREATE TABLE b (k INTEGER NOT NULL DEFAULT (0), v TEXT);
                    CREATE TABLE Bb (k INTEGER);
                    CREATE INDEX "b by v desc" ON b (v DESC, k);
                    CREATE UNIQUE INDEX b_partial ON b (k) WHERE v IS NOT NULL;
                    CREATE INDEX b_expr ON b (lower(v));
                    CREATE INDEX "Ärger index" ON "Ärger und a b" (other, "x y" DESC);
                    CREATE VIEW names AS SELECT v FROM b;
                    CREATE TRIGGER touch AFTER INSERT ON b BEGIN UPDATE b SET k = k + 1 WHERE rowid = new.rowid; END;
                    """)
        }
        try queue.read { db in
            try Self.expectSame(db, "awkward schema")
            let schema = try SchemaReader.read(db)
            #expect(schema.tables.map(\.name) == ["Bb", "b", "parent", "Ärger und a b"])
            #expect(Set(schema.indexes.map(\.name)) == ["b by v desc", "b_expr", "b_partial", "Ärger index"])
            #expect(schema.indexes.last?.name == "Ärger index")
            #expect(schema.tables.first { $0.name == "parent" }?.columns.first?.autoincrement == true)
            #expect(schema.tables.first { $0.name == "Ärger und a b" }?.uniqueConstraints == [["parent", "other"]])
        }
    }

    /// Every SQLite store of the corpus (Core Data and SwiftData stores, app databases), read from a copy.
    @Test(.needsCorpus) func corpusStoresReadTheSameInBulk() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let suffixes = [".sqlite", ".store", ".sqlite3", ".db"]
        let enumerator = FileManager.default.enumerator(at: corpusRoot, includingPropertiesForKeys: nil)
        var read = 0
        while let url = enumerator?.nextObject() as? URL {
            guard suffixes.contains(where: { url.lastPathComponent.hasSuffix($0) }),
                (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
            else { continue }
            let copy = folder.appendingPathComponent("\(read).sqlite")
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: url.path + suffix) {
                try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
            }
            guard let queue = try? DatabaseQueue(path: copy.path),
                (try? queue.read({ db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") })) != nil
            else { continue }  // not a SQLite file
            try queue.read { db in try Self.expectSame(db, url.path) }
            read += 1
        }
        #expect(read >= 40, "read \(read) corpus stores")
    }
}
