import Foundation
import GRDB

/// Why an operation on a store failed, what it concerns, and what to do. The store is unchanged
/// whenever one of these is thrown by a migration: the step's transaction was rolled back.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable identifier to act on (the raw values appear in logs and JSON).
    public enum Kind: String, Sendable {
        /// No store file at the path, or it cannot be opened (permissions).
        case notFound
        /// A file is in the way of a store or backup to be created.
        case alreadyExists
        /// The file is not a SQLite database.
        case notADatabase
        /// A write was asked of a store opened read-only, or of a read-only file.
        case readOnly
        /// Another connection holds the database lock past the busy timeout.
        case locked
        /// The disk, or the store's size limit, is full.
        case diskFull
        /// Reserved for a layout Instar does not know; this version never throws it.
        case unknownLayout
        /// The store's version is none of the plan's, or the plan has no versions.
        case unknownVersion
        /// The store's schema is not exactly that of the version it is at; the step refuses to run.
        case schemaDrift
        /// Instar cannot work out the step's SQL (an unsupported change or an invalid mapping model).
        case notInferable
        /// The store's data blocks the step: NULLs, rows or duplicates that the new version forbids.
        case dataCondition
        /// A check after the step failed (schema, views, foreign keys); the step was rolled back.
        case verificationFailed
        /// The layout cannot store the model (a name clash, an unsupported type) or read its bookkeeping.
        case layout
        /// Any other SQLite failure; SQLite's message is in ``StoreError/message``.
        case sqlite
    }

    /// What went wrong, as a stable identifier.
    public var kind: Kind
    /// The store (or plan, backup or mapping file) the error concerns.
    public var path: String
    /// What happened, in words, including whether anything was changed.
    public var message: String
    /// What to do about it, when Instar can tell.
    public var hint: String?

    /// Makes the error; the message should say whether anything was changed.
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
            case .SQLITE_CORRUPT where FileManager.default.fileExists(atPath: path + "-wal"):
                // SQLite replays a -wal file beside the store; one copied from another store (or another
                // copy of this one) makes a sound store read as malformed. Nothing was changed.
                return StoreError(
                    .sqlite, path: path,
                    "SQLite failed while \(action): \(error.message ?? "\(error)"); nothing was changed",
                    hint: "the store or its -wal file is damaged: if \((path as NSString).lastPathComponent)-wal "
                        + "came from another store or another copy of this one, move it (and the -shm file) away; "
                        + "else restore a backup")
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
