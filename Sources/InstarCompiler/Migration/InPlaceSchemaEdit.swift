@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// Removing a `NOT NULL` constraint without rewriting a row.
///
/// SQLite documents a procedure for schema changes that leave every stored row valid as it is
/// ("Making Other Kinds Of Table Schema Changes", the simpler procedure): write the new `CREATE TABLE`
/// text into `sqlite_master` with `PRAGMA writable_schema` on, then make the schema known again. Dropping
/// `NOT NULL` is such a change: a row that held a value still does, and the table's pages, indexes and
/// row format stay the same. Instar cuts only the `NOT NULL` clause out of the text the store already
/// has (``CreateTableText/droppingNotNull(of:in:)``), so a hand-written table keeps every other word.
///
/// Order inside the step's transaction: the edits run first, while every table still has the name its
/// text was read under; `PRAGMA writable_schema = RESET` then turns editing off and makes this
/// connection read the schema again, so the statements after it (and the step's schema check) see the
/// edited table. Every later `CREATE`, `ALTER` or `DROP` raises the schema version, which tells other
/// connections to read the schema again; a step that has none raises it with a view it creates and drops.
extension InPlaceAlteration {
    /// The columns of `source` that keep their values but lose `NOT NULL` in `t`.
    static func relaxedColumns(_ t: TableTransformation, source: SchemaTable) -> [String] {
        source.columns.filter { column in
            guard column.notNull, let target = newName(of: column.name, in: t).flatMap(t.target.column(named:)) else {
                return false
            }
            return !target.notNull
        }.map(\.name)
    }

    /// The statement that edits `t`'s source table's stored text, when `t` removes a `NOT NULL`; nil when it
    /// removes none. Run it through ``schemaEdits(_:then:)``.
    package static func schemaEdit(for t: TableTransformation, source: SchemaTable, in schema: StoreSchema) -> PlannedStatement? {
        let relaxed = relaxedColumns(t, source: source)
        guard !relaxed.isEmpty else { return nil }
        return schemaEdit(of: source, relaxing: relaxed, in: schema)
    }

    static func schemaEdit(of table: SchemaTable, relaxing columns: [String], in schema: StoreSchema) -> PlannedStatement? {
        guard let text = CreateTableText.droppingNotNull(of: columns, in: storedText(of: table, in: schema)) else { return nil }
        return PlannedStatement(
            sql: "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?",
            arguments: [.text(text), .text(table.name)], purpose: dropNotNull)
    }

    /// The purpose of a schema edit, as a table's treatment lists it beside `ADD COLUMN` and the others.
    package static let dropNotNull = "DROP NOT NULL"

    /// `edits` made safe to run: editing on, the edits, editing off with the schema read again; and the
    /// schema version raised when none of `later` (the step's statements after them) changes the schema.
    package static func schemaEdits(_ edits: [PlannedStatement], then later: [PlannedStatement]) -> [PlannedStatement] {
        guard !edits.isEmpty else { return [] }
        var statements = [PlannedStatement(sql: "PRAGMA writable_schema = ON", arguments: [], purpose: "allow editing table text")]
        statements += edits
        statements.append(PlannedStatement(sql: "PRAGMA writable_schema = RESET", arguments: [], purpose: "read the edited schema"))
        let changesSchema = later.contains { statement in
            let word = statement.sql.prefix { !$0.isWhitespace }.uppercased()
            return word == "CREATE" || word == "ALTER" || word == "DROP"
        }
        if !changesSchema {
            let view = "_instar_schema_version".sqlQuoted
            statements.append(PlannedStatement(sql: "CREATE VIEW \(view) AS SELECT 1", arguments: [], purpose: "raise the schema version"))
            statements.append(PlannedStatement(sql: "DROP VIEW \(view)", arguments: [], purpose: "raise the schema version"))
        }
        return statements
    }

    /// The table's `CREATE TABLE` text as the store has it; for a schema not read from a store (a dry run
    /// from models alone), or text that no longer lists the table's columns, the text Instar would write.
    static func storedText(of table: SchemaTable, in schema: StoreSchema) -> String {
        if let text = schema.sqlText["table \(table.name)"], let parsed = CreateTableText.parse(text),
            parsed.columns.map(\.name.sqliteFolded) == table.columns.map(\.name.sqliteFolded)
        {
            return text
        }
        return table.createSQL()
    }
}

/// Whether dropping a table's columns one `ALTER TABLE … DROP COLUMN` at a time costs less than one
/// rebuild of the table.
///
/// Each `DROP COLUMN` rewrites every row in place; the first also copies every page into the rollback
/// journal. A rebuild copies the rows once into new pages (which need no journal), then builds each of
/// the table's indexes again, and drops the old table, which with `secure_delete` on means zero-filling
/// (and journaling) every one of its pages. Measured with `Scripts/bench-drops` on a 1M-row table of
/// 283 MB (Measurements, "Dropping columns in place, and NOT NULL removed without a rebuild"): with one
/// index and `secure_delete` on, two and three drops in place beat the rebuild and four lose; with it off
/// (or `fast`), already two lose; a second index moves each break-even by about one column. So a table
/// keeps its columns' drops in place up to its index count, plus two when freed pages are zeroed, and
/// always for one column.
package struct DropColumnCost: Sendable, Hashable {
    /// The store zero-fills freed pages (`secure_delete` on).
    package var freedPagesZeroed: Bool
    /// The indexes a rebuild builds again: explicit ones, and SQLite's own for `UNIQUE` constraints and a
    /// primary key that is not the row id.
    package var indexes: Int

    package init(table: SchemaTable, in schema: StoreSchema) {
        freedPagesZeroed = schema.freedPagesZeroed
        let rowidKey = table.primaryKey.isEmpty && table.columns.contains { $0.isPrimaryKey && $0.declaredType.uppercased() == "INTEGER" }
        let keyIndex = rowidKey || (table.primaryKey.isEmpty && !table.columns.contains(where: \.isPrimaryKey)) ? 0 : 1
        indexes = schema.indexes(on: table.name).count + table.uniqueConstraints.count + keyIndex
    }

    /// How many columns may be dropped in place before a rebuild costs less.
    package var inPlaceLimit: Int { max(1, indexes + (freedPagesZeroed ? 2 : 0)) }

    /// Why a rebuild was chosen, in words.
    var reason: String {
        "one rebuild costs less than more than \(inPlaceLimit) DROP COLUMN rewrites of the table (\(indexes) index(es) to build again; freed pages \(freedPagesZeroed ? "zero-filled" : "left as they are"))"
    }
}
