import Foundation
import GRDB
import InstarCompiler
import InstarInference
import InstarLayouts
import InstarModel

/// Why an operation on a store failed, what it concerns, and what to do. The store is unchanged
/// whenever one of these is thrown by a migration: the step's transaction was rolled back.
public struct StoreError: InstarError, CustomStringConvertible {
    /// What went wrong, as a stable identifier to act on (the raw values appear in logs and JSON).
    public enum Kind: String, Sendable {
        /// No store file at the path, or it cannot be opened (permissions).
        case notFound
        /// The path names a directory, a FIFO, a device or a socket (or a link to one), not a regular
        /// file; it was refused before anything opened it.
        case notARegularFile
        /// A file is in the way of a store or backup to be created.
        case alreadyExists
        /// The file is not a SQLite database.
        case notADatabase
        /// A write was asked of a store opened read-only, or of a read-only file.
        case readOnly
        /// Another connection holds the database lock past the busy timeout (SQLITE_BUSY, SQLITE_LOCKED).
        case locked
        /// The operating system refused to read or write the file (SQLITE_IOERR, SQLITE_CANTOPEN with
        /// EPERM): on Apple devices, typically a file protected by Data Protection while the device is
        /// locked. Try again once the device is unlocked.
        case protectedDataUnavailable
        /// A read or write of the file failed (SQLITE_IOERR): the disk, the file system or the device.
        case ioError
        /// The file is damaged (SQLITE_CORRUPT): restore a backup.
        case corrupt
        /// A killed writer left a hot journal beside the store that only a read-write connection can roll
        /// back; a read-only look cannot see the store until then. Opening it for writing recovers it.
        case needsRecovery
        /// The disk, or the store's size limit, is full.
        case diskFull
        /// The plan names a layout that is neither built in nor registered (``Layouts/resolve(_:path:)``).
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
        /// A stop request (cancellation, time budget, signal) interrupted the statement; its transaction
        /// was rolled back.
        case interrupted
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
    /// SQLite's own account of the failure, when SQLite failed: its codes, message and statement.
    public var sqlite: SQLiteFailure?
    /// For ``Kind/schemaDrift`` and ``Kind/unknownVersion``: each way the store's schema differs from the
    /// version it is at (or, for an unknown version, from the closest one), as values to list or count.
    public var drift: [SchemaDifference] = []
    /// For ``Kind/unknownVersion``: the plan's version the store's schema is closest to, when one is.
    public var closestVersion: String?
    /// For ``Kind/unknownVersion``: the store has no tables at all (an empty SQLite file), so it is at no
    /// version, rather than at one the plan lacks.
    package var storeIsEmpty = false
    /// For ``Kind/dataCondition``: the condition the store's data breaks (no NULLs in a property, no
    /// rows, no duplicates), as the step's inference stated it.
    public var condition: DataCondition?
    /// For ``Kind/dataCondition``: how many rows (for a uniqueness condition, groups of rows) break it.
    public var violations: Int?
    /// For ``Kind/dataCondition``: every condition the data breaks, counted (the first is also in
    /// ``condition`` and ``violations``), so that one refusal names all the data to fix.
    public var dataViolations: [DataViolation] = []
    /// The error behind this one when it is not SQLite's (a ``LayoutError`` for ``Kind/layout``), kept
    /// as a value to switch on.
    public var underlying: (any Error)?

    /// Makes the error; the message should say whether anything was changed.
    public init(
        _ kind: Kind, path: String, _ message: String, hint: String? = nil, sqlite: SQLiteFailure? = nil,
        underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.path = path
        self.message = message
        self.hint = hint
        self.sqlite = sqlite
        self.underlying = underlying
    }

    public var description: String {
        "\(path): \(message)" + (hint.map { "\n  hint: \($0)" } ?? "")
    }

    /// A layout's refusal of a model, kept whole as ``underlying`` (its layout, entity, property, reason).
    package static func layout(_ error: LayoutError, path: String) -> StoreError {
        StoreError(.layout, path: path, error.description, underlying: error)
    }

