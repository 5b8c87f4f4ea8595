import Foundation
import GRDB
import GRDBSQLite
import InstarSQL

/// Inserts rows into one table through prepared multi-row `INSERT` statements, binding values with
/// SQLite's C API.
///
/// Millions of rows go through here, so per-row costs matter: one statement inserts up to `batchSize`
/// rows (within SQLite's limit on bound variables), it is prepared once and reused, and values are bound
/// directly (GRDB's `StatementArguments` would allocate per value). Memory stays at one batch.
final class SeedInserter {
    let table: String
    let columns: [String]
    let batchSize: Int
    private let db: Database
    private let batchStatement: Statement
    private var buffer: [SQLValue] = []
    private(set) var written = 0

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ db: Database, table: String, columns: [String]) throws {
        self.db = db
        self.table = table
        self.columns = columns
        let limit = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        batchSize = max(1, min(256, limit / max(columns.count, 1)))
        batchStatement = try db.makeStatement(sql: Self.sql(table: table, columns: columns, rows: batchSize))
        buffer.reserveCapacity(batchSize * columns.count)
    }

    static func sql(table: String, columns: [String], rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        return "INSERT INTO \(SQLIdentifier.quoted(table)) (\(SQLIdentifier.list(columns))) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// Adds one row's values (in `columns` order); writes a batch when one is full.
    @inline(__always)
    func append(_ value: SQLValue) throws {
        buffer.append(value)
        if buffer.count == batchSize * columns.count { try flush() }
    }

    /// Writes the rows still buffered.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        let rows = buffer.count / columns.count
        if rows == batchSize {
            try execute(batchStatement)
        } else {
            try execute(try db.makeStatement(sql: Self.sql(table: table, columns: columns, rows: rows)))
        }
        written += rows
        buffer.removeAll(keepingCapacity: true)
    }

    private func execute(_ statement: Statement) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        for (offset, value) in buffer.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let v): code = sqlite3_bind_int64(handle, index, v)
            case .real(let v): code = sqlite3_bind_double(handle, index, v)
            case .text(let v):
                // With the byte count, so that text is bound whole whatever it contains.
                let length = Int32(v.utf8.count)
                code = v.withCString { sqlite3_bind_text(handle, index, $0, length, Self.transient) }
            case .blob(let v):
                // An empty blob is a zero-length blob, not NULL (a nil base address would bind NULL).
                code =
                    v.isEmpty
                    ? sqlite3_bind_zeroblob(handle, index, 0)
                    : v.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), Self.transient) }
            }
            guard code == SQLITE_OK else { throw error(code, statement) }
        }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let failure = error(code, statement)
            sqlite3_reset(handle)
            throw failure
        }
        sqlite3_reset(handle)
    }

    private func error(_ code: Int32, _ statement: Statement) -> DatabaseError {
        let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
        return DatabaseError(
            resultCode: ResultCode(rawValue: code), message: message,
            sql: "INSERT INTO \(SQLIdentifier.quoted(table)) (\(SQLIdentifier.list(columns))) VALUES …")
    }
}
