import GRDB
@_spi(Layouts) import InstarModel

extension DatabaseValue {
    /// The storage class SQLite holds, as a value for errors.
    package var storedType: BookkeepingError.StoredType {
        switch storage {
        case .null: .null
        case .int64: .integer
        case .double: .real
        case .string: .text
        case .blob: .blob
        }
    }
}

/// A bookkeeping table of a store (Instar's metadata, Core Data's `Z_METADATA`) holds a value its writer
/// never writes: the store was damaged or written by something else. Reading stops with this error,
/// which names the layout, the table, the column or key and what was found; nothing is changed. An app
/// meets it as the `underlying` of a `StoreError` of kind `layout`.
package struct BookkeepingError: InstarError, Hashable {
    /// SQLite's storage classes, as found in a bookkeeping table.
    package enum StoredType: String, Sendable, Hashable {
        /// NULL.
        case null
        /// An integer.
        case integer
        /// A real number.
        case real
        /// Text.
        case text
        /// A blob.
        case blob

        /// "an integer", "a blob", … for messages.
        var phrase: String {
            switch self {
            case .null: "NULL"
            case .integer: "an integer"
            case .real: "a real number"
            case .text: "text"
            case .blob: "a blob"
            }
        }
    }

    /// What the table holds that its writer never writes.
    package enum Problem: Sendable, Hashable {
        /// A key of a key–value table is not text.
        case keyNotText(found: StoredType)
        /// The value under `key` is neither text nor NULL.
        case valueNotText(key: String, found: StoredType)
        /// A column holds a value of a type the layout never writes there.
        case unexpectedType(column: String, found: StoredType)
        /// A column's property list cannot be read; `detail` is the property-list reader's account.
        case unreadablePropertyList(column: String, detail: String)
        /// A column's property list is not a dictionary.
        case propertyListNotADictionary(column: String)
    }

    /// The layout whose bookkeeping it is (`instar`, `coredata`).
    package var layout: String
    /// The bookkeeping table.
    package var table: String
    /// What it holds that its writer never writes.
    package var problem: Problem

    /// Makes the error for `table` of `layout`.
    package init(layout: String, table: String, _ problem: Problem) {
        self.layout = layout
        self.table = table
        self.problem = problem
    }

    package var description: String {
        switch problem {
        case .keyNotText(let found):
            "\(table) has a key that is \(found.phrase), not text (the store's \(layout) metadata is damaged)"
        case .valueNotText(let key, let found):
            "\(table) key '\(key)' holds \(found.phrase), not text (the store's \(layout) metadata is damaged)"
        case .unexpectedType(let column, let found):
            "\(table).\(column) holds \(found.phrase), which the \(layout) layout never writes there"
        case .unreadablePropertyList(let column, let detail): "\(table).\(column) is \(detail)"
        case .propertyListNotADictionary(let column): "\(table).\(column) is not a dictionary"
        }
    }
}
