@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// Decides whether a table can be carried to its new shape with `ALTER TABLE` alone, and how.
///
/// SQLite can rename a table or a column, add a column whose existing rows all take its default, and
/// drop a column that no key, constraint or foreign key uses; a `NOT NULL` constraint is removed by
/// editing the table's stored `CREATE TABLE` text (``schemaEdits(_:)``), SQLite's documented procedure
/// for a change that leaves every stored row valid. Anything else (a type change, a new `NOT NULL`, a
/// converted value, a row filter) needs the rebuild, as do more dropped columns than
/// ``DropColumnCost`` says are cheaper to drop one by one.
package enum InPlaceAlteration {
    package struct NotInPlace: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// The target column fed by a plain copy of `sourceColumn`, if any.
    static func newName(of sourceColumn: String, in t: TableTransformation) -> String? {
        t.target.columns.first { t.columns[$0.name]?.copiedColumn == sourceColumn }?.name
    }

    /// An index of the source table as it reads after altering in place: on the target table, over the
    /// new names of its columns (a column the step drops gets a name no column has).
    static func renamed(_ index: SchemaIndex, in t: TableTransformation) -> SchemaIndex {
        var renamed = index
        renamed.table = t.target.name
        renamed.elements = index.elements.map { element in
            var element = element
            element.column = newName(of: element.column, in: t) ?? "\u{0}dropped"
            return element
        }
        return renamed
    }

    /// `tableName` is where the source table is when the statements run (it may have been set aside).
    /// `schema` is the store's schema the step starts from: it has the table's stored text (for a
    /// `NOT NULL` removed in place), its indexes and how the store frees pages (``DropColumnCost``).
    package static func statements(
        for t: TableTransformation, source: SchemaTable, in schema: StoreSchema, tableRenames: [String: String],
        tableName: String
    ) -> Result<[PlannedStatement], NotInPlace> {
        if !t.filter.isEmpty { return .failure(NotInPlace("rows of other entities leave the table")) }
        // Most tables of a step do not change at all: say so without comparing column by column.
        if t.target.columns == source.columns, t.target.primaryKey == source.primaryKey,
            t.target.uniqueConstraints == source.uniqueConstraints, t.columns.count == source.columns.count,
            source.columns.allSatisfy({ t.columns[$0.name] == .column($0.name) })
        {
            return .success([])
        }
        var copies: [String: String] = [:]  // source column → target column
        var additions: [SchemaColumn] = []
        for column in t.target.columns {
            let expression = t.expression(for: column.name)
            if let from = expression.copiedColumn {
                guard let sourceColumn = source.column(named: from) else {
                    return .failure(NotInPlace("column \(from) is missing"))
                }
                if copies[from] != nil { return .failure(NotInPlace("column \(from) feeds two columns")) }
                guard sameShape(sourceColumn, column, tableRenames: tableRenames) else {
                    return .failure(NotInPlace("column \(column.name) changes type, becomes NOT NULL, or changes default or reference"))
                }
                // Verbatim clauses (`CHECK`, `COLLATE`) cannot change in place; a renamed column's are
                // rewritten by SQLite itself, and the step's schema check compares the result.
                if sourceColumn.verbatimClauses != column.verbatimClauses, from == column.name {
                    return .failure(NotInPlace("the clauses of column \(column.name) change"))
                }
                copies[from] = column.name
            } else if let constant = expression.constant {
                guard constant == (column.defaultValue ?? .null) else {
                    return .failure(NotInPlace("column \(column.name) is filled with a computed value"))
                }
                if column.isPrimaryKey { return .failure(NotInPlace("a new primary key")) }
                if column.notNull && (column.defaultValue ?? .null) == .null {
                    return .failure(NotInPlace("new column \(column.name) is NOT NULL without a default"))
                }
                if column.references != nil && constant != .null {
                    return .failure(NotInPlace("new foreign key \(column.name) with a non-NULL default"))
                }
                additions.append(column)
            } else {
                return .failure(NotInPlace("column \(column.name) is converted or computed"))
            }
        }
        let sourceKey = source.primaryKey.map { copies[$0] ?? "" }
        if sourceKey != t.target.primaryKey { return .failure(NotInPlace("the primary key changes")) }
        // SQLite renames columns inside UNIQUE constraints, but cannot add, drop or change a constraint.
        let sourceUnique = Set(source.uniqueConstraints.map { $0.map { copies[$0] ?? "" } })
        if sourceUnique != Set(t.target.uniqueConstraints) {
            return .failure(NotInPlace("the UNIQUE constraints change"))
        }
        if let reason = constraintChange(source, t.target, copies: copies) { return .failure(NotInPlace(reason)) }
        let drops = source.columns.filter { copies[$0.name] == nil }
        for column in drops {
            if column.isPrimaryKey || source.primaryKey.contains(column.name) {
                return .failure(NotInPlace("primary key column \(column.name) is removed"))
            }
            if column.references != nil {
                return .failure(NotInPlace("foreign key column \(column.name) is removed (SQLite cannot drop it)"))
            }
        }
        // Each DROP COLUMN rewrites every page of the table; one rebuild rewrites it once, but also
        // builds its indexes again and, with `secure_delete` on, zero-fills the old table's pages.
        let cost = DropColumnCost(table: source, in: schema)
        if drops.count > cost.inPlaceLimit {
            return .failure(NotInPlace("\(drops.count) columns are removed: \(cost.reason)"))
        }
        let relaxed = relaxedColumns(t, source: source)
        if !relaxed.isEmpty, schemaEdit(of: source, relaxing: relaxed, in: schema) == nil {
            return .failure(NotInPlace("the NOT NULL of column \(relaxed[0]) cannot be cut from the table's CREATE TABLE text"))
        }

        var statements: [PlannedStatement] = []
        let table = tableName.sqlQuoted
        // Renames go through temporary names when one column takes another's old name.
        let renames = copies.filter { $0.key != $0.value }.sorted { $0.key < $1.key }
        let sourceNames = Set(source.columns.map(\.name.sqliteFolded))  // SQLite ignores ASCII case in names
        let needsTwoPhase = renames.contains { sourceNames.contains($0.value.sqliteFolded) }
        if needsTwoPhase {
            for (index, rename) in renames.enumerated() {
                statements.append(
                    PlannedStatement(
                        sql: "ALTER TABLE \(table) RENAME COLUMN \(rename.key.sqlQuoted) TO \("_instar_col_\(index)".sqlQuoted)",
                        arguments: [], purpose: "RENAME COLUMN"))
            }
        }
        for column in drops {
            statements.append(
                PlannedStatement(
                    sql: "ALTER TABLE \(table) DROP COLUMN \(column.name.sqlQuoted)", arguments: [], purpose: "DROP COLUMN"))
        }
        for (index, rename) in renames.enumerated() {
            let from = needsTwoPhase ? "_instar_col_\(index)" : rename.key
            statements.append(
                PlannedStatement(
                    sql: "ALTER TABLE \(table) RENAME COLUMN \(from.sqlQuoted) TO \(rename.value.sqlQuoted)", arguments: [],
                    purpose: "RENAME COLUMN"))
        }
        for column in additions {
            statements.append(
                PlannedStatement(sql: "ALTER TABLE \(table) ADD COLUMN \(column.sql)", arguments: [], purpose: "ADD COLUMN"))
        }
        return .success(statements)
    }

    /// What an adopted table keeps as text or by name and `ALTER TABLE` cannot change: its `CHECK`
    /// constraints (unless columns are renamed: SQLite rewrites them), and the names the target gives
    /// its `UNIQUE` and primary key constraints.
    static func constraintChange(_ source: SchemaTable, _ target: SchemaTable, copies: [String: String]) -> String? {
        let renamed = copies.contains { $0.key != $0.value }
        if source.verbatimConstraints != target.verbatimConstraints, !renamed { return "the table's CHECK constraints change" }
        let sourceNames = Dictionary(
            source.uniqueConstraintNames.map { ($0.key.map { copies[$0] ?? "" }, $0.value) }, uniquingKeysWith: { a, _ in a })
        for (columns, name) in target.uniqueConstraintNames where sourceNames[columns] != name {
            return "the UNIQUE constraint \(name) is new or renamed"
        }
        if let name = target.primaryKeyName, name != source.primaryKeyName { return "the primary key constraint is renamed" }
        let key = target.columns.first(where: \.isPrimaryKey)
        if let name = key?.primaryKeyName, name != source.columns.first(where: \.isPrimaryKey)?.primaryKeyName {
            return "the primary key constraint is renamed"
        }
        return nil
    }

    /// Constraint names count only where the target gives them (``SchemaComparison``'s rule).
    static func sameShape(_ a: SchemaColumn, _ b: SchemaColumn, tableRenames: [String: String]) -> Bool {
        var reference = SchemaComparison.namesAsExpected(a.references, b.references)
        if let r = reference { reference?.table = tableRenames[r.table] ?? r.table }
        // `NOT NULL` may go (``schemaEdits(_:)``), not come: stored rows may hold NULLs.
        let nullability = a.notNull == b.notNull || (a.notNull && !b.notNull && !a.isPrimaryKey)
        return a.declaredType.uppercased() == b.declaredType.uppercased() && nullability
            && a.isPrimaryKey == b.isPrimaryKey && (a.defaultValue ?? .null) == (b.defaultValue ?? .null)
            && reference == b.references
    }
}
