@_spi(Layouts) import InstarLayouts
import Foundation
import GRDB
import Testing

@_spi(Layouts) @testable import InstarStore
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
import InstarSeeding

/// How a seed loads its rows fast without changing the store around them: the indexes of empty tables
/// are dropped for the load and re-created before the commit, and any failure rolls that back.
@Suite struct SeedLoadTests {
    /// Every object of the schema with its SQL, by name: what a seed must leave as it found it.
    static func schema(_ store: SQLiteStore) throws -> [String] {
        try store.withDatabase { db in
            try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").map {
                "\($0["type"] as String) \($0["name"] as String) on \($0["tbl_name"] as String): \(($0["sql"] as String?) ?? "-")"
            }
        }
    }

    static func rowCounts(_ store: SQLiteStore) throws -> [String: Int] {
        let tables = try store.schema().tables.map(\.name)
        return try store.withDatabase { db in
            var counts: [String: Int] = [:]
            for table in tables {
                counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(SQLIdentifier.quoted(table))")
            }
            return counts
        }
    }

    @Test(arguments: SeedTests.layouts) func theSchemaIsTheSameAfterASeed(layout: String) throws {
        let (store, model, directory) = try SeedTests.makeStore(layout)
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.schema(store)
        #expect(before.contains { $0.hasPrefix("index ") && $0.contains("CREATE") }, "the test model has no index to set aside")
        _ = try store.seed(model: model, options: SeedOptions(rows: 200, seed: 3))
        #expect(try Self.schema(store) == before)
        // The re-built indexes hold every row (integrity_check compares each index with its table).
        let (integrity, violations) = try store.withDatabase { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"), try Row.fetchAll(db, sql: "PRAGMA foreign_key_check"))
        }
        #expect(integrity == "ok")
        #expect(violations.isEmpty)
        // A second seed finds full tables: it keeps their indexes and still leaves the schema alone.
        _ = try store.seed(model: model, options: SeedOptions(rows: 50, seed: 4))
        #expect(try Self.schema(store) == before)
    }

    /// A write that fails half-way through the load (the file may not grow past a few more pages:
    /// SQLITE_FULL) rolls back the rows written so far and the dropped indexes: schema, rows and file
    /// are as before the seed.
    @Test(arguments: SeedTests.layouts) func aFailedSeedLeavesSchemaAndRowsAsTheyWere(layout: String) throws {
        let (store, model, directory) = try SeedTests.makeStore(layout)
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = try Self.schema(store), counts = try Self.rowCounts(store)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
        try store.withDatabase { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages + 4)")
        }
        let error = #expect(throws: SeedError.self) { try store.seed(model: model, options: SeedOptions(rows: 3000, seed: 2)) }
        #expect(error?.failure?.kind == .diskFull, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error?.failure?.sqlite?.code == 13, "SQLite's SQLITE_FULL is kept: \(String(describing: error?.failure?.sqlite))")
        try store.withDatabase { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
        #expect(try Self.schema(store) == schema)
        #expect(try Self.rowCounts(store) == counts)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == bytes)
        // And the store still seeds.
        _ = try store.seed(model: model, options: SeedOptions(rows: 30, seed: 2))
        #expect(try Self.schema(store) == schema)
    }
}
