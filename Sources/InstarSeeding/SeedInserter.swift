import Foundation
import GRDB
import GRDBSQLite
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// Inserts rows into one table through one prepared single-row `INSERT`, binding each value with
/// SQLite's C API the moment it is produced.
///
/// Millions of rows go through here, so per-row costs matter. The statement is prepared once and
/// reused (reset, bind, step), as SQLite's own bulk-insert loops do; nothing is buffered, so no array of
/// values is built per row or per batch, and memory stays at one row. Text and blobs are bound with
/// `SQLITE_TRANSIENT` (SQLite copies them), so callers may hand over scratch bytes they reuse at once
/// (``appendText(_:)``, ``appendBlob(_:)``), and the hot paths never build a `String` or `Data`.
final class SeedInserter {
    let table: String
    let columns: [String]
    private let db: Database
    private let statement: Statement
    private let handle: OpaquePointer
    private let width: Int32
    /// The parameter the next value binds (1-based, as SQLite counts).
    private var next: Int32 = 1
    private(set) var written = 0
    /// Reusable bytes for values that are assembled before binding (text, blobs); see ``scratch(_:)``.
    private var bytes: [UInt8] = []

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ db: Database, table: String, columns: [String]) throws {
        self.db = db
        self.table = table
        self.columns = columns
        statement = try db.makeStatement(sql: Self.sql(table: table, columns: columns))
        handle = statement.sqliteStatement
        width = Int32(columns.count)
        bytes.reserveCapacity(256)
    }

    static func sql(table: String, columns: [String]) -> String {
        "INSERT INTO \(SQLIdentifier.quoted(table)) (\(SQLIdentifier.list(columns))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
    }

    /// Adds the next value of the current row (values come in `columns` order); a row is written when
    /// its last value arrives.
    @inline(__always)
    func append(_ value: SQLValue) throws {
        switch value {
        case .null: try appendNull()
        case .integer(let v): try appendInteger(v)
        case .real(let v): try appendReal(v)
        case .text(let v):
            var v = v
            try v.withUTF8 { try appendText(UnsafeRawBufferPointer($0)) }
        case .blob(let v):
            // An empty blob is a zero-length blob, not NULL (a nil base address would bind NULL).
            if v.isEmpty {
                try bound(sqlite3_bind_zeroblob(handle, next, 0))
            } else {
                try v.withUnsafeBytes { try appendBlob($0) }
            }
        }
    }

    @inline(__always)
    func appendNull() throws { try bound(sqlite3_bind_null(handle, next)) }

    @inline(__always)
    func appendInteger(_ value: Int64) throws { try bound(sqlite3_bind_int64(handle, next, value)) }

    @inline(__always)
    func appendReal(_ value: Double) throws { try bound(sqlite3_bind_double(handle, next, value)) }

    /// Binds UTF-8 text by its byte count, so that text is bound whole whatever it contains.
    @inline(__always)
    func appendText(_ utf8: UnsafeRawBufferPointer) throws {
        guard let base = utf8.baseAddress, utf8.count > 0 else {
            // A zero-length text is '' (a nil base address would bind NULL).
            return try bound(sqlite3_bind_text(handle, next, "", 0, Self.transient))
        }
        try bound(sqlite3_bind_text(handle, next, base.assumingMemoryBound(to: CChar.self), Int32(utf8.count), Self.transient))
    }

    /// Binds a non-empty blob (an empty one goes through ``append(_:)``, which binds a zero-length blob).
    @inline(__always)
    func appendBlob(_ data: UnsafeRawBufferPointer) throws {
        guard data.count > 0 else { return try bound(sqlite3_bind_zeroblob(handle, next, 0)) }
        try bound(sqlite3_bind_blob(handle, next, data.baseAddress, Int32(data.count), Self.transient))
    }

    /// Lets `fill` assemble bytes in a buffer reused from value to value (emptied first), then binds
    /// them as text or as a blob.
    @inline(__always)
    func appendScratch(asText: Bool, _ fill: (inout [UInt8]) -> Void) throws {
        bytes.removeAll(keepingCapacity: true)
        fill(&bytes)
        try bytes.withUnsafeBytes { raw in
            if asText { try appendText(raw) } else { try appendBlob(raw) }
        }
    }

    /// Checks a bind, moves to the next parameter and writes the row once every column is bound.
    @inline(__always)
    private func bound(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw error(code) }
        if next < width {
            next += 1
            return
        }
        next = 1
        let step = sqlite3_step(handle)
        guard step == SQLITE_DONE else {
            let failure = error(step)
            sqlite3_reset(handle)
            throw failure
        }
        sqlite3_reset(handle)
        written += 1
    }

    /// Ends the table's rows. Rows are written as they complete, so this only checks that none was left
    /// half-bound (a writer bug, never a user's).
    func flush() throws {
        precondition(next == 1, "seeding \(table): a row was left with \(next - 1) of \(width) values")
    }

    /// SQLite's failure as GRDB reports its own: the extended result code (SQLite's, from the connection,
    /// falling back to what the call returned), SQLite's message, and the statement prepared.
    private func error(_ code: Int32) -> DatabaseError {
        let connection = db.sqliteConnection
        let message = connection.map { String(cString: sqlite3_errmsg($0)) }
        let extended = connection.map { sqlite3_extended_errcode($0) }.flatMap { $0 & 0xFF == code & 0xFF ? $0 : nil } ?? code
        return DatabaseError(resultCode: ResultCode(rawValue: extended), message: message, sql: Self.sql(table: table, columns: columns))
    }
}
