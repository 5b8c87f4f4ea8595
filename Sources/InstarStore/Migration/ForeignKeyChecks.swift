import GRDB
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
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
    /// Tables whose links a step may have broken, and per table the foreign-key columns whose links
    /// the step made from kept keys (``StepProgram/linksToKeptKeys(source:)``): those need no check.
    struct StepChecks {
        var tables: [String]
        var linksToKeptKeys: [String: Set<String>]
    }

    /// Tables of `program`'s target whose foreign keys must be checked after it ran on a store whose
    /// schema was `source`, and which of their links cannot have broken.
    static func tables(after program: StepProgram, source: StoreSchema) -> StepChecks {
        let tables = tablesToCheck(after: program, source: source)
        let proven = program.linksToKeptKeys(source: source).filter { tables.contains($0.key) }
        return StepChecks(tables: tables, linksToKeptKeys: proven)
    }

    private static func tablesToCheck(after program: StepProgram, source: StoreSchema) -> [String] {
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
    /// Table → foreign-key columns that every part which put the table here filled from kept keys
    /// (``ForeignKeyScope/StepChecks``); their links are not looked up.
    private var linksToKeptKeys: [String: Set<String>] = [:]

    mutating func add(_ scope: [String]?, origin: String) {
        guard let scope else {
            everything = everything ?? origin
            return
        }
        for table in scope {
            if tables[table] == nil { tables[table] = origin }
            // Whatever this part wrote is unproven, whatever an earlier part proved.
            linksToKeptKeys[table] = nil
        }
    }

    /// A step's tables: a column stays exempt only while every part that put its table here proved it.
    mutating func add(_ scope: ForeignKeyScope.StepChecks, origin: String) {
        for table in scope.tables {
            let proven = scope.linksToKeptKeys[table] ?? []
            if tables[table] == nil {
                tables[table] = origin
                linksToKeptKeys[table] = proven
            } else {
                linksToKeptKeys[table] = linksToKeptKeys[table].map { $0.intersection(proven) }
            }
        }
    }

    /// Follows the pending tables through a program that is about to run: a continued table is
    /// checked under its new name, a dropped one no longer needs checking.
    mutating func follow(_ program: StepProgram) {
        var moved: [String: String] = [:]
        for t in program.transformations where t.continuesSource {
            if let source = t.source, let origin = tables[source] { moved[t.target.name] = origin }
        }
        tables = moved
        // A later program may remove the rows those keys named, or rename the columns: prove again.
        linksToKeptKeys = [:]
    }

    mutating func check(_ db: Database, path: String) throws {
        defer {
            tables = [:]
            everything = nil
            linksToKeptKeys = [:]
        }
        var found: (Row, String)?
        if let origin = everything {
            found = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check").map { ($0, tables[$0["table"]] ?? origin) }
        } else if !tables.isEmpty {
            let schema = try SchemaReader.read(db)
            for (table, origin) in tables.sorted(by: { $0.key < $1.key }) {
                guard let definition = schema.table(named: table),
                    try !Self.linksAreIntact(definition, schema: schema, db, skipping: linksToKeptKeys[table] ?? [])
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
                .verificationFailed, path: path, reason: .foreignKeyBroken(after: .part(origin), table: table, row: row, parent: parent))
        }
    }

    /// Whether every link of `table` leads to an existing row, leaving out the single-column links
    /// of the columns in `skipping` (which the caller knows to be intact). Per foreign-key column,
    /// each distinct value is looked up once when an index on the table starts with the column (as
    /// join tables' keys and indexes do): the index yields the values in order, each once. Without
    /// such an index, DISTINCT would first sort every value into a temporary b-tree, which costs
    /// about what looking each row's value up in the parent's key does, so each row is looked up.
    /// Either way this is faster than `PRAGMA foreign_key_check`, which also reads the parent row.
    /// False means "not proven": the caller then asks `PRAGMA foreign_key_check` (also when the two
    /// columns' types differ, where SQLite's comparison rules for the pragma and for `=` could part).
    static func linksAreIntact(
        _ table: SchemaTable, schema: StoreSchema, _ db: Database, skipping: Set<String> = []
    ) throws -> Bool {
        let keys = try Row.fetchAll(db, sql: "SELECT * FROM pragma_foreign_key_list(?)", arguments: [table.name])
        let byConstraint = Dictionary(grouping: keys) { $0["id"] as Int }
        for (_, parts) in byConstraint {
            if parts.count == 1, let from = parts[0]["from"] as String?, skipping.contains(from) { continue }
            // Composite keys, and keys naming the parent's primary key implicitly, go to the pragma.
            guard parts.count == 1, let from = parts[0]["from"] as String?, let to = parts[0]["to"] as String?,
                let parentTable = parts[0]["table"] as String?,
                let parent = schema.table(named: parentTable)?.column(named: to),
                let column = table.column(named: from), parent.declaredType.uppercased() == column.declaredType.uppercased()
            else { return false }
            let child = from.sqlQuoted
            let parentHas = "SELECT 1 FROM \(parentTable.sqlQuoted) WHERE \(to.sqlQuoted) ="
            let sql =
                leadsAnIndex(from, of: table, schema: schema)
                ? """
                SELECT 1 FROM (SELECT DISTINCT \(child) AS "value" FROM \(table.name.sqlQuoted) WHERE \(child) IS NOT NULL) AS "links"
                WHERE NOT EXISTS (\(parentHas) "links"."value") LIMIT 1
                """
                : """
                SELECT 1 FROM \(table.name.sqlQuoted) AS "links" WHERE "links".\(child) IS NOT NULL
                AND NOT EXISTS (\(parentHas) "links".\(child)) LIMIT 1
                """
            if try Int.fetchOne(db, sql: sql) != nil { return false }
        }
        return true
    }

    /// Whether some index of `table` (its key's, a unique constraint's, or a declared one) starts with
    /// `column`, so that SQLite reads its distinct values from that index.
    static func leadsAnIndex(_ column: String, of table: SchemaTable, schema: StoreSchema) -> Bool {
        table.column(named: column)?.isPrimaryKey == true || table.primaryKey.first == column
            || table.uniqueConstraints.contains { $0.first == column }
            || schema.indexes(on: table.name).contains { $0.elements.first?.column == column }
    }
}
