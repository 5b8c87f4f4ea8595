@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

/// The SQLite schema that a layout wants for one model version, or that a store actually has.
///
/// Both sides use the same types so that "does this store have the schema of version V?" is a plain
/// comparison (``SchemaComparison``), whatever layout produced the expectation.
@_spi(Layouts) public struct StoreSchema: Sendable, Hashable {
    /// The tables, bookkeeping tables excluded when read from a store.
    @_spi(Layouts) public var tables: [SchemaTable]
    /// The explicit indexes (not SQLite's automatic ones for `UNIQUE` and primary keys).
    @_spi(Layouts) public var indexes: [SchemaIndex]
    /// Objects kept as their SQL text. Expected: the model's ``RawSQL`` objects, compared by text. Read
    /// from a store: its views and triggers.
    @_spi(Layouts) public var raw: [RawSQL]
    /// Read from a store: the `sqlite_master.sql` of every table, index, view and trigger, by
    /// `"<kind> <name>"`, so that an expected raw object can be compared whatever it is.
    @_spi(Layouts) public var sqlText: [String: String] = [:]
    /// Read from a store: whether its connection zero-fills the pages it frees (`secure_delete` on), which
    /// makes dropping a table cost a write of every page. Whether a table's columns are dropped in place
    /// or the table is rebuilt weighs it (``DropColumnCost``); a schema not read from a store assumes it,
    /// as SQLite builds with `SECURE_DELETE` (Debian's, for one) do.
    package var freedPagesZeroed = true

    /// A schema of these tables, indexes and raw objects.
    @_spi(Layouts) public init(tables: [SchemaTable] = [], indexes: [SchemaIndex] = [], raw: [RawSQL] = []) {
        self.tables = tables
        self.indexes = indexes
        self.raw = raw
    }

    /// The table with this exact name, or nil.
    @_spi(Layouts) public func table(named name: String) -> SchemaTable? {
        tables.first { $0.name == name }
    }

    /// The indexes on the table named `table`, in schema order.
    @_spi(Layouts) public func indexes(on table: String) -> [SchemaIndex] {
        indexes.filter { $0.table == table }
    }
}

/// SQLite's storage classes, as Instar declares column types.
@_spi(Layouts) public enum ColumnType: String, Sendable, Hashable {
    /// Whole numbers (Instar stores booleans as 0 and 1).
    case integer = "INTEGER"
    /// Floating-point numbers.
    case real = "REAL"
    /// Strings.
    case text = "TEXT"
    /// Bytes, stored as given.
    case blob = "BLOB"
    /// Numbers SQLite stores as integer or real as each value allows (Instar uses it for decimals).
    case numeric = "NUMERIC"
}

/// What a foreign-key column refers to.
@_spi(Layouts) public struct ForeignKeyReference: Sendable, Hashable {
    /// The referenced table.
    @_spi(Layouts) public var table: String
    /// The referenced column (the table's primary key).
    @_spi(Layouts) public var column: String
    /// `ON DELETE` action, e.g. `CASCADE` for join-table rows; nil for SQLite's default (NO ACTION).
    @_spi(Layouts) public var onDelete: String?
    /// The constraint's name (`CONSTRAINT fk_x REFERENCES …`), kept for adopted databases; nil for none.
    @_spi(Layouts) public var constraintName: String?

    /// A reference to `table`.`column`, with an optional `ON DELETE` action and constraint name.
    @_spi(Layouts) public init(table: String, column: String, onDelete: String? = nil, constraintName: String? = nil) {
        self.table = table
        self.column = column
        self.onDelete = onDelete
        self.constraintName = constraintName
    }
}

