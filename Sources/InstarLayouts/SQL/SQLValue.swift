import Foundation
@_spi(Layouts) import InstarSQL

/// A typed SQL value: what defaults, discriminators and literals are made of.
@_spi(Layouts) public enum SQLValue: Sendable, Hashable, CustomStringConvertible {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A double-precision float (as a ``literal``, a non-finite value is written `NULL`).
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob(Data)

    /// The value as SQL literal text, for the one place SQLite takes no bound parameter: a column's
    /// `DEFAULT` clause. Text is quoted with embedded quotes doubled, blobs are hex, numbers are
    /// printed from their binary value, never from user text.
    @_spi(Layouts) public var literal: String {
        switch self {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v):
            v.isFinite ? (v == v.rounded() && abs(v) < 1e15 ? String(format: "%.1f", v) : "\(v)") : "NULL"
        case .text(let s): SQLLiteral.text(s)
        case .blob(let d): "X'" + d.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    @_spi(Layouts) public var description: String { literal }

    /// The value as a statement's bound argument reads in a dry run's SQL (`-- with …`): text in
    /// double quotes with escapes, blobs as `Data(n bytes)`, the way the executor's own log shows it.
    package var argumentDescription: String {
        switch self {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .text(let s): String(reflecting: s)
        case .blob(let d): "Data(\(d.description))"
        }
    }
}
