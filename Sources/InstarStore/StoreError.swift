import GRDB

/// Why an operation on a store failed, what it concerns, and what to do. The store is unchanged
/// whenever one of these is thrown by a migration: the step's transaction was rolled back.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case notFound, alreadyExists, notADatabase, readOnly, locked, diskFull
        case unknownLayout, unknownVersion, schemaDrift, notInferable, dataCondition
        case verificationFailed, layout, sqlite
    }

    public var kind: Kind
    public var path: String
    public var message: String
    public var hint: String?

    public init(_ kind: Kind, path: String, _ message: String, hint: String? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.hint = hint
    }

    public var description: String {
        "\(path): \(message)" + (hint.map { "\n  hint: \($0)" } ?? "")
    }

    /// Translates SQLite's failures into the kinds a user can act on.
    package static func from(_ error: any Error, path: String, doing action: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_FULL:
                return StoreError(
                    .diskFull, path: path, "the disk (or the store's size limit) is full while \(action); nothing was changed",
                    hint: "free space: a rebuild needs room for a second copy of the largest table, plus its journal")
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return StoreError(
                    .locked, path: path, "the store is locked by another connection while \(action); nothing was changed",
                    hint: "close the app or process using the store and try again")
            case .SQLITE_READONLY:
                return StoreError(
                    .readOnly, path: path, "the store is read-only; nothing was changed",
                    hint: "check the file's and its folder's permissions (SQLite writes a journal beside it)")
            case .SQLITE_NOTADB:
                return StoreError(.notADatabase, path: path, "not a SQLite database")
            case .SQLITE_CANTOPEN:
                return StoreError(.notFound, path: path, "cannot open the store", hint: "check the path and permissions")
            default:
                return StoreError(.sqlite, path: path, "SQLite failed while \(action): \(error.message ?? "\(error)")")
            }
        }
        if let error = error as? LayoutError {
            return StoreError(.layout, path: path, error.description)
        }
        if let error = error as? StepCompileError {
            return StoreError(.notInferable, path: path, error.message)
        }
        return StoreError(.sqlite, path: path, "\(action) failed: \(error)")
    }
}
