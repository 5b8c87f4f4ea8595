@_spi(Layouts) import InstarModel

/// Names of the tables and indexes of one schema, compared as SQLite compares identifiers (ASCII
/// letters without case): every layout builder claims its names here, so `Item` and `ITEM`, or an
/// index named like a table, can never clash.
struct SchemaNames {
    private var tables = Set<String>()
    private var indexes = Set<String>()

    func hasTable(_ name: String) -> Bool { tables.contains(name.sqliteFolded) }

    /// A table or an index has this name.
    func isTaken(_ name: String) -> Bool { tables.contains(name.sqliteFolded) || indexes.contains(name.sqliteFolded) }

    /// A table name not taken yet, starting from `base` (`base_2`, `base_3`, …). Names in SQLite's and
    /// Instar's own namespaces (`sqlite_…`, `_instar_…`) are moved aside first: suffixes alone would
    /// never leave the prefix.
    mutating func claimTable(_ base: String) -> String {
        var base = base
        if base.hasPrefix("_instar_") || base.sqliteFolded.hasPrefix("sqlite_") { base = "_" + base }
        var name = base
        var suffix = 1
        while tables.contains(name.sqliteFolded) || indexes.contains(name.sqliteFolded) {
            suffix += 1
            name = "\(base)_\(suffix)"
        }
        tables.insert(name.sqliteFolded)
        return name
    }

    /// An index name not taken by an index or a table yet, starting from `base`.
    mutating func claimIndex(_ base: String) -> String {
        var name = base
        var suffix = 1
        while indexes.contains(name.sqliteFolded) || tables.contains(name.sqliteFolded) {
            suffix += 1
            name = "\(base)_\(suffix)"
        }
        indexes.insert(name.sqliteFolded)
        return name
    }
}

/// Column names within one table: the first claim gets the plain name, a clash gets `Owner_name`.
struct ColumnRegistry {
    private var taken: Set<String>

    init(reserved: Set<String>) {
        taken = Set(reserved.map(\.sqliteFolded))
    }

    func isTaken(_ name: String) -> Bool { taken.contains(name.sqliteFolded) }

    mutating func claim(_ name: String, owner: String) -> String {
        var candidate = name
        var folded = candidate.sqliteFolded
        if taken.contains(folded) {
            candidate = "\(owner)_\(name)"
            folded = candidate.sqliteFolded
        }
        var suffix = 1
        let base = candidate
        while taken.contains(folded) {
            suffix += 1
            candidate = "\(base)_\(suffix)"
            folded = candidate.sqliteFolded
        }
        taken.insert(folded)
        return candidate
    }
}

extension String {
    /// The name as SQLite compares identifiers: ASCII letters without case, every other character exactly.
    package var sqliteFolded: String {
        // Bytes 65…90 are only ever ASCII capitals in UTF-8 (every byte of a longer sequence is ≥ 128).
        guard utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return self }
        return String(decoding: utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
