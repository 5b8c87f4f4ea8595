import Foundation
import GRDB
import InstarCompiler
import InstarInference
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel

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
        /// The plan names a layout that is neither built in nor registered (`Layouts.resolve(_:path:)`).
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
    /// What the throw site knew, as values: the message and the hint are rendered from it (and from the
    /// facts below) in `StoreError+Rendering.swift`, the one place a store error's words live.
    package var reason: Reason
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

    /// Makes the error from facts only: its words come from `reason` (see `StoreError+Rendering.swift`).
    package init(
        _ kind: Kind, path: String, reason: Reason, sqlite: SQLiteFailure? = nil, underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.path = path
        self.reason = reason
        self.sqlite = sqlite
        self.underlying = underlying
    }

    public var description: String {
        "\(path): \(message)" + (hint.map { "\n  hint: \($0)" } ?? "")
    }

    /// A layout's refusal of a model, kept whole as ``underlying`` (its layout, entity, property, reason).
    package static func layout(_ error: LayoutError, path: String) -> StoreError {
        StoreError(.layout, path: path, reason: .underlying, underlying: error)
    }

    /// Translates SQLite's failures into the kinds a user can act on, keeping SQLite's codes and statement.
    package static func from(_ error: any Error, path: String, doing operation: Operation) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            var failure = SQLiteFailure(error)
            if [.SQLITE_IOERR, .SQLITE_CANTOPEN].contains(error.resultCode) { failure.systemErrno = openingErrno(path) }
            func make(_ kind: Kind, _ reason: Reason? = nil) -> StoreError {
                StoreError(kind, path: path, reason: reason ?? .sqlite(operation), sqlite: failure)
            }
            switch error.resultCode {
            case .SQLITE_FULL: return make(.diskFull)
            case .SQLITE_BUSY, .SQLITE_LOCKED: return make(.locked)
            case .SQLITE_READONLY:
                if FileManager.default.fileExists(atPath: path + "-journal") { return make(.needsRecovery, .hotJournal(operation)) }
                return make(.readOnly)
            case .SQLITE_INTERRUPT: return make(.interrupted)
            case .SQLITE_NOTADB: return make(.notADatabase)
            case .SQLITE_CORRUPT where FileManager.default.fileExists(atPath: path + "-wal"):
                return make(.corrupt, .corruptBesideWAL(operation))
            case .SQLITE_CORRUPT: return make(.corrupt)
            case .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_AUTH, .SQLITE_PERM:
                if failure.systemErrno == EPERM || error.resultCode == .SQLITE_AUTH { return make(.protectedDataUnavailable) }
                if error.resultCode == .SQLITE_CANTOPEN { return make(.notFound) }
                return make(.ioError)
            default:
                return make(.sqlite)
            }
        }
        if let error = error as? LayoutError { return .layout(error, path: path) }
        if let error = error as? StepCompileError {
            return StoreError(.notInferable, path: path, reason: .underlying, underlying: error)
        }
        if let error = error as? BookkeepingError {
            return StoreError(.layout, path: path, reason: .underlying, underlying: error)
        }
        return StoreError(.sqlite, path: path, reason: .unexpected(operation), underlying: error)
    }
}

