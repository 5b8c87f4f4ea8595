import Foundation
import GRDB
import InstarCompiler
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
import InstarTestSupport
import InstarStoreTestSupport
import Testing

/// Issue 41, item 2: a `NOT NULL` that goes is cut from the table's stored text (SQLite's documented
/// schema edit) instead of rebuilding the table, and columns are dropped one by one while that costs
/// less than a rebuild (``DropColumnCost``).
@Suite struct InPlaceSchemaEditTests {
    @Test func theEditCutsOnlyTheNotNullClauses() throws {
        let sql = """
            CREATE TABLE t (id INTEGER PRIMARY KEY, "a b" TEXT CONSTRAINT a_nn NOT NULL ON CONFLICT FAIL COLLATE NOCASE,
              c INTEGER NOT NULL CHECK (c > 0) /* kept */, d TEXT NOT NULL DEFAULT 'NOT NULL',
              e INTEGER REFERENCES p(id) NOT DEFERRABLE, CONSTRAINT u UNIQUE (c, d))
            """
        let edited = CreateTableText.droppingNotNull(of: ["A B", "d"], in: sql)
        #expect(
            edited == """
                CREATE TABLE t (id INTEGER PRIMARY KEY, "a b" TEXT COLLATE NOCASE,
                  c INTEGER NOT NULL CHECK (c > 0) /* kept */, d TEXT DEFAULT 'NOT NULL',
                  e INTEGER REFERENCES p(id) NOT DEFERRABLE, CONSTRAINT u UNIQUE (c, d))
                """)
        // Nothing to cut: the caller rebuilds instead of writing a text it cannot explain.
        #expect(CreateTableText.droppingNotNull(of: ["id"], in: sql) == nil)
        #expect(CreateTableText.droppingNotNull(of: ["e"], in: sql) == nil)
        #expect(CreateTableText.droppingNotNull(of: ["missing"], in: sql) == nil)
        #expect(CreateTableText.droppingNotNull(of: ["c"], in: "CREATE TABLE t (c INTEGER NOT NULL") == nil)
    }

    static let v1 = """
        entities:
          Owner:
            attributes:
              name: string
            relationships:
              cars: Car[] inverse owner
          Car:
            attributes:
              plate: string
              color: string?
            relationships:
              owner: Owner? inverse cars
        """

    /// The step changes no other schema, so it raises the schema version itself: a connection that read
    /// the schema before the step must see the column nullable after it, or it would refuse a NULL.
    @Test func aRequiredColumnBecomesOptionalWithoutARebuild() throws {
        let f = try StoreFixture(try model(Self.v1, name: "V1"))
        try f.execute("INSERT INTO Owner (_pk, name) VALUES (1, 'Ann')")
        try f.execute("INSERT INTO Car (_pk, plate, color, owner) VALUES (1, 'A-1', 'red', 1), (2, 'B-2', NULL, NULL)")
        let other = try DatabaseQueue(path: f.path)
        defer { try? other.close() }
        #expect(try other.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Car") } == 2)

        let v2 = Self.v1.replacingOccurrences(of: "plate: string\n", with: "plate: string?\n")
        let outcome = try f.store.migrate(from: try model(Self.v1, name: "V1"), to: try model(v2, name: "V2"))
        #expect(outcome.plan.tables["Car"] == .altered([InPlaceAlteration.dropNotNull]))
        #expect(outcome.plan.statements.contains { $0.sql == "PRAGMA writable_schema = RESET" })
        #expect(try f.schema().table(named: "Car")?.column(named: "plate")?.notNull == false)
        #expect(try f.column("Car", "plate") == [.text("A-1"), .text("B-2")])

        try other.write { db in try db.execute(sql: "INSERT INTO Car (_pk, plate) VALUES (3, NULL)") }
        let (integrity, writable, leftovers) = try f.store.withDatabase { db in
            (
                try String.fetchOne(db, sql: "PRAGMA integrity_check"), try Bool.fetchOne(db, sql: "PRAGMA writable_schema"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name LIKE '\\_instar\\_schema%' ESCAPE '\\'")
            )
        }
        #expect(integrity == "ok" && writable == false && leftovers == 0)
        #expect(try f.store.detectVersion(among: [model(Self.v1, name: "V1"), model(v2, name: "V2")]).version?.name == "V2")
    }

    /// The edit runs before any table is set aside: the step also renames the table `Car` references,
    /// and SQLite rewrites the reference in the edited text, not in a text read before the rename.
    @Test func theEditComesBeforeTablesAreRenamed() throws {
        let f = try StoreFixture(try model(Self.v1, name: "V1"))
        try f.execute("INSERT INTO Owner (_pk, name) VALUES (1, 'Ann')")
        try f.execute("INSERT INTO Car (_pk, plate, owner) VALUES (1, 'A-1', 1)")
        let v2 = Self.v1
            .replacingOccurrences(of: "plate: string\n", with: "plate: string?\n")
            .replacingOccurrences(of: "  Owner:\n", with: "  Person:\n    renamedFrom: Owner\n")
            .replacingOccurrences(of: "owner: Owner?", with: "owner: Person?")
        let outcome = try f.store.migrate(from: try model(Self.v1, name: "V1"), to: try model(v2, name: "V2"))
        #expect(outcome.plan.rebuiltTables.isEmpty)
        let car = try #require(try f.schema().table(named: "Car"))
        #expect(car.column(named: "plate")?.notNull == false)
        #expect(car.column(named: "owner")?.references?.table == "Person")
        let (integrity, violations) = try f.store.withDatabase { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"), try Row.fetchAll(db, sql: "PRAGMA foreign_key_check"))
        }
        #expect(integrity == "ok" && violations.isEmpty)
    }

    static let wide = "entities:\n  E:\n    attributes:\n      a: string?\n      b: string?\n      c: string?\n      d: string?\n"

    /// `E` has no index, so dropping columns one by one wins only while a rebuild must also zero-fill
    /// the old table: up to two columns with `secure_delete` on, one with it off.
    @Test(arguments: [(SecureDelete.on, 2, true), (.on, 3, false), (.off, 1, true), (.off, 2, false), (.fast, 2, false)])
    func columnsAreDroppedInPlaceWhileThatCostsLess(_ mode: SecureDelete, _ dropped: Int, _ inPlace: Bool) throws {
        let f = try StoreFixture(try model(Self.wide, name: "V1"))
        try f.store.setSecureDelete(mode)
        try f.execute("INSERT INTO E (_pk, a, b, c, d) VALUES (1, 'a', 'b', 'c', 'd')")
        let gone = ["a", "b", "c"].prefix(dropped)
        let v2 = gone.reduce(Self.wide) { $0.replacingOccurrences(of: "      \($1): string?\n", with: "") }
        let cost = DropColumnCost(table: try #require(try f.schema().table(named: "E")), in: try f.schema())
        #expect(cost.indexes == 0 && cost.freedPagesZeroed == (mode == .on))
        let outcome = try f.store.migrate(from: try model(Self.wide, name: "V1"), to: try model(v2, name: "V2"))
        #expect((outcome.plan.tables["E"] == .altered(Array(repeating: "DROP COLUMN", count: dropped))) == inPlace)
        #expect(outcome.plan.rebuiltTables == (inPlace ? [] : ["E"]))
        #expect(try f.column("E", "d") == [.text("d")])
    }
}
