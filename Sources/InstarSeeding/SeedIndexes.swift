import GRDB
@_spi(Layouts) import InstarSQL

/// The secondary indexes of the tables a seed fills while they are empty, set aside for the load and
/// built again after it.
///
/// Each row inserted into a table with an index is also a B-tree insert into that index, in the
/// index's order rather than the row's: random pages, most of a large seed's time. `CREATE INDEX` on a
/// filled table sorts its keys once and writes the index in order, which is several times cheaper. So a
/// table that is empty when the seed starts loses its indexes (those with SQL in `sqlite_master`:
/// `CREATE [UNIQUE] INDEX`, never a primary key's or a `UNIQUE` constraint's own index, which SQLite
/// will not drop) and gets them back, from the very same SQL, before the transaction commits. A table
/// that already holds rows keeps its indexes: rebuilding them would cost as much as the rows it has.
///
/// Everything runs inside the seed's transaction, so a failure anywhere — a row, a rebuilt `UNIQUE`
/// index finding a duplicate — rolls the drops back too and leaves the schema as it was.
struct SeedIndexes {
    /// One index set aside: its name and the SQL that created it, in `sqlite_master` order.
    struct Index {
        let name: String
        let sql: String
    }

    private(set) var dropped: [Index] = []

    /// Drops the secondary indexes of those of `tables` that hold no row.
    static func setAside(_ db: Database, tables: [String]) throws -> SeedIndexes {
        var indexes = SeedIndexes()
        var seen = Set<String>()
        for table in tables where seen.insert(table).inserted {  // entities of one hierarchy share a table
            let quoted = SQLIdentifier.quoted(table)
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(quoted))") == false else { continue }
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY rowid",
                arguments: [table])
            indexes.dropped += rows.map { Index(name: $0["name"], sql: $0["sql"]) }
        }
        for index in indexes.dropped {
            try db.execute(sql: "DROP INDEX \(SQLIdentifier.quoted(index.name))")
        }
        return indexes
    }

    /// Creates the dropped indexes again, in their original order, from their original SQL (so
    /// `sqlite_master` holds the same text as before the seed).
    func restore(_ db: Database) throws {
        for index in dropped {
            try db.execute(sql: index.sql)
        }
    }
}
