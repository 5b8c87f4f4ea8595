import Foundation
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

// The ONE place where a store error's words live. Every throw site states facts (a ``StoreError/Reason``,
// the operation, versions, tables, SQLite's codes); this file turns them into the message and the hint,
// so that the same failure reads the same wherever it is thrown, and a wording change is made once.

extension StoreError {
    /// What happened, in words, including whether anything was changed: rendered from the error's facts.
    public var message: String { rendered.message }

    /// What to do about it, when Instar can tell: rendered from the error's facts.
    public var hint: String? { rendered.hint }

    /// The message and the hint, from ``reason`` and the facts kept beside it.
    private var rendered: (message: String, hint: String?) {
        switch reason {
        case .sqlite(let operation): return sqliteWords(operation)
        case .hotJournal(let operation):
            return (
                "an interrupted write left a hot journal beside the store, which a read-only connection cannot roll back "
                    + "(while \(operation.phrase)); nothing was changed",
                "open the store for writing once (migrating it does), which rolls the interrupted write back"
            )
        case .corruptBesideWAL(let operation):
            // SQLite replays a -wal file beside the store; one copied from another store (or another
            // copy of this one) makes a sound store read as malformed.
            return (
                "SQLite failed while \(operation.phrase): \(sqliteMessage("database disk image is malformed")); nothing was changed",
                "the store or its -wal file is damaged: if \((path as NSString).lastPathComponent)-wal "
                    + "came from another store or another copy of this one, move it (and the -shm file) away; else restore a backup"
            )
        case .underlying:
            return (underlying.map { String(describing: $0) } ?? "failed", nil)
        case .unexpected(let operation):
            return ("\(operation.phrase) failed: \(underlying.map { String(describing: $0) } ?? "unknown error")", nil)
        case .openedReadOnly(let operation):
            return ("the store was opened read-only, and \(operation.phrase) writes to it; nothing was changed", nil)
        case .noFile(let role):
            return ("no such \(role.noun) file", nil)
        case .notARegularFile(let role, let fileKind, let viaLink):
            let link = viaLink ? "a symbolic link to " : ""
            return ("\(link)\(fileKind.noun), not a regular file: \(role.phrase) must be a regular file; it was not opened", nil)
        case .sidecarNotARegularFile(let suffix, let role, let fileKind):
            return ("the \(suffix) file beside \(role.phrase) is \(fileKind.noun), not a regular file; it was not opened", nil)
        case .emptyFileBesideWAL(let walBytes):
            return (
                "the store file is empty (0 bytes) but its -wal file holds \(walBytes) bytes: SQLite would delete that -wal "
                    + "on opening, so the store was not opened; nothing was changed",
                "the store file was truncated or replaced: restore a backup (the -wal alone cannot be read)"
            )
        case .fileInTheWay(.backup):
            return (
                "a file already exists where the backup should go; nothing was changed",
                "choose another backup path, or remove the file first"
            )
        case .fileInTheWay:
            return ("a file already exists here", "choose another path, or remove the file first")
        case .emptyBackup:
            return (
                "the backup is an empty database (no tables): restoring it would empty the store; nothing was changed",
                "give the backup file the migration wrote before its first step"
            )
        case .inMemoryDatabase:
            return ("an in-memory or temporary database has no file that a migration could open; nothing was changed", nil)
        case .declaredTypeNotSQL(let table, let column, let declaredType):
            return (
                "table '\(table)', column '\(column)': the declared type '\(declaredType)' is not a "
                    + "SQLite type name (\(SQLTypeName.shape)), and a model would write it into SQL; not imported, nothing was written",
                "give the column a plain declared type (ALTER TABLE … RENAME, or rebuild the table) before adopting the database"
            )
        case .unknownSecureDeleteMode(let mode):
            return ("unknown secure_delete mode '\(mode)'; nothing was changed", "use on, off or fast")
        case .planHasNoVersions:
            return ("the plan has no versions; nothing was changed", nil)
        case .tooFewVersions(let count):
            return ("a migration needs at least two versions, and \(count) \(count == 1 ? "was" : "were") given; nothing was changed", nil)
        case .targetNotInPlan(let target, let versions):
            return (
                "the target '\(target)' is not a version of the plan; nothing was changed",
                Spelling.suggestion(for: target, among: versions)
            )
        case .emptyStore:
            return (
                "the store is empty (no tables): it is at no version; nothing was changed",
                "create it at one of the plan's versions first (as the app does on its first launch), or check the path"
            )
        case .versionNotInPlan(let metadataName):
            var message = "the store's version is not one of the plan's versions"
            if let metadataName { message += " (its metadata says '\(metadataName)')" }
            if let closestVersion {
                message += "; closest is \(closestVersion), differing by:\n  " + drift.map(\.description).joined(separator: "\n  ")
            }
            return (message, "add the store's version to the plan's versions")
        case .schemaDrift(let version):
            return (
                "the store is at \(version) but its schema differs; nothing was changed:\n  "
                    + drift.map(\.description).joined(separator: "\n  "),
                "repair the schema, or restore a backup, before migrating"
            )
        case .changedBeforeFirstWrite:
            return (
                "another connection (perhaps another migration) changed the store before this run's first write; nothing was changed",
                "run again (or pass a wait): the next run reads the store as it is now"
            )
        case .foreignKeyBroken(let origin, let table, let row, let parent):
            let link = "\(table)" + (row.map { " row \($0)" } ?? "") + " → \(parent)"
            switch origin {
            case .seeding: return ("seeding broke a foreign key (\(link)); rolled back", nil)
            case .mappingModel(let name): return ("after mapping model '\(name)' a foreign key is broken (\(link)); rolled back", nil)
            case .part(let part): return ("a foreign key is broken after \(part) (\(link)); rolled back", nil)
            }
        case .integrityCheckFailed(let mappingModel, let problems):
            return (
                "after mapping model '\(mappingModel)' the integrity check fails: \(problems.prefix(3).joined(separator: "; ")); rolled back",
                "restore a backup if the store itself was damaged; else report the mapping model that damaged it"
            )
        case .schemaNotReached(let version, let differences):
            return (
                "after the step the schema is not that of \(version); rolled back:\n  "
                    + differences.map(\.description).joined(separator: "\n  "),
                nil
            )
        case .rowCountChanged(let source, let destination, let before, let after):
            return ("after the step '\(destination)' has \(after) rows where '\(source)' had \(before); rolled back", nil)
        case .viewOrTriggerBroken(let type, let name, let version):
            return (
                "the store's \(type) '\(name)' no longer works at \(version) (\(sqliteMessage("error"))); rolled back",
                "drop or change the \(type) before migrating, and recreate it for the new version"
            )
        case .dataDoesNotFit(let version, let purpose):
            return (
                "the data does not fit \(version) (\(purpose)): \(sqliteMessage("constraint failed")); nothing was changed", nil
            )
        case .mappingStatementFailed(let mappingModel, let purpose):
            return (
                "mapping model '\(mappingModel)', \(purpose): \(sqliteMessage("SQLite error")); nothing was changed", nil
            )
        case .dataViolations:
            return dataViolationWords()
        }
    }