/// One column of a table, as `CREATE TABLE` declares it.
@_spi(Layouts) public struct SchemaColumn: Sendable, Hashable {
    /// The column's name.
    @_spi(Layouts) public var name: String
    /// The declared type as written in `CREATE TABLE` (layouts may use names such as `VARCHAR`).
    @_spi(Layouts) public var declaredType: String
    /// Declared `NOT NULL`.
    @_spi(Layouts) public var notNull: Bool
    /// The `DEFAULT` value; nil (or `.null`) for none.
    @_spi(Layouts) public var defaultValue: SQLValue?
    /// Declared `PRIMARY KEY` on the column itself (a single-column key).
    @_spi(Layouts) public var isPrimaryKey: Bool
    /// An integer primary key declared `AUTOINCREMENT` (SQLite then never reuses a row id).
    @_spi(Layouts) public var autoincrement = false
    /// The `REFERENCES` clause, for a foreign-key column; nil otherwise.
    @_spi(Layouts) public var references: ForeignKeyReference?
    /// Written as a column constraint `UNIQUE` (the plain SQL layout). Only how the table is written:
    /// the constraint itself is listed in the table's ``SchemaTable/uniqueConstraints``, which is
    /// how ``SchemaReader`` reads both spellings back, so comparisons never look at this flag.
    @_spi(Layouts) public var isUnique: Bool
    /// Column clauses kept exactly as an adopted database writes them (`CHECK (x > 0)`, `COLLATE
    /// NOCASE`), joined by a space: SQLite's pragmas do not report them, so they are written and
    /// compared as text (``CreateTableText``). Nil for none.
    @_spi(Layouts) public var verbatimClauses: String?
    /// The name of this column's `PRIMARY KEY` constraint, kept for adopted databases; nil for none.
    @_spi(Layouts) public var primaryKeyName: String?

    /// A column; set ``autoincrement`` afterwards when needed.
    @_spi(Layouts) public init(
        name: String, declaredType: String, notNull: Bool = false, defaultValue: SQLValue? = nil,
        isPrimaryKey: Bool = false, references: ForeignKeyReference? = nil, isUnique: Bool = false
    ) {
        self.name = name
        self.declaredType = declaredType
        self.notNull = notNull
        self.defaultValue = defaultValue
        self.isPrimaryKey = isPrimaryKey
        self.references = references
        self.isUnique = isUnique
    }

    /// The column clause of `CREATE TABLE` / `ADD COLUMN`.
    @_spi(Layouts) public var sql: String {
        var text = "\(name.sqlQuoted) \(declaredType)"
        if isPrimaryKey {
            if let primaryKeyName { text += " CONSTRAINT \(primaryKeyName.sqlQuoted)" }
            text += " PRIMARY KEY" + (autoincrement ? " AUTOINCREMENT" : "")
        }
        if notNull && !isPrimaryKey { text += " NOT NULL" }
        if isUnique && !isPrimaryKey { text += " UNIQUE" }
        if let defaultValue, defaultValue != .null { text += " DEFAULT \(defaultValue.literal)" }
        if let verbatimClauses { text += " " + verbatimClauses }
        if let references {
            if let name = references.constraintName { text += " CONSTRAINT \(name.sqlQuoted)" }
            text += " REFERENCES \(references.table.sqlQuoted)(\(references.column.sqlQuoted))"
            if let action = references.onDelete { text += " ON DELETE \(action)" }
        }
        return text
    }
}

/// One table: its columns and table constraints.
@_spi(Layouts) public struct SchemaTable: Sendable, Hashable {
    /// The table's name.
    @_spi(Layouts) public var name: String
    /// The columns, in declaration order (comparisons ignore the order).
    @_spi(Layouts) public var columns: [SchemaColumn]
    /// A composite primary key (join tables); single-column keys are marked on the column.
    @_spi(Layouts) public var primaryKey: [String]
    /// `UNIQUE` table constraints, each a list of columns (Core Data's older stores declare uniqueness
    /// constraints this way; newer ones and the Instar layout use unique indexes).
    @_spi(Layouts) public var uniqueConstraints: [[String]]
    /// Table constraints kept exactly as an adopted database writes them (`CHECK (start < end)`,
    /// `CONSTRAINT positive CHECK (…)`), in order, written after the others and compared as text.
    @_spi(Layouts) public var verbatimConstraints: [String] = []
    /// Names of `UNIQUE` constraints (their columns → name) an adopted database gives them; a
    /// constraint not listed is written under the layout's name. Compared only for the names listed.
    @_spi(Layouts) public var uniqueConstraintNames: [[String]: String] = [:]
    /// The name of a composite primary key's constraint (a link table's), nil for none.
    @_spi(Layouts) public var primaryKeyName: String?