    /// Translates SQLite's failures into the kinds a user can act on, keeping SQLite's codes and statement.
    package static func from(_ error: any Error, path: String, doing action: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            var failure = SQLiteFailure(error)
            if [.SQLITE_IOERR, .SQLITE_CANTOPEN].contains(error.resultCode) { failure.systemErrno = openingErrno(path) }
            func make(_ kind: Kind, _ message: String, hint: String? = nil) -> StoreError {
                StoreError(kind, path: path, message, hint: hint, sqlite: failure)
            }
            switch error.resultCode {
            case .SQLITE_FULL:
                return make(
                    .diskFull, "the disk (or the store's size limit) is full while \(action); nothing was changed",
                    hint: "free space: a rebuild needs room for a second copy of the largest table, plus its journal")
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return make(
                    .locked, "the store is locked by another connection while \(action); nothing was changed",
                    hint: "another process or connection (perhaps another migration) is writing to it: try again when it is done")
            case .SQLITE_READONLY:
                if FileManager.default.fileExists(atPath: path + "-journal") {
                    return make(
                        .needsRecovery,
                        "an interrupted write left a hot journal beside the store, which a read-only connection cannot roll back; nothing was changed",
                        hint: "open the store for writing once (migrating it does), which rolls the interrupted write back")
                }
                return make(
                    .readOnly, "the store is read-only; nothing was changed",
                    hint: "check the file's and its folder's permissions (SQLite writes a journal beside it)")
            case .SQLITE_INTERRUPT:
                return make(.interrupted, "interrupted while \(action); its transaction was rolled back")
            case .SQLITE_NOTADB:
                return make(.notADatabase, "not a SQLite database")
            case .SQLITE_CORRUPT where FileManager.default.fileExists(atPath: path + "-wal"):
                // SQLite replays a -wal file beside the store; one copied from another store (or another
                // copy of this one) makes a sound store read as malformed. Nothing was changed.
                return make(
                    .corrupt, "SQLite failed while \(action): \(error.message ?? "\(error)"); nothing was changed",
                    hint: "the store or its -wal file is damaged: if \((path as NSString).lastPathComponent)-wal "
                        + "came from another store or another copy of this one, move it (and the -shm file) away; "
                        + "else restore a backup")
            case .SQLITE_CORRUPT:
                return make(.corrupt, "the store file is damaged (\(error.message ?? "corrupt")) while \(action); nothing was changed", hint: "restore a backup")
            case .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_AUTH, .SQLITE_PERM:
                if failure.systemErrno == EPERM || error.resultCode == .SQLITE_AUTH {
                    return make(
                        .protectedDataUnavailable,
                        "the system refused access to the store while \(action) (the file may be protected while the device is locked); nothing was changed",
                        hint: "try again once the device is unlocked")
                }
                if error.resultCode == .SQLITE_CANTOPEN {
                    return make(.notFound, "cannot open the store", hint: "check the path and permissions")
                }
                return make(.ioError, "reading or writing the store failed while \(action): \(error.message ?? "I/O error"); nothing was changed")
            default:
                return make(.sqlite, "SQLite failed while \(action): \(error.message ?? "\(error)")")
            }
        }
        if let error = error as? LayoutError { return .layout(error, path: path) }
        if let error = error as? StepCompileError {
            return StoreError(.notInferable, path: path, error.description, underlying: error)
        }
        if let error = error as? BookkeepingError {
            return StoreError(.layout, path: path, error.description, underlying: error)
        }
        return StoreError(.sqlite, path: path, "\(action) failed: \(error)", underlying: error)
    }
}

/// The error the system gives when the file at `path` is opened for reading (nil when it opens): SQLite
/// does not keep the errno behind SQLITE_CANTOPEN / SQLITE_IOERR once GRDB reports the failure, so the
/// open is tried again to tell Data Protection (EPERM) from a missing file or a permission.
private func openingErrno(_ path: String) -> Int32? {
    let descriptor = open(path, O_RDONLY)
    if descriptor >= 0 {
        close(descriptor)
        return nil
    }
    return errno
}

/// SQLite's account of a failure, kept as values so an app can log or switch on them.
public struct SQLiteFailure: Sendable, Hashable {
    /// The primary result code (`SQLITE_BUSY` is 5, `SQLITE_FULL` 13, …).
    public var code: Int32
    /// The extended result code (`SQLITE_IOERR_WRITE`, `SQLITE_BUSY_SNAPSHOT`, …).
    public var extendedCode: Int32
    /// SQLite's message.
    public var message: String?
    /// The statement that failed, when SQLite was running one.
    public var sql: String?
    /// The operating system's error number behind an I/O failure, when SQLite recorded one.
    public var systemErrno: Int32?

    /// Keeps the facts of a GRDB error.
    package init(_ error: DatabaseError) {
        self.code = error.resultCode.rawValue
        self.extendedCode = error.extendedResultCode.rawValue
        self.message = error.message
        self.sql = error.sql
        self.systemErrno = nil
    }

    /// Makes the facts of a failure from its parts.
    package init(code: Int32, extendedCode: Int32, message: String?, sql: String?, systemErrno: Int32? = nil) {
        self.code = code
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }
}
