import Foundation
import GRDB
import InstarInference
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// A SQLite store on disk, in one layout.
///
/// All access goes through one `DatabaseQueue` (one connection, serialised), because a migration step
/// must run in a single transaction on a single connection. Foreign keys are switched off on this
/// connection: SQLite's table-rebuild procedure requires it, and every step checks foreign keys itself
/// (`PRAGMA foreign_key_check`) before it commits.
package final class SQLiteStore: @unchecked Sendable {
    /// The store file's path.
    package let path: String
    /// How the store maps models to tables: the one given, or the one detected, adapted to the store.
    package let layout: any StoreLayout
    /// True when opened read-only (for inspection and dry runs): the store refuses to write.
    package let isReadOnly: Bool
    package let queue: DatabaseQueue
    /// The statement interrupter SQLite calls back (``interruptStatements(when:every:)``), kept alive here.
    let interrupter = Locked<StatementInterrupter?>(nil)
    /// The schema as last read, with its stamp (``readSchema(_:)``).
    let schemaCache = Locked<(stamp: SchemaStamp, schema: StoreSchema)?>(nil)
    /// `PRAGMA data_version` when this connection last refreshed GRDB's schema cache (``refreshSchemaCache(_:)``).
    let seenDataVersion = Locked<Int?>(nil)
    /// Counts read outside transactions, while the store stays as it was (``count(_:sql:arguments:)``).
    let countCache = Locked<CountCache?>(nil)

    private init(path: String, layout: any StoreLayout, queue: DatabaseQueue, readOnly: Bool) {
        self.path = path
        self.layout = layout
        self.queue = queue
        self.isReadOnly = readOnly
    }

    /// The connection's configuration: the app's own, when it gives one (its `prepareDatabase` runs
    /// first — an encryption key, functions its views or triggers call — and its busy timeout is kept),
    /// with what a migration needs on top: foreign keys off (SQLite's rebuild procedure), and
    /// transactions that may span calls (a hook's writes stay uncommitted until its journal record is
    /// written with them).
    static func configuration(readOnly: Bool, busyTimeout: TimeInterval, base: Configuration? = nil) -> Configuration {
        var configuration = base ?? Configuration()
        configuration.readonly = readOnly
        configuration.foreignKeysEnabled = false
        if case .timeout = configuration.busyMode, base != nil {
            // The app chose how long to wait for its own connections; Instar waits as long.
        } else {
            configuration.busyMode = .timeout(busyTimeout)
        }
        configuration.allowsUnsafeTransactions = true
        configuration.label = "instar"
        return configuration
    }

    /// Opens an existing store. The layout is detected from the store's bookkeeping tables unless given.
    package static func open(
        at path: String, layout: (any StoreLayout)? = nil, readOnly: Bool = false, busyTimeout: TimeInterval = 2,
        configuration base: Configuration? = nil
    ) throws(StoreError) -> SQLiteStore {
        try StoreFile.checkBeforeOpening(path, role: .store)
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(
                path: path, configuration: configuration(readOnly: readOnly, busyTimeout: busyTimeout, base: base))
            // Touch the schema now, so that "not a database" surfaces here rather than mid-operation.
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        } catch {
            throw StoreError.from(error, path: path, doing: .opening)
        }
        let detected: any StoreLayout
        // The layouts are listed here, in the caller's task, where its registry scope is seen
        // (`LayoutRegistry.withScope`), not on the queue's thread.
        let candidates = layout == nil ? Layouts.all : []
        do {
            detected = try queue.read { db in
                try (layout ?? candidates.first { try $0.recognizes(db) } ?? InstarLayout()).adapted(to: db)
            }
        } catch {
            throw StoreError.from(error, path: path, doing: .readingLayout)
        }
        return SQLiteStore(path: path, layout: detected, queue: queue, readOnly: readOnly)
    }

    /// Creates an empty store of `model` in `layout`. Refuses to overwrite an existing file; on any
    /// failure the half-made file is removed.
    package static func create(at path: String, model: Model, layout: any StoreLayout = InstarLayout())
        throws(StoreError) -> SQLiteStore
    {
        // `lstat`, not `stat`: a dangling symbolic link is in the way too (SQLite would create its target).
        guard !FileKind.exists(path) else {
            throw StoreError(.alreadyExists, path: path, reason: .fileInTheWay(.store))
        }
        let map: StorageMap
        do {
            map = try layout.storageMap(for: model)
        } catch {
            throw StoreError.layout(error, path: path)
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: false, busyTimeout: 2))
            try queue.inTransaction { db in
                for table in map.schema.tables {
                    try db.executeSingle(table.createSQL())
                }
                for index in map.schema.indexes {
                    try db.executeSingle(index.createSQL)
                }
                // Objects the model keeps verbatim: tables first, then what may name them.
                for kind in RawSQL.Kind.allCases {
                    for raw in map.schema.raw where raw.kind == kind { try db.executeSingle(raw.sql) }
                }
                try layout.createBookkeeping(db, model: model)
                try layout.writeMetadata(db, model: model)
                // A created store starts without a cached model, as it always has (tests and `store create`
                // callers plant caches of their own); migrations write it (``ModelCacheWriter``).
                if layout is CoreDataLayout { try ModelCacheWriter.clear(db) }
                return .commit
            }
            return SQLiteStore(path: path, layout: layout, queue: queue, readOnly: false)
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            for suffix in ["-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            throw StoreError.from(error, path: path, doing: .creating)
        }
    }

    /// Runs `body` on the store's connection, outside any transaction, on a schema cache that has seen
    /// every other connection's commit (``refreshSchemaCache(_:)``).
    package func withDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.inDatabase { db in
            try refreshSchemaCache(db)
            return try body(db)
        }
    }

    /// Whether this SQLite library zero-fills freed pages unless told otherwise (built with
    /// `SECURE_DELETE`, as Debian's is): what a dry run without a store assumes (``DropColumnCost``).
    package static let libraryZeroesFreedPages: Bool = {
        guard let queue = try? DatabaseQueue() else { return true }
        return (try? queue.read { db in try SchemaReader.freedPagesZeroed(db) }) ?? true
    }()

    /// Whether this store's connection zero-fills freed pages (``SchemaReader/freedPagesZeroed(_:)``),
    /// without reading the whole schema as ``schema()`` would.
    package func freedPagesZeroed() throws(StoreError) -> Bool {
        do {
            return try withDatabase { db in try SchemaReader.freedPagesZeroed(db) }
        } catch {
            throw StoreError.from(error, path: path, doing: .readingSchema(version: nil))
        }
    }

    /// The store's schema, without the layout's bookkeeping tables.
    package func schema() throws(StoreError) -> StoreSchema {
        do {
            return try withDatabase { db in try readSchema(db) }
        } catch {
            throw StoreError.from(error, path: path, doing: .readingSchema(version: nil))
        }
    }

    /// What the layout's bookkeeping records about the store's version (hashes, name, stored model); nil
    /// when the layout keeps none or the store has none yet.
    package func metadata() throws(StoreError) -> StoreMetadata? {
        do {
            return try withDatabase { db in try layout.readMetadata(db) }
        } catch {
            throw StoreError.from(error, path: path, doing: .readingMetadata)
        }
    }

    /// Row count of each table of the store (bookkeeping excluded).
    package func rowCounts() throws(StoreError) -> [String: Int] {
        do {
            return try withDatabase { db in
                var counts: [String: Int] = [:]
                for table in try readSchema(db).tables {
                    counts[table.name] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.name.sqlQuoted)") ?? 0
                }
                return counts
            }
        } catch {
            throw StoreError.from(error, path: path, doing: .countingRows)
        }
    }

    /// Sets SQLite's `secure_delete` on this connection: `on` zero-fills every freed page (what
    /// Debian's SQLite does by default), `fast` only pages written anyway, `off` none.
    ///
    /// A table rebuild frees the old table's pages; with `on` they are all overwritten and journaled,
    /// which roughly doubles the cost of a rebuild. `fast` keeps most of the privacy (deleted content
    /// is overwritten where pages are touched) for a fraction of the cost; freed pages may still hold
    /// old values until reused or vacuumed. Instar leaves the setting alone unless asked.
    package func setSecureDelete(_ mode: SecureDelete) throws(StoreError) {
        do {
            // A fixed keyword from the enum, not a value: PRAGMA takes no bound parameters.
            try withDatabase { db in try db.execute(sql: "PRAGMA secure_delete = \(mode.pragmaValue)") }
        } catch {
            throw StoreError.from(error, path: path, doing: .settingSecureDelete)
        }
    }

    /// Copies the whole store to `destination` with SQLite's online backup API (a consistent snapshot,
    /// even of a store in WAL mode). Refuses to overwrite an existing file.
    package func backup(to destination: String) throws(StoreError) {
        guard !FileKind.exists(destination) else {
            throw StoreError(.alreadyExists, path: destination, reason: .fileInTheWay(.backup))
        }
        do {
            let target = try DatabaseQueue(path: destination)
            try queue.backup(to: target)
            try target.close()
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            throw StoreError.from(error, path: path, doing: .backingUp(to: destination))
        }
    }

    /// Replaces the store's content with the backup at `source`, through the backup API (so the store
    /// file is rewritten under SQLite's locks, never half-copied).
    package func restore(from source: String) throws(StoreError) {
        do {
            let backup = try Self.openBackup(source)
            defer { try? backup.close() }
            try backup.backup(to: queue)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.from(error, path: path, doing: .restoring(from: source))
        }
    }

    /// Checks that `source` can be restored from, before any store is opened for writing: a regular
    /// file, a SQLite database, not empty. Throws what ``restore(from:)`` would.
    package static func checkBackup(_ source: String) throws(StoreError) {
        do {
            try openBackup(source).close()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.from(error, path: source, doing: .readingBackup)
        }
    }

    /// The backup at `source`, open read-only, after the checks of ``checkBackup(_:)``.
    private static func openBackup(_ source: String) throws -> DatabaseQueue {
        guard FileKind.exists(source) else {
            throw StoreError(.notFound, path: source, reason: .noFile(.backup))
        }
        try StoreFile.checkBeforeOpening(source, role: .backup)
        let backup = try DatabaseQueue(path: source, configuration: Self.configuration(readOnly: true, busyTimeout: 2))
        // An empty file is a valid, empty SQLite database, and the backup API would copy that
        // emptiness over the store. It is what a backup killed while it was written leaves behind
        // (its journal rolls the copy back to nothing), and never a backup of a store.
        let tables = try backup.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0 }
        guard tables > 0 else {
            try? backup.close()
            throw StoreError(
                .notADatabase, path: source, reason: .emptyBackup)
        }
        return backup
    }

    /// Closes the connection (also done when the store is released).
    package func close() throws {
        try queue.close()
    }
}
