import GRDB
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
import InstarCompiler

/// The keys of the rows a migration's steps removed from their tables (rows of a removed sub-entity),
/// kept in a temporary table for the length of the migration's transaction.
///
/// Core Data does not enforce references in SQLite, and real stores hold to-one keys that point at
/// rows which never existed. When a step removes rows, the links to *those* rows are cleared, as
/// Core Data's delete would; any other key that leads nowhere was already so before the step, and a
/// migration changes only what its step changes. Knowing which keys the step removed is the only way
/// to tell the two apart once the rows are gone, so they are recorded before each step runs.
enum RemovedRows {
    /// The temporary table (in SQLite's `temp` schema, so never part of the store's file).
    static let table = "_instar_removed_rows"

    /// Records the keys of the rows `program` is about to leave out of the tables it continues, and
    /// follows the keys recorded by earlier steps of the same transaction to their tables' new names.
    /// `actual` is the store's schema before the step.
    static func record(_ program: StepProgram, actual: StoreSchema, _ db: Database) throws {
        let quoted = "temp." + table.sqlQuoted
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS \(table.sqlQuoted) (\"table\" TEXT NOT NULL, \"key\" INTEGER NOT NULL)")
        for t in program.transformations where t.continuesSource {
            guard let source = t.source, source != t.target.name else { continue }
            try db.execute(sql: "UPDATE \(quoted) SET \"table\" = ? WHERE \"table\" = ?", arguments: [t.target.name, source])
        }
        for t in program.transformations where t.continuesSource && t.role == .entityTable && !t.filter.isEmpty {
            guard let source = t.source, let definition = actual.table(named: source), let key = singleKey(of: definition)
            else { continue }
            var arguments: [SQLValue] = [.text(t.target.name)]
            let kept = t.filter.map { $0.render(&arguments, qualifier: source) }.joined(separator: " AND ")
            try db.execute(
                sql: """
                    INSERT INTO \(quoted) ("table", "key") SELECT ?, \(source.sqlQuoted).\(key.sqlQuoted) FROM \(source.sqlQuoted)
                    WHERE NOT (\(kept))
                    """,
                arguments: StatementArguments(arguments.map(\.databaseValue)))
        }
    }

    /// Whether keys were recorded for this transaction (false in a mapping step, which removes rows
    /// by its own rules).
    static func isRecording(_ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_temp_master WHERE type = 'table' AND name = ?", arguments: [table]) == 1
    }

    /// `column IN (the keys removed from table)`, for a link into `table`.
    static func removedFrom(_ table: String, column: String) -> (sql: String, arguments: StatementArguments) {
        ("\(column.sqlQuoted) IN (SELECT \"key\" FROM temp.\(Self.table.sqlQuoted) WHERE \"table\" = ?)", [table])
    }

    /// Forgets the keys recorded so far, once the links to them were cleared; later steps of the
    /// transaction record theirs.
    static func forget(_ db: Database) throws {
        if try isRecording(db) { try db.execute(sql: "DELETE FROM temp.\(table.sqlQuoted)") }
    }

    /// Ends the recording at the end of a migration's transaction.
    static func finish(_ db: Database) throws {
        try db.execute(sql: "DROP TABLE IF EXISTS temp.\(table.sqlQuoted)")
    }

    /// The table's one-column primary key (`Z_PK`), or nil for a composite or implicit one.
    private static func singleKey(of table: SchemaTable) -> String? {
        let keys = table.columns.filter(\.isPrimaryKey).map(\.name) + table.primaryKey
        return keys.count == 1 ? keys[0] : nil
    }
}
