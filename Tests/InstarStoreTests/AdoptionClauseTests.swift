import Foundation
import GRDB
import Testing
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import InstarAdoption
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport

/// Issue 15, details an adopted table keeps without becoming raw SQL: column `CHECK`/`COLLATE` clauses
/// (`columnSQL:`), table `CHECK` constraints (`tableSQL:`), the column order (`columnOrder:`) and a
/// link table's `ON DELETE` actions (`joinTable.onDelete`), reproduced on create and on every rebuild.
@Suite struct AdoptionClauseTests {
    @Test func createTableTextCutsClausesExactly() throws {
        let text = try #require(
            CreateTableText.parse(
                """
                CREATE TABLE "t" (id INTEGER PRIMARY KEY, "a b" TEXT DEFAULT NULL COLLATE NOCASE NOT NULL,
                  c INTEGER CONSTRAINT c_pos CHECK (c > 0) REFERENCES p(id) ON DELETE SET NULL NOT DEFERRABLE,
                  d varchar(10) DEFAULT (lower('X')) CHECK (d <> 'check, collate'),
                  g INTEGER GENERATED ALWAYS AS (c + 1) VIRTUAL,
                  CONSTRAINT ordered CHECK (c < 10), UNIQUE (c, d), FOREIGN KEY (d) REFERENCES q(name))
                """))
        #expect(text.columns.map(\.name) == ["id", "a b", "c", "d", "g"])
        #expect(text.column(named: "A B").flatMap(CreateTableText.keptClauses) == "COLLATE NOCASE")
        #expect(text.column(named: "c").flatMap(CreateTableText.keptClauses) == "CONSTRAINT c_pos CHECK (c > 0)")
        #expect(text.column(named: "c")?.clauses.map(\.kind) == ["CHECK", "REFERENCES"])
        #expect(text.column(named: "d").flatMap(CreateTableText.keptClauses) == "CHECK (d <> 'check, collate')")
        #expect(text.column(named: "g")?.clauses.map(\.kind) == ["GENERATED"])
        #expect(text.checkConstraints == ["CONSTRAINT ordered CHECK (c < 10)"])
        #expect(text.constraints.map(\.kind) == ["CHECK", "UNIQUE", "FOREIGN"])
        #expect(CreateTableText.parse("CREATE TABLE t (a TEXT") == nil)
    }

    static func importFixture(_ name: String, in directory: URL) throws -> (path: String, model: Model, notes: [AdoptionNote]) {
        let path = try AdoptionTests.database(name, in: directory)
        let imported = try SchemaImporter.importModel(path: path, name: "V1")
        let model = try ModelFileReader.parse(ModelFileWriter.yaml(imported.model), file: "v1.yaml", defaultName: "V1")
        return (path, model, imported.notes)
    }

    @Test func clausesOrderAndCascadesAreModelled() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, model, notes) = try Self.importFixture("constraints.sql", in: directory)
        #expect(model.rawSQL.isEmpty, "\(model.rawSQL.map(\.name))")
        #expect(!notes.contains { $0.blocksMigrations })
        let volume = try #require(model.entity(named: "volume"))
        #expect(volume.attribute(named: "title")?.stored.sql == "COLLATE NOCASE")
        #expect(volume.stored.tableSQL == ["CHECK (typeof(title) = 'text' AND title <> '')"])
        #expect(volume.stored.columnOrder == ["id", "shelf_id", "title", "pages", "owner_id", "price_cents"])
        #expect(model.entity(named: "loan")?.stored.tableSQL == ["CONSTRAINT loan_dates CHECK (ends IS NULL OR ends >= starts)"])
        #expect(model.entity(named: "shelf")?.stored.columnOrder == [])
        let tags = try #require(volume.relationships.first { $0.stored.joinTable != nil })
        #expect(tags.stored.joinTable?.onDelete == ["CASCADE", "CASCADE"])
        let follows = try #require(model.entity(named: "member")?.relationships.first { $0.stored.joinTable?.name == "member_follow" })
        #expect(follows.stored.joinTable?.onDelete == ["CASCADE", "NO ACTION"])
        // Named constraints keep their names: UNIQUE (column or table constraint), foreign keys.
        let branch = try #require(model.entity(named: "branch"))
        #expect(branch.stored.uniqueConstraintNames == [["code"]: "branch_code_unique", ["city", "street"]: "branch_address"])
        #expect(branch.relationship(named: "manager")?.stored.column.constraint == "fk_branch_manager")
        #expect(model.entity(named: "copy")?.relationship(named: "volume")?.stored.column.constraint == "fk_copy_volume")
        #expect(!notes.contains { $0.name == "branch" || $0.name == "copy" }, "\(notes)")
        let branchSQL = try #require(try PlainSQLLayout().storageMap(for: model).schema.table(named: "branch")).createSQL()
        #expect(branchSQL.contains(#"CONSTRAINT "branch_address" UNIQUE ("city", "street")"#), "\(branchSQL)")
        #expect(branchSQL.contains(#"CONSTRAINT "fk_branch_manager" REFERENCES "member"("id")"#), "\(branchSQL)")
        let table = try #require(try PlainSQLLayout().storageMap(for: model).schema.table(named: "volume"))
        #expect(table.createSQL().contains(#""pages" INTEGER CHECK (pages IS NULL OR pages > 0)"#))
    }

    /// A step that makes a required column optional edits the table's own text: every clause,
    /// constraint and the column order stay as the adopted database wrote them, and SQLite still
    /// enforces them afterwards. (A rebuild writes them back too: `aChangedClauseRebuildsTheTable`.)
    @Test func aNotNullEditKeepsClausesAndOrder() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (path, v1, _) = try Self.importFixture("constraints.sql", in: directory)
        let text = ModelFileWriter.yaml(v1)
        let edited = text.replacingOccurrences(
            of: "price_cents:\n        type: int64\n        optional: false", with: "price_cents:\n        type: int64\n        optional: true")
        try #require(edited != text, "the fixture's price_cents line changed: \(text)")
        let v2 = try ModelFileReader.parse(edited.replacingOccurrences(of: "name: V1", with: "name: V2"), file: "v2.yaml")
        let store = try SQLiteStore.open(at: path, layout: PlainSQLLayout())
        defer { try? store.close() }
        try store.withDatabase { db in
            try db.execute(sql: "INSERT INTO member (id, email) VALUES (1, 'a@example.org')")
            try db.execute(sql: "INSERT INTO volume (id, title, owner_id, price_cents) VALUES (1, 'Dune', 1, 900)")
        }
        let outcome = try store.migrate(from: v1, to: v2)
        #expect(outcome.plan.tables["volume"] == .altered(["DROP NOT NULL"]))
        let (columns, sql) = try store.withDatabase { db in
            (
                try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('volume')"),
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'volume'") ?? ""
            )
        }
        #expect(columns == ["id", "shelf_id", "title", "pages", "owner_id", "price_cents"])
        #expect(sql.contains("CHECK (price_cents >= 0)") && sql.contains("CHECK (typeof(title) = 'text' AND title <> '')"))
        #expect(sql.contains("COLLATE NOCASE"), "\(sql)")
        #expect(throws: (any Error).self) {
            try store.withDatabase { db in try db.execute(sql: "UPDATE volume SET price_cents = -1") }
        }
        let title = try store.withDatabase { db in try String.fetchOne(db, sql: "SELECT title FROM volume WHERE title = 'DUNE'") }
        #expect(title == "Dune")
        #expect(try store.detectVersion(among: [v1, v2]).version?.name == "V2")
    }

    /// A store whose clause differs from the model's is not that version: the clauses are compared.
    @Test func aDifferentClauseIsDrift() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try AdoptionTests.database(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, qty INTEGER CHECK (qty > 0));", in: directory)
        let v1 = try SchemaImporter.importModel(path: path, name: "V1").model
        let other = try model(
            """
            entities:
              item:
                attributes: {qty: {type: int64, optional: true, columnSQL: "CHECK (qty >= 0)"}}
            """)
        let expected = try PlainSQLLayout().storageMap(for: other).schema
        let differences = SchemaComparison.differences(expected: expected, actual: try AdoptionTests.schema(path))
        #expect(differences.map(\.kind) == [.columnDiffers], "\(differences)")
        let same = try PlainSQLLayout().storageMap(for: v1).schema
        #expect(SchemaComparison.differences(expected: same, actual: try AdoptionTests.schema(path)).isEmpty)
    }
}

