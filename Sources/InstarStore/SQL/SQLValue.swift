import Foundation
import GRDB

/// A typed SQL value: what defaults, discriminators and literals are made of.
public enum SQLValue: Sendable, Hashable, CustomStringConvertible {
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
    public var literal: String {
        switch self {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v):
            v.isFinite ? (v == v.rounded() && abs(v) < 1e15 ? String(format: "%.1f", v) : "\(v)") : "NULL"
        case .text(let s): "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let d): "X'" + d.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    public var description: String { literal }

    /// The value as GRDB binds it as a statement argument.
    public var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let v): v.databaseValue
        case .real(let v): v.databaseValue
        case .text(let s): s.databaseValue
        case .blob(let d): d.databaseValue
        }
    }

    /// The value GRDB read from the database, by its storage class.
    public init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let v): self = .integer(v)
        case .double(let v): self = .real(v)
        case .string(let s): self = .text(s)
        case .blob(let d): self = .blob(d)
        }
    }
}
