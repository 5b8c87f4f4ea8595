import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts

/// What SQLite says about one table: its pragma rows (`foreign_key_list`, `table_xinfo`,
/// `index_list`, and `index_xinfo` of each of its indexes) and its `CREATE TABLE` text, each list in
/// the pragma's own order. ``SchemaReader`` turns them into a ``SchemaTable``; they are read for one
/// table, or for every table at once.
struct PragmaRows {
    var foreignKeys: [Row] = []
    var columns: [Row] = []
    var indexList: [Row] = []
    /// The key columns of each index, by index name, in `seqno` order.
    var indexColumns: [String: [(seqno: Int, name: String?, descending: Bool)]] = [:]
    var createSQL: String?

    func keyColumns(ofIndex name: String) -> [(seqno: Int, name: String?, descending: Bool)] {
        indexColumns[name] ?? []
    }

    /// The facts of one table (a statement per pragma, and one per index).
    static func read(_ db: Database, table: String) throws -> PragmaRows {
        var facts = PragmaRows()
        facts.foreignKeys = try Row.fetchAll(db, sql: "SELECT * FROM pragma_foreign_key_list(?)", arguments: [table])
        facts.columns = try Row.fetchAll(db, sql: "SELECT * FROM pragma_table_xinfo(?)", arguments: [table])
        facts.indexList = try Row.fetchAll(db, sql: "SELECT * FROM pragma_index_list(?)", arguments: [table])
        for row in facts.indexList {
            let name: String = row["name"]
            facts.indexColumns[name] = try Row.fetchAll(
                db, sql: "SELECT seqno, name, desc FROM pragma_index_xinfo(?) WHERE key = 1", arguments: [name]
            ).map(Self.keyColumn).sorted { $0.seqno < $1.seqno }
        }
        facts.createSQL = try String.fetchOne(
            db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table])
        return facts
    }

    /// The names of the tables, and the facts of each (tables SQLite keeps for itself left out;
    /// the caller filters the layout's own), in five statements, each
    /// pragma joined with `sqlite_master`; the rows of one table arrive together, in the pragma's order.
    /// `createSQL` is the schema's SQL text as ``SchemaReader/readSQL(_:skipping:)`` read it.
    static func readAll(_ db: Database, createSQL: [RawSQL]) throws -> (names: [String], facts: [String: PragmaRows]) {
        /// Every user table joined with `pragmas` (table-valued pragma calls over `m.name`).
        func perTable(_ pragmas: String) -> String {
            "FROM sqlite_master AS m\(pragmas) WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        }
        func rows(of pragma: String) throws -> [Row] {
            try Row.fetchAll(db, sql: "SELECT m.name AS \"instar table\", p.* \(perTable(", \(pragma)(m.name) AS p"))")
        }
        var all: [String: PragmaRows] = [:]
        // In SQLite's order (BINARY collation), which Swift's string order is not for every name.
        let names = try String.fetchAll(db, sql: "SELECT m.name \(perTable("")) ORDER BY m.name")
        for name in names { all[name] = PragmaRows() }
        for row in try rows(of: "pragma_foreign_key_list") { all[row["instar table"]]?.foreignKeys.append(row) }
        for row in try rows(of: "pragma_table_xinfo") { all[row["instar table"]]?.columns.append(row) }
        for row in try rows(of: "pragma_index_list") { all[row["instar table"]]?.indexList.append(row) }
        let indexColumns = """
            SELECT m.name AS "instar table", l.name AS "instar index", x.seqno, x.name, x.desc
            \(perTable(", pragma_index_list(m.name) AS l, pragma_index_xinfo(l.name) AS x")) AND x.key = 1
            """
        for row in try Row.fetchAll(db, sql: indexColumns) {
            all[row["instar table"]]?.indexColumns[row["instar index"], default: []].append(keyColumn(row))
        }
        for name in names {
            for (index, columns) in all[name]?.indexColumns ?? [:] {
                all[name]?.indexColumns[index] = columns.sorted { $0.seqno < $1.seqno }
            }
        }
        for object in createSQL where object.kind == .table { all[object.name]?.createSQL = object.sql }
        return (names, all)
    }

    private static func keyColumn(_ row: Row) -> (seqno: Int, name: String?, descending: Bool) {
        (row["seqno"], row["name"], (row["desc"] as Int) != 0)
    }
}
