import GRDB
import InstarModel
import InstarLayouts

/// What SQLite says about one table: its pragma rows (`foreign_key_list`, `table_xinfo`,
/// `index_list`, and `index_xinfo` of each of its indexes) and its `CREATE TABLE` text, each list in
/// the pragma's own order. ``SchemaReader`` turns them into a ``TableDefinition``; they are read for one
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
        let tables = "sqlite_master AS m WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        var all: [String: PragmaRows] = [:]
        // In SQLite's order (BINARY collation), which Swift's string order is not for every name.
        let names = try String.fetchAll(db, sql: "SELECT m.name FROM \(tables) ORDER BY m.name")
        for name in names { all[name] = PragmaRows() }
        for row in try Row.fetchAll(db, sql: "SELECT m.name AS \"instar table\", p.* FROM \(tables.replacingOccurrences(of: " WHERE", with: ", pragma_foreign_key_list(m.name) AS p WHERE"))") {
            all[row["instar table"], default: PragmaRows()].foreignKeys.append(row)
        }
        for row in try Row.fetchAll(db, sql: "SELECT m.name AS \"instar table\", p.* FROM \(tables.replacingOccurrences(of: " WHERE", with: ", pragma_table_xinfo(m.name) AS p WHERE"))") {
            all[row["instar table"], default: PragmaRows()].columns.append(row)
        }
        for row in try Row.fetchAll(db, sql: "SELECT m.name AS \"instar table\", p.* FROM \(tables.replacingOccurrences(of: " WHERE", with: ", pragma_index_list(m.name) AS p WHERE"))") {
            all[row["instar table"], default: PragmaRows()].indexList.append(row)
        }
        var columnsByIndex: [String: [(seqno: Int, name: String?, descending: Bool)]] = [:]
        let indexColumns = """
            SELECT m.name AS "instar table", l.name AS "instar index", x.seqno, x.name, x.desc
            FROM \(tables.replacingOccurrences(of: " WHERE", with: ", pragma_index_list(m.name) AS l, pragma_index_xinfo(l.name) AS x WHERE")) AND x.key = 1
            """
        var tableOfIndex: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: indexColumns) {
            let index: String = row["instar index"]
            tableOfIndex[index] = row["instar table"]
            columnsByIndex[index, default: []].append(keyColumn(row))
        }
        for (index, columns) in columnsByIndex {
            guard let table = tableOfIndex[index] else { continue }
            all[table]?.indexColumns[index] = columns.sorted { $0.seqno < $1.seqno }
        }
        for object in createSQL where object.kind == .table { all[object.name]?.createSQL = object.sql }
        return (names, all)
    }

    private static func keyColumn(_ row: Row) -> (seqno: Int, name: String?, descending: Bool) {
        (row["seqno"], row["name"], (row["desc"] as Int) != 0)
    }
}
