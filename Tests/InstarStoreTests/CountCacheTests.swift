import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import InstarTestSupport
import Testing

/// A count read on a connection is read again exactly when the store may have changed since: another
/// connection committed, this one changed a row, or this one changed the schema. Inside a transaction it
/// is always read.
@Suite struct CountCacheTests {
    static let count = #"SELECT count(*) FROM "Item""#

    /// A store of one table with `rows` rows, and the statements its connection runs from then on.
    final class Fixture {
        let directory: URL
        let store: SQLiteStore
        let executed = Locked<[String]>([])

        init(rows: Int) throws {
            directory = try temporaryDirectory()
            let model = try ModelFileReader.parse("name: V1\nentities:\n  Item:\n    attributes:\n      n: int64?\n", file: "v1.yaml")
            store = try SQLiteStore.create(at: directory.appendingPathComponent("store.sqlite").path, model: model)
            try store.withDatabase { db in
                for pk in 0..<rows { try db.execute(sql: #"INSERT INTO "Item" ("_pk") VALUES (?)"#, arguments: [pk + 1]) }
                db.trace(options: .statement) { [executed] event in
                    if case .statement(let statement) = event { executed.withLock { $0.append(statement.sql) } }
                }
            }
        }

        func count() throws -> Int { try store.withDatabase { db in try store.count(db, sql: CountCacheTests.count) } }
        var countsRead: Int { executed.withLock { $0.filter { $0 == CountCacheTests.count }.count } }

        deinit {
            try? store.close()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func aCountIsReadOnceWhileTheStoreIsUnchanged() throws {
        let f = try Fixture(rows: 3)
        #expect(try f.count() == 3)
        #expect(try f.count() == 3)
        #expect(try f.store.withDatabase { db in try f.store.count(db, sql: Self.count + " WHERE \"_pk\" > ?", arguments: [1.databaseValue]) } == 2)
        #expect(f.countsRead == 1)
    }

    @Test func thisConnectionsRowChangesAreSeen() throws {
        let f = try Fixture(rows: 3)
        #expect(try f.count() == 3)
        try f.store.withDatabase { db in try db.execute(sql: #"DELETE FROM "Item" WHERE "_pk" = 1"#) }
        #expect(try f.count() == 2)
        try f.store.withDatabase { db in try db.execute(sql: #"UPDATE "Item" SET "n" = 1"#) }
        #expect(try f.count() == 2)
        #expect(f.countsRead == 3)
    }

    @Test func anotherConnectionsCommitIsSeen() throws {
        let f = try Fixture(rows: 3)
        #expect(try f.count() == 3)
        let other = try DatabaseQueue(path: f.store.path)
        try other.write { db in try db.execute(sql: #"INSERT INTO "Item" ("_pk") VALUES (10)"#) }
        try other.close()
        #expect(try f.count() == 4)
    }

    /// A table dropped and made again changes no row count SQLite keeps (`total_changes()`), only the
    /// schema version.
    @Test func aSchemaChangeAloneIsSeen() throws {
        let f = try Fixture(rows: 3)
        #expect(try f.count() == 3)
        try f.store.withDatabase { db in
            try db.execute(sql: #"CREATE TABLE "Copy" AS SELECT * FROM "Item" WHERE 0"#)
            try db.execute(sql: #"DROP TABLE "Item""#)
            try db.execute(sql: #"ALTER TABLE "Copy" RENAME TO "Item""#)
        }
        #expect(try f.count() == 0)
    }

    /// In a transaction every count is read, and a count read there is not kept: a rolled-back schema
    /// change takes the schema version back, and a later change may reach the same number again.
    @Test func insideATransactionCountsAreReadAfresh() throws {
        let f = try Fixture(rows: 3)
        #expect(try f.count() == 3)
        try f.store.withDatabase { db in
            try db.execute(sql: "BEGIN")
            try db.execute(sql: #"DROP TABLE "Item""#)
            try db.execute(sql: #"CREATE TABLE "Item" ("_pk" INTEGER PRIMARY KEY, "n" INTEGER)"#)
            #expect(try f.store.count(db, sql: Self.count) == 0)
            try db.execute(sql: "ROLLBACK")
        }
        #expect(try f.count() == 3)
        #expect(f.countsRead == 2)
    }

    /// A read-only connection's counts pass to another connection only while nothing was committed
    /// since they were read.
    @Test func countsPassFromAReadOnlyLookOnlyWhileNothingWasCommitted() throws {
        let f = try Fixture(rows: 3)
        func look() throws -> SQLiteStore {
            let reader = try SQLiteStore.open(at: f.store.path, readOnly: true)
            #expect(try reader.withDatabase { db in try reader.count(db, sql: Self.count) } == 3)
            return reader
        }
        let unchanged = try look()
        try f.store.adoptCounts(from: unchanged)
        try unchanged.close()
        #expect(try f.count() == 3)
        #expect(f.countsRead == 0, "taken from the look")

        let outdated = try look()
        try f.store.withDatabase { db in try db.execute(sql: #"INSERT INTO "Item" ("_pk") VALUES (10)"#) }
        try f.store.adoptCounts(from: outdated)
        try outdated.close()
        #expect(try f.count() == 4)
        #expect(f.countsRead == 1, "counted again after the commit")
    }
}