extension StoreError {
    /// What a throw site knew about a failure, as values; the renderer turns each into words.
    package enum Reason: Sendable {
        /// SQLite failed while doing the operation; ``StoreError/kind`` says how (from its result code)
        /// and ``StoreError/sqlite`` keeps its codes, message and statement.
        case sqlite(Operation)
        /// A read-only connection met a hot journal it cannot roll back (``Kind/needsRecovery``).
        case hotJournal(Operation)
        /// SQLite read the store as damaged while a -wal file lies beside it (perhaps another store's).
        case corruptBesideWAL(Operation)
        /// Another error type's refusal, kept whole in ``StoreError/underlying``, which renders its own words.
        case underlying
        /// An error that is neither SQLite's nor Instar's, kept in ``StoreError/underlying``.
        case unexpected(Operation)
        /// The store was opened read-only, and the operation writes.
        case openedReadOnly(Operation)
        /// Nothing is at the path.
        case noFile(FileRole)
        /// The path is not a regular file (`viaLink`: a symbolic link leads to what it is).
        case notARegularFile(FileRole, FileKind, viaLink: Bool)
        /// The `-wal`, `-shm` or `-journal` file beside the file is not a regular file.
        case sidecarNotARegularFile(suffix: String, role: FileRole, kind: FileKind)
        /// A 0-byte store with a -wal file of `walBytes` beside it, which SQLite would delete on opening.
        case emptyFileBesideWAL(walBytes: Int64)
        /// A file is where a store or a backup is to be created.
        case fileInTheWay(FileRole)
        /// A backup with no tables, which would empty the store.
        case emptyBackup
        /// An in-memory or temporary database given to a migration.
        case inMemoryDatabase
        /// A column of a database to adopt whose declared type is no SQLite type name.
        case declaredTypeNotSQL(table: String, column: String, declaredType: String)
        /// A `secure_delete` mode other than on, off or fast.
        case unknownSecureDeleteMode(String)
        /// The plan lists no versions.
        case planHasNoVersions
        /// A migration was given `count` versions, fewer than two.
        case tooFewVersions(count: Int)
        /// The target version is not among the plan's `versions`.
        case targetNotInPlan(target: String, versions: [String])
        /// The store has no tables (``StoreError/storeIsEmpty``).
        case emptyStore
        /// The store's version is none of the plan's (its metadata's name, when it has one); the closest
        /// version and the drift from it are in ``StoreError/closestVersion`` and ``StoreError/drift``.
        case versionNotInPlan(metadataName: String?)
        /// The store is at `version`, but its schema differs by ``StoreError/drift``.
        case schemaDrift(version: String)
        /// Another connection changed the store before the run's first write.
        case changedBeforeFirstWrite
        /// A row of `table` (its rowid, when known) links to no row of `parent` after `origin`'s work.
        case foreignKeyBroken(after: ForeignKeyOrigin, table: String, row: String?, parent: String)
        /// SQLite's integrity check failed after a mapping model's step.
        case integrityCheckFailed(mappingModel: String, problems: [String])
        /// After the step the schema differs from `version`'s by `differences`.
        case schemaNotReached(version: String, differences: [SchemaDifference])
        /// An entity's row count changed through a step that should keep it.
        case rowCountChanged(source: String, destination: String, before: Int, after: Int)
        /// The store's own view or trigger fails against `version`'s schema (SQLite's words in ``StoreError/sqlite``).
        case viewOrTriggerBroken(type: String, name: String, version: String)
        /// A statement of the step (its `purpose`) broke a constraint of `version`.
        case dataDoesNotFit(version: String, purpose: String)
        /// A statement of a mapping model's step (its `purpose`) failed.
        case mappingStatementFailed(mappingModel: String, purpose: String)
        /// The data breaks the conditions counted in ``StoreError/dataViolations``.
        case dataViolations
    }

    /// What Instar was doing when SQLite failed.
    package enum Operation: Sendable, Hashable {
        case opening, creating, readingLayout, readingMetadata, readingBackup, readingJournal, readingLease
        case readingRetiredTables, readingSchema(version: String?)
        case countingRows, countingRowsToCopy, settingSecureDelete, sizingPageCache
        case backingUp(to: String), restoring(from: String)
        case migrating(step: String?), planningStep, compilingStep, planningSlicedCopy, checkingData
        case importingSchema, seeding, writingModelCache, runningHook, planningDryRun
    }

    /// The part a file plays, for refusals of files that are missing, in the way or not regular.
    package enum FileRole: Sendable, Hashable {
        case store, backup, fixture, importedDatabase
    }

    /// What wrote the rows whose link broke.
    package enum ForeignKeyOrigin: Sendable, Hashable {
        /// Seeding the store with generated rows.
        case seeding
        /// A mapping model's step.
        case mappingModel(String)
        /// A part of a step (a statement's purpose, a hook), as the step's checks name it.
        case part(String)
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