extension AdoptionClauseTests {
    /// A version that writes a clause differently rebuilds the table with the new text (SQLite cannot
    /// change a CHECK in place), and the new clause holds afterwards.
    @Test func aChangedClauseRebuildsTheTable() throws {
        let v1 = try model(
            """
            entities:
              item:
                attributes: {qty: {type: int64, optional: true, columnSQL: "CHECK (qty > 0)"}}
                tableSQL: ["CHECK (qty < 100)"]
            """, name: "V1")
        let v2 = try model(
            """
            entities:
              item:
                attributes: {qty: {type: int64, optional: true, columnSQL: "CHECK (qty >= 0)"}}
                tableSQL: ["CHECK (qty < 1000)"]
            """, name: "V2")
        let fixture = try StoreFixture(v1, layout: PlainSQLLayout())
        try fixture.execute(#"INSERT INTO "item" ("qty") VALUES (5)"#)
        let outcome = try fixture.store.migrate(from: v1, to: v2)
        #expect(outcome.plan.tables["item"].map { if case .rebuilt = $0 { true } else { false } } == true)
        try fixture.execute(#"INSERT INTO "item" ("qty") VALUES (0), (500)"#)
        #expect(throws: (any Error).self) { try fixture.execute(#"INSERT INTO "item" ("qty") VALUES (-1)"#) }
        #expect(try fixture.store.detectVersion(among: [v1, v2]).version?.name == "V2")
    }
}

extension AdoptionClauseTests {
    /// A link table with a column of its own is an entity with two to-ones and `compositeKey:` (rows
    /// identified by the rowid); a rebuild keeps the composite primary key and every row.
    @Test func aLinkTableWithItsOwnColumnIsAnEntity() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try AdoptionTests.database(
            sql: """
                CREATE TABLE purchase (id INTEGER PRIMARY KEY, placed REAL NOT NULL);
                CREATE TABLE product (id INTEGER PRIMARY KEY, sku TEXT NOT NULL);
                CREATE TABLE purchase_product (purchase_id INTEGER NOT NULL REFERENCES purchase(id) ON DELETE CASCADE,
                  product_id INTEGER NOT NULL REFERENCES product(id), quantity INTEGER CHECK (quantity > 0),
                  CONSTRAINT pk_purchase_product PRIMARY KEY (purchase_id, product_id));
                INSERT INTO purchase VALUES (1, 0), (2, 1);
                INSERT INTO product VALUES (1, 'a'), (2, 'b');
                INSERT INTO purchase_product VALUES (1, 1, 3), (1, 2, NULL), (2, 2, 1);
                """, in: directory)
        let imported = try SchemaImporter.importModel(path: path, name: "V1")
        let v1 = try ModelFileReader.parse(ModelFileWriter.yaml(imported.model), file: "v1.yaml")
        #expect(v1.rawSQL.isEmpty)
        let line = try #require(v1.entity(named: "purchase_product"))
        #expect(line.stored.primaryKey == "rowid" && line.stored.compositeKey == ["purchase_id", "product_id"])
        #expect(line.stored.primaryKeyConstraint == "pk_purchase_product")
        #expect(line.relationships.map(\.name) == ["purchase", "product"])
        // quantity becomes required with a default: SQLite cannot add NOT NULL in place, so a rebuild.
        let text = ModelFileWriter.yaml(v1).replacingOccurrences(of: "quantity:\n        type: int64\n        optional: true", with: "quantity:\n        type: int64\n        optional: false\n        default: 1")
        try #require(text != ModelFileWriter.yaml(v1), "\(ModelFileWriter.yaml(v1))")
        let v2 = try ModelFileReader.parse(text.replacingOccurrences(of: "name: V1", with: "name: V2"), file: "v2.yaml")
        let store = try SQLiteStore.open(at: path, layout: PlainSQLLayout())
        defer { try? store.close() }
        try store.withDatabase { db in try db.execute(sql: "UPDATE purchase_product SET quantity = 1 WHERE quantity IS NULL") }
        let outcome = try store.migrate(from: v1, to: v2)
        #expect(outcome.plan.tables["purchase_product"].map { if case .rebuilt = $0 { true } else { false } } == true)
        let (rows, sql) = try store.withDatabase { db in
            (
                try Row.fetchAll(db, sql: "SELECT purchase_id, product_id, quantity FROM purchase_product ORDER BY 1, 2")
                    .map { "\($0[0] as Int64)-\($0[1] as Int64)-\($0[2] as Int64)" },
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'purchase_product'") ?? ""
            )
        }
        #expect(rows == ["1-1-3", "1-2-1", "2-2-1"])
        #expect(sql.contains(#"CONSTRAINT "pk_purchase_product" PRIMARY KEY ("purchase_id", "product_id")"#), "\(sql)")
        #expect(sql.contains("CHECK (quantity > 0)"))
        #expect(throws: (any Error).self) {
            try store.withDatabase { db in try db.execute(sql: "INSERT INTO purchase_product VALUES (1, 1, 2)") }
        }
    }
}
