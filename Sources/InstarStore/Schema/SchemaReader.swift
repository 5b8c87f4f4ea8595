import Foundation
import GRDB
import InstarModel
import InstarLayouts

/// Reads the schema a SQLite database actually has, in the same terms as a layout's expectation.
///
/// Uses SQLite's table-valued pragma functions with bound table names, so no name is spliced into SQL.
package enum SchemaReader {
    /// Every user table and index, except SQLite's own and those `isInternal` says to skip.
    package static func read(_ db: Database, skipping isInternal: (String) -> Bool = { _ in false }) throws -> StoreSchema {
        let tableNames = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
            .filter { !isInternal($0) }
        var schema = StoreSchema()
        let objects = try readSQL(db, skipping: isInternal)
        schema.raw = objects.filter { $0.kind == .view || $0.kind == .trigger }
        schema.sqlText = Dictionary(objects.map { ("\($0.kind.rawValue) \($0.name)", $0.sql) }, uniquingKeysWith: { a, _ in a })
        let autoincrement = Set(objects.filter { $0.kind == .table && SQLKeywords.words(of: $0.sql).contains("AUTOINCREMENT") }.map(\.name))
        for table in tableNames {
            var definition = try readTable(db, table)
            if autoincrement.contains(table), let i = definition.columns.firstIndex(where: \.isPrimaryKey) {
                definition.columns[i].autoincrement = true
            }
            schema.tables.append(definition)
            schema.indexes += try readIndexes(db, table)
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
            guard let kind = RawSQL.Kind(rawValue: type), !isInternal(table) else { return nil }
            return RawSQL(kind: kind, name: row["name"], table: table, sql: row["sql"])
        }
    }

    package static func readTable(_ db: Database, _ table: String) throws -> InstarLayouts.TableDefinition {
        var references: [String: ForeignKeyReference] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM pragma_foreign_key_list(?)", arguments: [table]) {
            let from: String = row["from"]
            let onDelete: String = row["on_delete"]
            let parent: String = row["table"]
            let to = try (row["to"] as String?) ?? impliedParentKey(db, parent)
            references[from] = ForeignKeyReference(
                table: parent, column: to ?? "", onDelete: onDelete == "NO ACTION" ? nil : onDelete)
        }
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM pragma_table_xinfo(?)", arguments: [table])
        let primaryKeyCount = rows.filter { ($0["pk"] as Int) > 0 }.count
        var columns: [ColumnDefinition] = []
        var compositeKey: [(Int, String)] = []
        for row in rows where (row["hidden"] as Int) == 0 {
            let name: String = row["name"]
            let pk: Int = row["pk"]
            if pk > 0 && primaryKeyCount > 1 { compositeKey.append((pk, name)) }
            columns.append(
                ColumnDefinition(
                    name: name, declaredType: row["type"], notNull: (row["notnull"] as Int) != 0,
                    defaultValue: (row["dflt_value"] as String?).flatMap(parseLiteral),
                    isPrimaryKey: pk > 0 && primaryKeyCount == 1, references: references[name]))
        }
        var definition = TableDefinition(
            name: table, columns: columns, primaryKey: compositeKey.sorted { $0.0 < $1.0 }.map(\.1),
            uniqueConstraints: try readUniqueConstraints(db, table))
        try readVerbatimParts(db, into: &definition)
        return definition
    }

    /// The `CHECK` and `COLLATE` clauses and `CHECK` table constraints only the `CREATE TABLE` text
    /// has (``CreateTableText``); none when the text cannot be read that way.
    static func readVerbatimParts(_ db: Database, into definition: inout TableDefinition) throws {
        guard
            let sql = try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [definition.name]),
            let text = CreateTableText.parse(sql)
        else { return }
        for i in definition.columns.indices {
            definition.columns[i].verbatimClauses = text.column(named: definition.columns[i].name).flatMap(CreateTableText.keptClauses)
        }
        definition.verbatimConstraints = text.checkConstraints
        readConstraintNames(text, into: &definition)
    }

    /// Names of foreign keys and `UNIQUE` constraints (column or table constraints), which SQLite
    /// keeps only in the `CREATE TABLE` text.
    static func readConstraintNames(_ text: CreateTableText, into definition: inout TableDefinition) {
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
    static func readUniqueConstraints(_ db: Database, _ table: String) throws -> [[String]] {
        var constraints: [[String]] = []
        for row in try Row.fetchAll(db, sql: "SELECT * FROM pragma_index_list(?)", arguments: [table]) {
            guard (row["origin"] as String) == "u" else { continue }
            constraints.append(
                try String.fetchAll(
                    db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [row["name"] as String]))
        }
        return constraints.sorted { $0.joined(separator: "\u{0}") < $1.joined(separator: "\u{0}") }
    }

    static func readIndexes(_ db: Database, _ table: String) throws -> [IndexDefinition] {
        var indexes: [IndexDefinition] = []
        for row in try Row.fetchAll(db, sql: "SELECT * FROM pragma_index_list(?)", arguments: [table]) {
            let origin: String = row["origin"]
            guard origin == "c" else { continue }  // constraints' automatic indexes are part of the table
            let name: String = row["name"]
            let elements = try Row.fetchAll(
                db, sql: "SELECT * FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", arguments: [name]
            ).map { IndexDefinition.Element(column: ($0["name"] as String?) ?? "", descending: ($0["desc"] as Int) != 0) }
            indexes.append(
                IndexDefinition(name: name, table: table, elements: elements, isUnique: (row["unique"] as Int) != 0))
        }
        return indexes
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
