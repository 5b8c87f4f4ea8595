@_spi(Layouts) import InstarLayouts

extension StepProgram {
    /// Foreign-key columns whose every value is, by how the step fills them, the key of a row that is
    /// still there after the step: target table → columns. Checking those links cannot find anything.
    ///
    /// A join table made from a foreign key (a to-one becoming a many-to-many) takes one side of each
    /// link from the key of the table it reads: `author_book.book_id` is `book.id`. When the step also
    /// carries that table over whole (it continues it, keeps every row, and copies the key unchanged
    /// into the column the link points at), each such value names a row of the new table; at a million
    /// links looking them all up costs about 0.4 s of a 6 s migration. The other side of the link (the
    /// old foreign key's values) can point at nothing in a store that never enforced its references,
    /// and is not listed here, so it stays checked. Only a plain copy of the source's single-column
    /// primary key counts, into a column of the same declared type as the key and the column the
    /// link points at (so SQLite's type conversions cannot make the stored values differ). A filtered
    /// table (rows leave it, and links to them are deleted afterwards), a key taken from another
    /// table, or a computed value is never listed.
    ///
    /// `source` is the schema the step runs on, as read from the store.
    package func linksToKeptKeys(source: StoreSchema) -> [String: Set<String>] {
        var proven: [String: Set<String>] = [:]
        for t in transformations {
            guard let from = t.source, let sourceTable = source.table(named: from), let key = Self.singleKey(of: sourceTable)
            else { continue }
            for column in t.target.columns {
                guard let reference = column.references, t.columns[column.name] == .column(key.name),
                    carriesWhole(from, key: key, into: reference), sameType(column, key)
                else { continue }
                proven[t.target.name, default: []].insert(column.name)
            }
        }
        return proven
    }

    /// Whether the table `reference` points at is `source` carried over with every row, its column
    /// `reference.column` a plain copy of the source's key.
    private func carriesWhole(_ source: String, key: SchemaColumn, into reference: ForeignKeyReference) -> Bool {
        let carriers = transformations.filter { $0.target.name == reference.table }
        guard carriers.count == 1, let carrier = carriers.first, carrier.source == source, carrier.continuesSource,
            carrier.filter.isEmpty, carrier.columns[reference.column] == .column(key.name),
            let target = carrier.target.column(named: reference.column)
        else { return false }
        return sameType(target, key) && !losesRows(carrier.target)
    }

    /// Whether the step deletes rows of `table` after filling it: a row whose required link leads to a
    /// row that left a filtered table goes with it (StepSQL's unlinking, as Core Data's delete does).
    private func losesRows(_ table: SchemaTable) -> Bool {
        let filtered = Set(transformations.filter { !$0.filter.isEmpty }.map(\.target.name))
        return table.columns.contains { column in
            guard let reference = column.references, filtered.contains(reference.table) else { return false }
            return column.notNull || table.primaryKey.contains(column.name) || column.isPrimaryKey
        }
    }

    private func sameType(_ a: SchemaColumn, _ b: SchemaColumn) -> Bool {
        a.declaredType.uppercased() == b.declaredType.uppercased()
    }

    /// The table's primary key when it is one column (a composite key's columns are not unique alone).
    private static func singleKey(of table: SchemaTable) -> SchemaColumn? {
        guard table.primaryKey.count <= 1 else { return nil }
        let marked = table.columns.filter(\.isPrimaryKey)
        if table.primaryKey.isEmpty { return marked.count == 1 ? marked[0] : nil }
        return marked.isEmpty ? table.column(named: table.primaryKey[0]) : nil
    }
}