    /// SQLite's own message, or `fallback` when it gave none.
    private func sqliteMessage(_ fallback: String) -> String {
        sqlite?.message ?? fallback
    }

    /// The words for a SQLite failure that ``StoreError/from(_:path:doing:)`` sorted into ``kind``.
    private func sqliteWords(_ operation: Operation) -> (message: String, hint: String?) {
        let doing = operation.phrase
        switch kind {
        case .diskFull:
            return (
                "the disk (or the store's size limit) is full while \(doing); nothing was changed",
                "free space: a rebuild needs room for a second copy of the largest table, plus its journal"
            )
        case .locked:
            return (
                "the store is locked by another connection while \(doing); nothing was changed",
                "another process or connection (perhaps another migration) is writing to it: try again when it is done"
            )
        case .readOnly:
            return (
                "the store is read-only; nothing was changed",
                "check the file's and its folder's permissions (SQLite writes a journal beside it)"
            )
        case .interrupted:
            return ("interrupted while \(doing); its transaction was rolled back", nil)
        case .notADatabase:
            return ("not a SQLite database", nil)
        case .corrupt:
            return ("the store file is damaged (\(sqliteMessage("corrupt"))) while \(doing); nothing was changed", "restore a backup")
        case .protectedDataUnavailable:
            return (
                "the system refused access to the store while \(doing) (the file may be protected while the device is locked); nothing was changed",
                "try again once the device is unlocked"
            )
        case .notFound:
            return ("cannot open the store", "check the path and permissions")
        case .ioError:
            return ("reading or writing the store failed while \(doing): \(sqliteMessage("I/O error")); nothing was changed", nil)
        default:
            return ("SQLite failed while \(doing): \(sqliteMessage("SQLite error \(sqlite?.code ?? 0)"))", nil)
        }
    }

