import GRDB
import InstarSQL
import InstarLayouts
import InstarCompiler

/// Which tables' foreign keys a piece of work may have broken, so that verification checks those and
/// not the whole store.
///
/// `PRAGMA foreign_key_check` without a table walks every row of every table that has a foreign key:
/// on a large store that is seconds per check, and a migration checks after every step and every hook.
/// A table's references can only break when its own key columns got new values, or when rows (or
/// keys) of a table it points to went away; everything else is left unchecked because it cannot have
/// changed. When in doubt a table is checked.
enum ForeignKeyScope {
    /// Tables of `program`'s target whose foreign keys must be checked after it ran on a store whose
    /// schema was `source`.
    static func tables(after program: StepProgram, source: StoreSchema) -> [String] {
        let byTarget = Dictionary(program.transformations.map { ($0.target.name, $0) }, uniquingKeysWith: { a, _ in a })
        // Tables that keep every row and every key: references into them cannot break.
        func keepsKeys(_ table: String) -> Bool {
            guard let t = byTarget[table], t.continuesSource, t.filter.isEmpty, let from = t.source,
                let before = source.table(named: from)
            else { return false }
            let keys = t.target.columns.filter(\.isPrimaryKey).map(\.name) + t.target.primaryKey
            let sourceKeys = before.columns.filter(\.isPrimaryKey).map(\.name) + before.primaryKey
            return keys.count == sourceKeys.count
                && zip(keys, sourceKeys).allSatisfy { t.columns[$0.0] == .column($0.1) }
        }
        var check: [String] = []
        for table in program.targetSchema.tables {
            let foreignKeys = table.columns.filter { $0.references != nil }
            guard !foreignKeys.isEmpty else { continue }
            guard let t = byTarget[table.name] else {
                check.append(table.name)
                continue
            }
            // A table created empty has no rows to check.
            guard let from = t.source else { continue }
            guard t.continuesSource, t.filter.isEmpty, let before = source.table(named: from) else {
                check.append(table.name)
                continue
            }
            let intact = foreignKeys.allSatisfy { column in
                guard let reference = column.references, let copied = t.columns[column.name]?.copiedColumn,
                    let old = before.column(named: copied)?.references,
                    let referenced = byTarget[reference.table], referenced.source == old.table,
                    referenced.continuesSource, keepsKeys(reference.table)
                else { return false }
                return true
            }
            if !intact { check.append(table.name) }
        }
        return check
    }

    /// Tables of `schema` whose foreign keys must be checked after SQL with `access` ran; nil when the
    /// access is unknown (check everything).
    static func tables(after access: SQLAccess, in schema: StoreSchema) -> [String]? {
        guard !access.isOpaque else { return nil }
        let written = access.writtenTables
        let shrunk = access.removesOrChangesRows
        return schema.tables.filter { table in
            let references = table.columns.compactMap(\.references)
            guard !references.isEmpty else { return false }
            return written.contains(table.name) || references.contains { shrunk.contains($0.table) }
        }.map(\.name)
    }
}

/// Foreign keys that work inside a transaction may have broken, checked once before commit.
///
/// Checking after every part would walk the same tables again and again (a join table a hook filled
/// is checked once, after the tables it points to were rebuilt smaller); the check still runs inside
/// the transaction, so a broken link rolls everything back, and the message names what wrote it.
struct PendingForeignKeyChecks {
    /// Table → what may have broken its links; nil key set (``everything``) when unknown.
    private var tables: [String: String] = [:]
    private var everything: String?

    mutating func add(_ scope: [String]?, origin: String) {
        guard let scope else {
            everything = everything ?? origin
            return
        }
        for table in scope where tables[table] == nil { tables[table] = origin }
    }

    /// Follows the pending tables through a program that is about to run: a continued table is
    /// checked under its new name, a dropped one no longer needs checking.
    mutating func follow(_ program: StepProgram) {
        var moved: [String: String] = [:]
        for t in program.transformations where t.continuesSource {
            if let source = t.source, let origin = tables[source] { moved[t.target.name] = origin }
        }
        tables = moved
    }

    mutating func check(_ db: Database, path: String) throws {
        defer {
            tables = [:]
            everything = nil
        }
        var found: (Row, String)?
        if let origin = everything {
            found = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check").map { ($0, tables[$0["table"]] ?? origin) }
        } else if !tables.isEmpty {
            let schema = try SchemaReader.read(db)
            for (table, origin) in tables.sorted(by: { $0.key < $1.key }) {
                guard let definition = schema.table(named: table), try !Self.linksAreIntact(definition, schema: schema, db)
                else { continue }
                // (GRDB's foreignKeyViolations(in:) does not escape quotes inside a table's name.)
                if let violation = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check(\(table.sqlQuoted))") {
                    found = (violation, origin)
                    break
                }
            }
        }
        if let (violation, origin) = found {
            let table: String = violation["table"]
            let parent: String = violation["parent"]
            let row = (violation["rowid"] as Int64?).map(String.init) ?? "?"
            throw StoreError(
                .verificationFailed, path: path,
                "a foreign key is broken after \(origin) (\(table) row \(row) → \(parent)); rolled back")
        }
    }

    /// Whether every link of `table` leads to an existing row. Per foreign-key column, each distinct
    /// value is looked up once (through the column's index when there is one, as join tables'
    /// primary keys are; single-column keys only), instead of once per row as `PRAGMA foreign_key_check` does: on a join table
    /// filled by a hook this is several times faster. False means "not proven": the caller then asks
    /// `PRAGMA foreign_key_check` (also when the two columns' types differ, where SQLite's comparison
    /// rules for the pragma and for `=` could part).
    static func linksAreIntact(_ table: TableDefinition, schema: StoreSchema, _ db: Database) throws -> Bool {
        let keys = try Row.fetchAll(db, sql: "SELECT * FROM pragma_foreign_key_list(?)", arguments: [table.name])
        let byConstraint = Dictionary(grouping: keys) { $0["id"] as Int }
        for (_, parts) in byConstraint {
            // Composite keys, and keys naming the parent's primary key implicitly, go to the pragma.
            guard parts.count == 1, let from = parts[0]["from"] as String?, let to = parts[0]["to"] as String?,
                let parentTable = parts[0]["table"] as String?,
                let parent = schema.table(named: parentTable)?.column(named: to),
                let column = table.column(named: from), parent.declaredType.uppercased() == column.declaredType.uppercased()
            else { return false }
            let child = from.sqlQuoted
            let sql = """
                SELECT 1 FROM (SELECT DISTINCT \(child) AS "value" FROM \(table.name.sqlQuoted) WHERE \(child) IS NOT NULL) AS "links"
                WHERE NOT EXISTS (SELECT 1 FROM \(parentTable.sqlQuoted) WHERE \(to.sqlQuoted) = "links"."value") LIMIT 1
                """
            if try Int.fetchOne(db, sql: sql) != nil { return false }
        }
        return true
    }
}
