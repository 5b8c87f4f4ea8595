import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// What an existing database says about one of its tables, read once for the importer: the
/// definition in Instar's terms plus what that definition cannot show (hidden columns, composite
/// foreign keys, clauses only the `CREATE TABLE` text has).
struct TableFacts {
    var definition: SchemaTable
    var sql: String
    /// Foreign keys as SQLite lists them, one entry per constraint.
    var foreignKeys: [ForeignKeyFacts]
    /// Why the table must be kept as raw SQL; empty when a model can express it.
    var rawReasons: [String]
    /// Constraint names the `CREATE TABLE` text gives (`CONSTRAINT pk_x PRIMARY KEY …`), which
    /// SQLite keeps only in that text: a model does not keep them.
    var namedConstraints: Bool
    /// Columns whose `DEFAULT` is an expression (`CURRENT_TIMESTAMP`, `(datetime('now'))`), not a literal.
    var expressionDefaults: Set<String>

    var name: String { definition.name }
    var integerPrimaryKey: SchemaColumn? { definition.columns.first(where: \.isPrimaryKey) }

    struct ForeignKeyFacts {
        var from: [String]
        var table: String
        var to: [String?]
        var onUpdate: String
        var onDelete: String
        var match: String
    }

    static func read(_ db: Database, table: String, sql: String) throws -> TableFacts {
        var definition = try SchemaReader.readTable(db, table)
        let words = SQLKeywords.words(of: residual(of: sql, keeping: &definition))
        if words.contains("AUTOINCREMENT"), let i = definition.columns.firstIndex(where: \.isPrimaryKey) {
            definition.columns[i].autoincrement = true
        }
        var grouped: [Int: ForeignKeyFacts] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq", arguments: [table]) {
            let id: Int = row["id"]
            var fk = grouped[id] ?? ForeignKeyFacts(
                from: [], table: row["table"], to: [], onUpdate: row["on_update"], onDelete: row["on_delete"], match: row["match"])
            fk.from.append(row["from"])
            fk.to.append(try (row["to"] as String?) ?? SchemaReader.impliedParentKey(db, fk.table))
            grouped[id] = fk
        }
        let hidden = try Int.fetchOne(
            db, sql: "SELECT count(*) FROM pragma_table_xinfo(?) WHERE hidden != 0", arguments: [table]) ?? 0
        let defaults = try Row.fetchAll(
            db, sql: "SELECT name, dflt_value FROM pragma_table_xinfo(?) WHERE dflt_value IS NOT NULL", arguments: [table])
        let expressionDefaults = Set(defaults.filter { !isLiteral($0["dflt_value"]) }.map { $0["name"] as String })
        var reasons = clauseReasons(words)
        if hidden > 0, !reasons.contains("generated column") { reasons.append("generated column") }
        // In the order of their columns (SQLite lists them last declared first).
        let position = Dictionary(definition.columns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        let foreignKeys = grouped.values.sorted {
            (position[$0.from[0]] ?? 0, $0.table) < (position[$1.from[0]] ?? 0, $1.table)
        }
        return TableFacts(
            definition: definition, sql: sql, foreignKeys: foreignKeys,
            rawReasons: reasons, namedConstraints: words.filter { $0 == "CONSTRAINT" }.count > keptNames(definition),
            expressionDefaults: expressionDefaults)
    }

    /// The `CREATE TABLE` text without the clauses a model keeps verbatim (`CHECK`, `COLLATE` on a
    /// column; `CHECK` table constraints), so that only what remains decides whether the table must
    /// be raw. A key column's clauses are not kept (the layout writes key columns itself): they stay
    /// in the residue and make the table raw.
    static func residual(of sql: String, keeping definition: inout SchemaTable) -> String {
        guard let text = CreateTableText.parse(sql) else {
            for i in definition.columns.indices { definition.columns[i].verbatimClauses = nil }
            definition.verbatimConstraints = []
            return sql
        }
        var rest = sql
        func remove(_ fragment: String) {
            if let range = rest.range(of: fragment) { rest.replaceSubrange(range, with: " ") }
        }
        for i in definition.columns.indices {
            let column = definition.columns[i]
            guard column.verbatimClauses != nil else { continue }
            if column.isPrimaryKey || definition.primaryKey.contains(column.name) {
                definition.columns[i].verbatimClauses = nil
                continue
            }
            for clause in text.column(named: column.name)?.clauses ?? [] where clause.kind == "CHECK" || clause.kind == "COLLATE" {
                remove(clause.text)
            }
        }
        definition.verbatimConstraints.forEach(remove)
        return rest
    }

    /// Constraint names the model keeps outside the verbatim clauses: foreign keys' and `UNIQUE`s'.
    static func keptNames(_ definition: SchemaTable) -> Int {
        definition.columns.filter { $0.references?.constraintName != nil || $0.primaryKeyName != nil }.count
            + definition.uniqueConstraintNames.count + (definition.primaryKeyName == nil ? 0 : 1)
    }

    /// `NULL`, a number, a quoted string or a blob: what a model's default can say.
    static func isLiteral(_ text: String) -> Bool {
        var s = Substring(text)
        while s.hasPrefix("(") && s.hasSuffix(")") { s = s.dropFirst().dropLast() }
        if s.uppercased() == "NULL" || Double(s) != nil { return true }
        if s.count >= 2, s.hasPrefix("'"), s.hasSuffix("'") { return !s.dropFirst().dropLast().replacingOccurrences(of: "''", with: "").contains("'") }
        return s.count >= 3 && s.uppercased().hasPrefix("X'") && s.hasSuffix("'")
    }

    /// Clauses of the `CREATE TABLE` text that SQLite's pragmas do not report and a model cannot say.
    static func clauseReasons(_ words: [String]) -> [String] {
        var reasons: [String] = []
        let checks: [(String, String)] = [
            ("CHECK", "CHECK constraint"), ("COLLATE", "COLLATE clause"), ("GENERATED", "generated column"),
            ("WITHOUT", "WITHOUT ROWID"), ("CONFLICT", "ON CONFLICT clause"), ("DEFERRABLE", "deferrable foreign key"),
            ("ASC", "ordered key"), ("DESC", "ordered key"),
        ]
        for (word, reason) in checks where words.contains(word) && !reasons.contains(reason) { reasons.append(reason) }
        if words.contains("AS"), !reasons.contains("generated column") { reasons.append("generated column") }
        if words.prefix(2) == ["CREATE", "VIRTUAL"] { reasons.append("virtual table") }
        if words.last == "STRICT" { reasons.append("STRICT table") }
        return reasons
    }
}