    /// Every condition the data breaks, each with where the model declares it; one fix per violation.
    private func dataViolationWords() -> (message: String, hint: String?) {
        guard let first = dataViolations.first else {
            return ("the store's data does not fit the step; nothing was changed", nil)
        }
        let located = { (v: DataViolation) in v.message + (v.location.map { " (\($0))" } ?? "") }
        let message =
            dataViolations.count == 1
            ? located(first) + "; nothing was changed"
            : "the data breaks \(dataViolations.count) conditions of the step; nothing was changed:\n  "
                + dataViolations.map(located).joined(separator: "\n  ")
        let fixes = dataViolations.compactMap(\.fix).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        if fixes.isEmpty {
            let entities = dataViolations.map(\.entity).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            return (message, "fix the \(entities.map { "'\($0)'" }.joined(separator: ", ")) data first, in a hook of a custom stage")
        }
        return (message, fixes.joined(separator: "\n  hint: "))
    }
}

extension StoreError.Operation {
    /// The operation in words, to follow "while": "opening the store", "backing up to /tmp/b.sqlite".
    package var phrase: String {
        switch self {
        case .opening: "opening the store"
        case .creating: "creating the store"
        case .readingLayout: "reading the store's layout"
        case .readingSchema(nil): "reading the schema"
        case .readingSchema(let version?): "reading the schema of \(version)"
        case .readingMetadata: "reading the store's metadata"
        case .countingRows: "counting rows"
        case .countingRowsToCopy: "counting the rows to copy"
        case .settingSecureDelete: "setting secure_delete"
        case .sizingPageCache: "sizing the page cache"
        case .backingUp(let destination): "backing up to \(destination)"
        case .restoring(let source): "restoring from \(source)"
        case .readingBackup: "reading the backup"
        case .migrating(nil): "migrating"
        case .migrating(let step?): "migrating \(step)"
        case .planningStep: "planning the step"
        case .compilingStep: "compiling the step"
        case .planningSlicedCopy: "planning a sliced copy"
        case .checkingData: "checking the data"
        case .importingSchema: "importing the schema"
        case .seeding: "seeding"
        case .writingModelCache: "writing the store's own model"
        case .runningHook: "running a hook"
        case .planningDryRun: "planning the dry run"
        case .readingLease: "reading the migration lease"
        case .readingJournal: "reading the journal"
        case .readingRetiredTables: "reading the retired tables"
        }
    }
}

extension StoreError.FileRole {
    /// The role with an article, as a subject: "a store", "a database to import".
    package var phrase: String {
        switch self {
        case .store: "a store"
        case .backup: "a backup"
        case .fixture: "a fixture"
        case .importedDatabase: "a database to import"
        }
    }

    /// The role as a noun before "file": "no such backup file".
    var noun: String {
        switch self {
        case .store: "store"
        case .backup: "backup"
        case .fixture: "fixture"
        case .importedDatabase: "database"
        }
    }
}
