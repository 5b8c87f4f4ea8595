@_spi(Layouts) import InstarSQL

/// The exact differences between an expected schema and an actual one: what "drift" means.
public struct SchemaDifference: Sendable, Hashable, CustomStringConvertible {
    /// What differs. "Missing" means expected but not in the store; "extra" means in the store only.
    public enum Kind: String, Sendable, Hashable {
        /// An expected table is not in the store.
        case missingTable
        /// The store has a table the version does not.
        case extraTable
        /// An expected column is not in the table.
        case missingColumn
        /// The table has a column the version does not.
        case extraColumn
        /// A column's type, nullability, default or reference differs.
        case columnDiffers
        /// The table's primary key columns differ.
        case primaryKeyDiffers
        /// The table's `UNIQUE` constraints differ.
        case uniqueConstraintsDiffer
        /// The table constraints kept as text (`SchemaTable.verbatimConstraints`) differ.
        case tableConstraintsDiffer
        /// An expected index is not in the store.
        case missingIndex
        /// The store has an index the version does not (tolerated by layouts that allow extra indexes).
        case extraIndex
        /// An index's table, columns, order or uniqueness differ.
        case indexDiffers
        /// An expected view, trigger or raw table or index (``RawSQL``) is not in the store.
        case missingObject
        /// The store has a view or trigger the version does not list (where the layout compares them).
        case extraObject
        /// A view, trigger or raw object is written with other SQL than expected.
        case objectDiffers
    }

    /// What differs.
    public var kind: Kind
    /// The table concerned (for an index, the table it is on).
    public var table: String
    /// The column concerned; for a view, trigger or raw object, its type (`view`, `trigger`, …).
    public var column: String?
    /// The index concerned; for a view, trigger or raw object, its name.
    public var index: String?
    /// What the version expects, as SQL text; nil when not applicable.
    public var expected: String?
    /// What the store has, as SQL text; nil when not applicable.
    public var actual: String?

    package init(
        kind: Kind, table: String, column: String? = nil, index: String? = nil, expected: String? = nil, actual: String? = nil
    ) {
        self.kind = kind
        self.table = table
        self.column = column
        self.index = index
        self.expected = expected
        self.actual = actual
    }

    public var description: String {
        switch kind {
        case .missingTable: "missing table \(table.sqlQuoted)"
        case .extraTable: "extra table \(table.sqlQuoted)"
        case .missingColumn: "missing column \(table.sqlQuoted).\(column!.sqlQuoted) \(expected ?? "")"
        case .extraColumn: "extra column \(table.sqlQuoted).\(column!.sqlQuoted) \(actual ?? "")"
        case .columnDiffers:
            "column \(table.sqlQuoted).\(column!.sqlQuoted) is \(actual ?? "?"), expected \(expected ?? "?")"
        case .primaryKeyDiffers: "primary key of \(table.sqlQuoted) is (\(actual ?? "")), expected (\(expected ?? ""))"
        case .uniqueConstraintsDiffer:
            "UNIQUE constraints of \(table.sqlQuoted) are \(actual ?? "none"), expected \(expected ?? "none")"
        case .tableConstraintsDiffer:
            "table constraints of \(table.sqlQuoted) are \(actual ?? "none"), expected \(expected ?? "none")"
        case .missingIndex: "missing index \(index!.sqlQuoted) on \(table.sqlQuoted)"
        case .extraIndex: "extra index \(index!.sqlQuoted) on \(table.sqlQuoted)"
        case .indexDiffers: "index \(index!.sqlQuoted) is \(actual ?? ""), expected \(expected ?? "")"
        case .missingObject: "missing \(column ?? "object") \(index ?? table)"
        case .extraObject: "extra \(column ?? "object") \(index ?? table)"
        case .objectDiffers: "\(column ?? "object") \(index ?? table) is written `\(actual ?? "")`, expected `\(expected ?? "")`"
        }
    }
}

