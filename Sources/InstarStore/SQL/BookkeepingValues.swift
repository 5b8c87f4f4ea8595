import GRDB

extension DatabaseValue {
    /// What SQLite holds, in words ("an integer", "a blob"), for errors about values of the wrong type
    /// in a store: GRDB's typed subscripts trap on them, so readers of bookkeeping tables convert with
    /// `fromDatabaseValue` and say what they found instead.
    package var kindName: String {
        switch storage {
        case .null: "NULL"
        case .int64: "an integer"
        case .double: "a real number"
        case .string: "text"
        case .blob: "a blob"
        }
    }
}

/// A bookkeeping table of a store (Instar's metadata, Core Data's `Z_METADATA`) holds a value of a type
/// its writer never uses: the store was damaged or written by something else. Reading stops with this
/// error, which names the table, the column or key and what was found; nothing is changed.
struct BookkeepingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
