import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts

/// Reads the schema a SQLite database actually has, in the same terms as a layout's expectation.
///
/// Uses SQLite's table-valued pragma functions with bound table names, so no name is spliced into SQL.
package enum SchemaReader {
    /// Whether this connection zero-fills the pages a statement frees (`secure_delete`): 1 is `on`;
    /// 2 (`fast`) zero-fills only pages written anyway, so it counts as off. What ``DropColumnCost``
    /// weighs, read in this one place.
    package static func freedPagesZeroed(_ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: "PRAGMA secure_delete") == 1
    }

    /// Every user table and index, except SQLite's own and those `isInternal` says to skip.
    ///
    /// Six statements for the whole schema, whatever its size: each pragma is joined with
    /// `sqlite_master`, so a store of 60 tables is not read with 300 statements (preparing them was
    /// most of the cost of reading a schema, and a run reads it several times).
    package static func read(_ db: Database, skipping isInternal: (String) -> Bool = { _ in false }) throws -> StoreSchema {
        let objects = try readSQL(db, skipping: isInternal)
        let (tableNames, facts) = try PragmaRows.readAll(db, createSQL: objects)
        var schema = StoreSchema()
        schema.freedPagesZeroed = try freedPagesZeroed(db)
        schema.raw = objects.filter { $0.kind == .view || $0.kind == .trigger }
        schema.sqlText = Dictionary(objects.map { ("\($0.kind.rawValue) \($0.name)", $0.sql) }, uniquingKeysWith: { a, _ in a })
        let autoincrement = Set(objects.filter { $0.kind == .table && SQLKeywords.words(of: $0.sql).contains("AUTOINCREMENT") }.map(\.name))
        for table in tableNames where !isInternal(table) {
            guard let rows = facts[table] else { continue }
            var definition = try tableDefinition(db, table, rows)
            if autoincrement.contains(table), let i = definition.columns.firstIndex(where: \.isPrimaryKey) {
                definition.columns[i].autoincrement = true
            }
            schema.tables.append(definition)
            schema.indexes += indexes(table, rows)
        }
        return schema
    }

    /// Every table, index, view and trigger with its SQL text, in creation order.
    package static func readSQL(_ db: Database, skipping isInternal: (String) -> Bool) throws -> [RawSQL] {
        try Row.fetchAll(
            db,
            sql: "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid"
        ).compactMap { row in
            let type: String = row["type"]
            let table: String = row["tbl_name"]
            let name: String = row["name"]
            // A sliced rewrite's change-capture triggers sit on the app's tables but are Instar's.
            guard let kind = RawSQL.Kind(rawValue: type), !isInternal(table), !InstarObjects.contains(name) else { return nil }
            return RawSQL(kind: kind, name: name, table: table, sql: row["sql"])
        }
    }

    /// One table's definition, read on its own.
    package static func readTable(_ db: Database, _ table: String) throws -> InstarLayouts.SchemaTable {
        try tableDefinition(db, table, PragmaRows.read(db, table: table))
    }

    /// The definition of `table` from what SQLite's pragmas and its `CREATE TABLE` text say about it.
    static func tableDefinition(_ db: Database, _ table: String, _ facts: PragmaRows) throws -> InstarLayouts.SchemaTable {
        var references: [String: ForeignKeyReference] = [:]
        for row in facts.foreignKeys {
            let from: String = row["from"]
            let onDelete: String = row["on_delete"]
            let parent: String = row["table"]
            let to = try (row["to"] as String?) ?? impliedParentKey(db, parent)
            references[from] = ForeignKeyReference(
                table: parent, column: to ?? "", onDelete: onDelete == "NO ACTION" ? nil : onDelete)
        }
        let primaryKeyCount = facts.columns.filter { ($0["pk"] as Int) > 0 }.count
        var columns: [SchemaColumn] = []
        var compositeKey: [(Int, String)] = []
        for row in facts.columns where (row["hidden"] as Int) == 0 {
            let name: String = row["name"]
            let pk: Int = row["pk"]
            if pk > 0 && primaryKeyCount > 1 { compositeKey.append((pk, name)) }
            columns.append(
                SchemaColumn(
                    name: name, declaredType: row["type"], notNull: (row["notnull"] as Int) != 0,
                    defaultValue: (row["dflt_value"] as String?).flatMap(parseLiteral),
                    isPrimaryKey: pk > 0 && primaryKeyCount == 1, references: references[name]))
        }
        var definition = SchemaTable(
            name: table, columns: columns, primaryKey: compositeKey.sorted { $0.0 < $1.0 }.map(\.1),
            uniqueConstraints: uniqueConstraints(facts))
        if let sql = facts.createSQL { readVerbatimParts(sql, into: &definition) }
        return definition
    }

    /// The `CHECK` and `COLLATE` clauses and `CHECK` table constraints only the `CREATE TABLE` text
    /// has (``CreateTableText``); none when the text cannot be read that way.
    static func readVerbatimParts(_ sql: String, into definition: inout SchemaTable) {
        guard let text = CreateTableText.parse(sql) else { return }
        for i in definition.columns.indices {
            definition.columns[i].verbatimClauses = text.column(named: definition.columns[i].name).flatMap(CreateTableText.keptClauses)
        }
        definition.verbatimConstraints = text.checkConstraints
        readConstraintNames(text, into: &definition)
    }

    /// Names of foreign keys and `UNIQUE` constraints (column or table constraints), which SQLite
    /// keeps only in the `CREATE TABLE` text.
    static func readConstraintNames(_ text: CreateTableText, into definition: inout SchemaTable) {
        func nameForeignKey(_ column: String, _ name: String) {
            guard let i = definition.columns.firstIndex(where: { $0.name.sqliteFolded == column.sqliteFolded }),
                definition.columns[i].references != nil
            else { return }
            definition.columns[i].references?.constraintName = name
        }
        func nameUnique(_ columns: [String], _ name: String) {
            let folded = columns.map(\.sqliteFolded)
            guard let match = definition.uniqueConstraints.first(where: { $0.map(\.sqliteFolded) == folded }) else { return }
            definition.uniqueConstraintNames[match] = name
        }
        for column in text.columns {
            for clause in column.clauses {
                guard let name = clause.name else { continue }
                if clause.kind == "REFERENCES" { nameForeignKey(column.name, name) }
                if clause.kind == "UNIQUE" { nameUnique([column.name], name) }
                if clause.kind == "PRIMARY", let i = definition.columns.firstIndex(where: { $0.name.sqliteFolded == column.name.sqliteFolded }) {
                    definition.columns[i].primaryKeyName = name
                }
            }
        }
        for constraint in text.constraints {
            guard let name = constraint.name else { continue }
            if constraint.kind == "FOREIGN", constraint.columns.count == 1 { nameForeignKey(constraint.columns[0], name) }
            if constraint.kind == "UNIQUE" { nameUnique(constraint.columns, name) }
            if constraint.kind == "PRIMARY" {
                if !definition.primaryKey.isEmpty {
                    definition.primaryKeyName = name
                } else if let i = definition.columns.firstIndex(where: \.isPrimaryKey) {
                    definition.columns[i].primaryKeyName = name
                }
            }
        }
    }

    /// The column a `REFERENCES parent` without columns points to: the parent's primary key, as SQLite
    /// defines it, when it is one column; nil otherwise (or when the parent does not exist).
    package static func impliedParentKey(_ db: Database, _ parent: String) throws -> String? {
        let keys = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?) WHERE pk > 0", arguments: [parent])
        return keys.count == 1 ? keys[0] : nil
    }

    /// `UNIQUE` constraints declared in `CREATE TABLE` (their automatic indexes, origin `u`), in a
    /// stable order.
    static func uniqueConstraints(_ facts: PragmaRows) -> [[String]] {
        facts.indexList.filter { ($0["origin"] as String) == "u" }
            .map { row in facts.keyColumns(ofIndex: row["name"]).map { $0.name ?? "" } }
            .sorted { $0.joined(separator: "\u{0}") < $1.joined(separator: "\u{0}") }
    }

    /// The indexes created by `CREATE INDEX` (constraints' automatic indexes are part of the table).
    static func indexes(_ table: String, _ facts: PragmaRows) -> [SchemaIndex] {
        facts.indexList.filter { ($0["origin"] as String) == "c" }.map { row in
            let name: String = row["name"]
            let elements = facts.keyColumns(ofIndex: name).map { SchemaIndex.Element(column: $0.name ?? "", descending: $0.descending) }
            return SchemaIndex(name: name, table: table, elements: elements, isUnique: (row["unique"] as Int) != 0)
        }
    }

    /// Reads a `DEFAULT` clause as SQLite reports it (`0`, `'text'`, `NULL`, `X'00'`, `-1.5`).
    static func parseLiteral(_ text: String) -> SQLValue? {
        var s = text.trimmingCharacters(in: .whitespaces)
        while s.hasPrefix("(") && s.hasSuffix(")") { s = String(s.dropFirst().dropLast()) }
        if s.uppercased() == "NULL" { return .null }
        if let i = Int64(s) { return .integer(i) }
        if let d = Double(s) { return .real(d) }
        if s.count >= 2, s.hasPrefix("'"), s.hasSuffix("'") {
            return .text(String(s.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'"))
        }
        if s.count >= 3, s.uppercased().hasPrefix("X'"), s.hasSuffix("'") {
            let hex = Array(s.dropFirst(2).dropLast())
            var bytes = Data()
            var i = 0
            while i + 1 < hex.count, let byte = UInt8(String(hex[i...i + 1]), radix: 16) {
                bytes.append(byte)
                i += 2
            }
            return .blob(bytes)
        }
        return .text(s)  // an expression such as CURRENT_TIMESTAMP: compared as text
    }
}

extension SchemaReader {
    /// One table's indexes, read on their own (the indexes ``read(_:skipping:)`` lists for it).
    package static func readIndexes(_ db: Database, _ table: String) throws -> [InstarLayouts.SchemaIndex] {
        indexes(table, try PragmaRows.read(db, table: table))
    }
}