/// Compares two schemas exactly: how Instar tells whether a store is at a version and whether a step
/// produced the schema it should.
package enum SchemaComparison {
    /// Differences from `expected` to `actual`. Column order is ignored (SQLite appends added columns),
    /// declared types compare case-insensitively. Raw objects (``RawSQL``) compare by their exact SQL;
    /// with `includingViewsAndTriggers`, a view or trigger `expected` does not list is drift. With `ignoringExtraIndexes`, indexes the store has
    /// beyond the expected ones are tolerated (Core Data leaves stale indexes behind), and an expected
    /// index the store holds under another name (same table, columns, order, uniqueness) is there: the
    /// layouts that tolerate indexes they did not name cannot rely on names either.
    package static func differences(
        expected: StoreSchema, actual: StoreSchema, ignoringExtraIndexes: Bool = false,
        includingViewsAndTriggers: Bool = true
    ) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        let actualTables = Dictionary(actual.tables.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let expectedNames = Set(expected.tables.map(\.name))
        // Tables whose two-column key the store holds the other way round (tolerant layouts only).
        var swappedKeys: [String: [String: String]] = [:]
        for table in expected.tables {
            guard let found = actualTables[table.name] else {
                result.append(SchemaDifference(kind: .missingTable, table: table.name))
                continue
            }
            var expectedTable = table
            if ignoringExtraIndexes, let swap = swappedKey(table, found) {
                swappedKeys[table.name] = swap
                expectedTable.primaryKey = found.primaryKey
            }
            result += columnDifferences(expectedTable, found)
        }
        let rawNames = RawNames(expected.raw)
        for table in actual.tables where !expectedNames.contains(table.name) && !rawNames.coversTable(table.name) {
            result.append(SchemaDifference(kind: .extraTable, table: table.name))
        }
        result += rawDifferences(expected: expected.raw, actual: actual, strict: includingViewsAndTriggers)
        let actualIndexes = Dictionary(actual.indexes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var sameShape = ignoringExtraIndexes ? IndexShapes(expected: expected.indexes, actual: actual.indexes) : nil
        for index in expected.indexes {
            // On a table whose key is held the other way round, the index may be too.
            let variants = [index] + (swappedKeys[index.table].map { [swapping(index, $0)] } ?? [])
            guard let found = actualIndexes[index.name] else {
                // Stores whose indexes Instar does not name alone (Core Data) may hold this index under
                // another name: an index's name carries no data.
                if variants.contains(where: { sameShape?.take(like: $0) == true }) { continue }
                result.append(SchemaDifference(kind: .missingIndex, table: index.table, index: index.name))
                continue
            }
            if !variants.contains(where: { IndexShapes.sameShape(found, $0) }) {
                result.append(
                    SchemaDifference(
                        kind: .indexDiffers, table: index.table, index: index.name, expected: render(index),
                        actual: render(found)))
            }
        }
        if !ignoringExtraIndexes {
            let expectedIndexes = Set(expected.indexes.map(\.name))
            for index in actual.indexes
            where !expectedIndexes.contains(index.name) && expectedNames.contains(index.table) && !rawNames.indexes.contains(index.name) {
                result.append(SchemaDifference(kind: .extraIndex, table: index.table, index: index.name))
            }
        }
        return result
    }

    /// When `actual` holds `expected`'s two-column primary key in the other order, the swap of the
    /// two columns. The order of a join table's two keys carries no data, and Core Data's own
    /// migrations leave it as it was when they rename a join table between two relationships of one
    /// entity to the other relationship's name (a real store's `"Z_24TRUSTEDBYCLIENTS"`, quoted as
    /// only `ALTER TABLE … RENAME` writes it; `docs/coredata-layout.md`, "Join tables").
    static func swappedKey(_ expected: SchemaTable, _ actual: SchemaTable) -> [String: String]? {
        let key = expected.primaryKey
        guard key.count == 2, key[0] != key[1], actual.primaryKey == [key[1], key[0]] else { return nil }
        return [key[0]: key[1], key[1]: key[0]]
    }

    /// `index` with its columns renamed through `swap`.
    static func swapping(_ index: SchemaIndex, _ swap: [String: String]) -> SchemaIndex {
        var copy = index
        copy.elements = index.elements.map { element in
            var element = element
            element.column = swap[element.column] ?? element.column
            return element
        }
        return copy
    }

    /// Indexes of a store matched by what they index (table, columns in order with their direction,
    /// uniqueness) rather than by name, one store index per expected index. Core Data has named the
    /// same index differently across framework versions (`docs/coredata-layout.md`, "Index names"), and
    /// keeps two indexes of the same shape when a model asks for both, so an index already matched by
    /// its name is never taken again.
    struct IndexShapes {
        private var free: [SchemaIndex]

        init(expected: [SchemaIndex], actual: [SchemaIndex]) {
            let named = Set(expected.map(\.name))
            free = actual.filter { !named.contains($0.name) }
        }

        /// Takes a store index of the same shape as `index`; false when there is none left.
        mutating func take(like index: SchemaIndex) -> Bool {
            guard let position = free.firstIndex(where: { Self.sameShape($0, index) }) else { return false }
            free.remove(at: position)
            return true
        }

        static func sameShape(_ a: SchemaIndex, _ b: SchemaIndex) -> Bool {
            a.table == b.table && a.elements == b.elements && a.isUnique == b.isUnique
        }
    }

    static func columnDifferences(_ expected: SchemaTable, _ actual: SchemaTable) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        for column in expected.columns {
            guard let found = actual.column(named: column.name) else {
                result.append(
                    SchemaDifference(kind: .missingColumn, table: expected.name, column: column.name, expected: render(column)))
                continue
            }
            if !same(column, found) {
                result.append(
                    SchemaDifference(
                        kind: .columnDiffers, table: expected.name, column: column.name, expected: render(column),
                        actual: render(found)))
            }
        }
        let expectedColumns = Set(expected.columns.map(\.name))
        for column in actual.columns where !expectedColumns.contains(column.name) {
            result.append(SchemaDifference(kind: .extraColumn, table: expected.name, column: column.name, actual: render(column)))
        }
        if expected.primaryKey != actual.primaryKey
            || (expected.primaryKeyName != nil && expected.primaryKeyName != actual.primaryKeyName)
        {
            result.append(
                SchemaDifference(
                    kind: .primaryKeyDiffers, table: expected.name, expected: expected.primaryKey.joined(separator: ", "),
                    actual: actual.primaryKey.joined(separator: ", ")))
        }
        if expected.verbatimConstraints != actual.verbatimConstraints {
            result.append(
                SchemaDifference(
                    kind: .tableConstraintsDiffer, table: expected.name,
                    expected: expected.verbatimConstraints.isEmpty ? nil : expected.verbatimConstraints.joined(separator: ", "),
                    actual: actual.verbatimConstraints.isEmpty ? nil : actual.verbatimConstraints.joined(separator: ", ")))
        }
        for (columns, name) in expected.uniqueConstraintNames.sorted(by: { $0.value < $1.value })
        where actual.uniqueConstraintNames[columns] != name {
            result.append(
                SchemaDifference(
                    kind: .uniqueConstraintsDiffer, table: expected.name,
                    expected: "CONSTRAINT \(name) UNIQUE (\(columns.joined(separator: ", ")))",
                    actual: actual.uniqueConstraintNames[columns].map { "CONSTRAINT \($0)" } ?? "no such name"))
        }
        let expectedUnique = Set(expected.uniqueConstraints)
        let actualUnique = Set(actual.uniqueConstraints)
        if expectedUnique != actualUnique {
            func render(_ constraints: Set<[String]>) -> String? {
                constraints.isEmpty ? nil : constraints.map { "(" + $0.joined(separator: ", ") + ")" }.sorted().joined(separator: " ")
            }
            result.append(
                SchemaDifference(
                    kind: .uniqueConstraintsDiffer, table: expected.name, expected: render(expectedUnique),
                    actual: render(actualUnique)))
        }
        return result
    }

    /// `a` is the expected column, `b` the actual one. Columns compare as SQLite treats them: a default is compared after the column's affinity is
    /// applied to it (`DEFAULT 0` and `DEFAULT 0.0` store the same value in a REAL column), and `NOT
    /// NULL` on an `INTEGER PRIMARY KEY` is ignored (a row id is never NULL either way).
    static func same(_ a: SchemaColumn, _ b: SchemaColumn) -> Bool {
        let rowID = a.isPrimaryKey && b.isPrimaryKey && a.declaredType.uppercased() == "INTEGER"
        return a.declaredType.uppercased() == b.declaredType.uppercased() && (rowID || a.notNull == b.notNull)
            && a.isPrimaryKey == b.isPrimaryKey && a.autoincrement == b.autoincrement
            && ColumnAffinity(declaredType: a.declaredType).apply(a.defaultValue ?? .null)
                == ColumnAffinity(declaredType: b.declaredType).apply(b.defaultValue ?? .null)
            && a.references == namesAsExpected(b.references, a.references) && a.verbatimClauses == b.verbatimClauses
            && (a.primaryKeyName == nil || a.primaryKeyName == b.primaryKeyName)
    }

    /// Constraint names count only where the expected schema gives one: a model imported before
    /// names were kept still matches its store.
    package static func namesAsExpected(_ actual: ForeignKeyReference?, _ expected: ForeignKeyReference?) -> ForeignKeyReference? {
        guard var actual, expected?.constraintName == nil else { return actual }
        actual.constraintName = nil
        return actual
    }

    static func render(_ column: SchemaColumn) -> String {
        var text = column.declaredType
        if column.isPrimaryKey { text += " PRIMARY KEY" + (column.autoincrement ? " AUTOINCREMENT" : "") }
        if column.notNull { text += " NOT NULL" }
        if let value = column.defaultValue, value != .null { text += " DEFAULT \(value.literal)" }
        if let clauses = column.verbatimClauses { text += " " + clauses }
        if let r = column.references {
            text += (r.constraintName.map { " CONSTRAINT \($0)" } ?? "") + " REFERENCES \(r.table)(\(r.column))"
        }
        return text
    }

    static func render(_ index: SchemaIndex) -> String {
        (index.isUnique ? "UNIQUE " : "") + "(" + index.elements.map { $0.column + ($0.descending ? " DESC" : "") }
            .joined(separator: ", ") + ") ON \(index.table)"
    }
}