    /// A table of these columns and constraints.
    @_spi(Layouts) public init(name: String, columns: [SchemaColumn], primaryKey: [String] = [], uniqueConstraints: [[String]] = []) {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.uniqueConstraints = uniqueConstraints
    }

    /// The column with this exact name, or nil.
    @_spi(Layouts) public func column(named name: String) -> SchemaColumn? {
        columns.first { $0.name == name }
    }

    /// `CREATE TABLE` for this definition, under `name` or another name (rebuilds use a temporary one).
    @_spi(Layouts) public func createSQL(named tableName: String? = nil) -> String {
        var parts = columns.map(\.sql)
        if !primaryKey.isEmpty {
            parts.append((primaryKeyName.map { "CONSTRAINT \($0.sqlQuoted) " } ?? "") + "PRIMARY KEY (\(SQLIdentifier.list(primaryKey)))")
        }
        for columns in uniqueConstraints {
            // A single column marked `isUnique` already says `UNIQUE` in its own clause.
            let name = uniqueConstraintNames[columns]
            if name == nil, columns.count == 1, column(named: columns[0])?.isUnique == true { continue }
            parts.append("CONSTRAINT \((name ?? columns.joined(separator: "_")).sqlQuoted) UNIQUE (\(SQLIdentifier.list(columns)))")
        }
        parts += verbatimConstraints
        return "CREATE TABLE \((tableName ?? name).sqlQuoted) (\(parts.joined(separator: ", ")))"
    }
}

/// One explicit index (`CREATE [UNIQUE] INDEX`).
@_spi(Layouts) public struct SchemaIndex: Sendable, Hashable {
    /// One indexed column and its sort order.
    @_spi(Layouts) public struct Element: Sendable, Hashable {
        /// The indexed column.
        @_spi(Layouts) public var column: String
        /// Sorted `DESC` rather than ascending.
        @_spi(Layouts) public var descending: Bool
        /// An indexed column, ascending unless `descending`.
        @_spi(Layouts) public init(column: String, descending: Bool = false) {
            self.column = column
            self.descending = descending
        }
    }

    /// The index's name.
    @_spi(Layouts) public var name: String
    /// The table it indexes.
    @_spi(Layouts) public var table: String
    /// The indexed columns, in key order.
    @_spi(Layouts) public var elements: [Element]
    /// A `UNIQUE` index: it enforces uniqueness of its columns together.
    @_spi(Layouts) public var isUnique: Bool

    /// An index on these columns, each with its sort order.
    @_spi(Layouts) public init(name: String, table: String, elements: [Element], isUnique: Bool = false) {
        self.name = name
        self.table = table
        self.elements = elements
        self.isUnique = isUnique
    }

    /// An index on these columns, all ascending.
    @_spi(Layouts) public init(name: String, table: String, columns: [String], isUnique: Bool = false) {
        self.init(name: name, table: table, elements: columns.map { Element(column: $0) }, isUnique: isUnique)
    }

    /// The index's `CREATE INDEX` statement.
    @_spi(Layouts) public var createSQL: String {
        let columns = elements.map { $0.column.sqlQuoted + ($0.descending ? " DESC" : "") }.joined(separator: ", ")
        return "CREATE \(isUnique ? "UNIQUE " : "")INDEX \(name.sqlQuoted) ON \(table.sqlQuoted) (\(columns))"
    }
}
