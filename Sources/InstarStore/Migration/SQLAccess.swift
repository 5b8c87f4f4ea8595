import GRDBSQLite
@_spi(Layouts) import InstarLayouts

/// What a piece of SQL reads and writes in the store, as SQLite itself reports it.
///
/// The planner may move work across a hook only when the hook cannot tell the difference (see
/// ``StepProgram/deferring(past:sourceSchema:moveTables:)``). "Cannot tell" is decided from this: SQLite's
/// authorizer is told, while each statement is compiled, every column it reads, every table it inserts
/// into, updates or deletes from, and every schema change, including those made by triggers. The
/// hook's statements are run in a scratch in-memory database holding only the schema the hook expects
/// (empty tables, so this costs milliseconds whatever the store's size), so statements that use a
/// temporary table an earlier statement created are analysed too.
///
/// Anything the analysis cannot see through makes the access ``isOpaque``: a statement that fails in
/// the scratch database, a `PRAGMA`, `ATTACH`, a read of the schema table, a table the scratch schema
/// does not have, a view or trigger it creates. An opaque hook is treated as reading and writing everything.
package struct SQLAccess: Sendable, Hashable {
    /// Table → columns read; `""` stands for the table's rows as a whole (`count(*)`, `rowid`).
    package var reads: [String: Set<String>] = [:]
    /// Tables rows are inserted into.
    package var inserts: Set<String> = []
    /// Tables whose rows are updated (→ columns) or deleted.
    package var updates: [String: Set<String>] = [:]
    package var deletes: Set<String> = []
    /// Tables of the store created, dropped or altered (temporary tables are the hook's own business).
    package var schemaChanges: Set<String> = []
    /// Why the access could not be analysed; nil when it could.
    package var opaqueReason: String?

    package var isOpaque: Bool { opaqueReason != nil }

    package static func opaque(_ reason: String) -> SQLAccess {
        var access = SQLAccess()
        access.opaqueReason = reason
        return access
    }

    /// Whether the SQL may see anything of `table`: reads it, or changes it in any way.
    package func touches(_ table: String) -> Bool {
        isOpaque || reads[table] != nil || writes(table)
    }

    /// Whether rows of `table` may be inserted, updated or deleted, or its schema changed.
    package func writes(_ table: String) -> Bool {
        isOpaque || inserts.contains(table) || updates[table] != nil || deletes.contains(table)
            || schemaChanges.contains(table)
    }

    /// Tables whose rows may disappear or change key (so that references to them may break). Inserts
    /// count too: `INSERT OR REPLACE` (or a `UNIQUE … ON CONFLICT REPLACE` column) deletes the rows it
    /// conflicts with, and the authorizer reports only the insert.
    package var removesOrChangesRows: Set<String> { deletes.union(inserts).union(updates.keys).union(schemaChanges) }

    /// Tables written in any way.
    package var writtenTables: Set<String> { inserts.union(updates.keys).union(deletes).union(schemaChanges) }

    package mutating func formUnion(_ other: SQLAccess) {
        reads.merge(other.reads) { $0.union($1) }
        inserts.formUnion(other.inserts)
        updates.merge(other.updates) { $0.union($1) }
        deletes.formUnion(other.deletes)
        schemaChanges.formUnion(other.schemaChanges)
        opaqueReason = opaqueReason ?? other.opaqueReason
    }

    /// Runs `statements` in a scratch in-memory database that holds `schema` (tables empty), and
    /// records what they read and write in that schema's tables.
    package static func of(_ statements: [String], in schema: StoreSchema) -> SQLAccess {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
            let connection = handle
        else {
            sqlite3_close(handle)
            return .opaque("no scratch database could be opened")
        }
        defer { sqlite3_close(connection) }
        for table in schema.tables {
            guard sqlite3_exec(connection, table.createSQL(named: table.name), nil, nil, nil) == SQLITE_OK else {
                return .opaque("the scratch schema could not be created (\(String(cString: sqlite3_errmsg(connection))))")
            }
        }
        for index in schema.indexes {
            guard sqlite3_exec(connection, index.createSQL, nil, nil, nil) == SQLITE_OK else {
                return .opaque("the scratch schema could not be created (\(String(cString: sqlite3_errmsg(connection))))")
            }
        }
        let recorder = AccessRecorder(tables: Set(schema.tables.map(\.name)))
        let context = Unmanaged.passUnretained(recorder).toOpaque()
        sqlite3_set_authorizer(connection, authorize, context)
        defer { sqlite3_set_authorizer(connection, nil, nil) }
        // Tables are empty here, so a hook's statements normally finish in microseconds; one that
        // computes a lot on its own (a recursive CTE) is stopped after about ten million VM
        // instructions and treated as opaque, rather than run in full before the migration starts.
        sqlite3_progress_handler(connection, 100_000, { context in
            guard let context else { return 1 }
            let recorder = Unmanaged<AccessRecorder>.fromOpaque(context).takeUnretainedValue()
            recorder.budgetCallbacks -= 1
            return recorder.budgetCallbacks < 0 ? 1 : 0
        }, context)
        for sql in statements {
            // One statement at a time, so that each is classified on its own (a DDL statement's own
            // reads and writes of the schema table are bookkeeping, not the hook reading the schema).
            var remaining = Array(sql.utf8CString)
            var failure: String?
            remaining.withUnsafeMutableBufferPointer { buffer in
                var cursor: UnsafePointer<CChar>? = UnsafePointer(buffer.baseAddress)
                while let start = cursor, start.pointee != 0 {
                    var statement: OpaquePointer?
                    var tail: UnsafePointer<CChar>?
                    recorder.beginStatement()
                    guard sqlite3_prepare_v2(connection, start, -1, &statement, &tail) == SQLITE_OK else {
                        failure = String(cString: sqlite3_errmsg(connection))
                        return
                    }
                    cursor = tail
                    guard let statement else { continue }  // only whitespace or a comment
                    var step = sqlite3_step(statement)
                    while step == SQLITE_ROW { step = sqlite3_step(statement) }
                    sqlite3_finalize(statement)
                    guard step == SQLITE_DONE else {
                        failure = recorder.budgetCallbacks < 0
                            ? "it computes too much to analyse on empty tables"
                            : String(cString: sqlite3_errmsg(connection))
                        return
                    }
                    recorder.endStatement()
                }
            }
            if let failure { return .opaque("a statement fails on the expected schema (\(failure))") }
        }
        return recorder.access
    }
}

/// Collects the authorizer's reports for ``SQLAccess/of(_:in:)``.
private final class AccessRecorder {
    let tables: Set<String>
    /// Progress callbacks left before the analysis gives up (see ``SQLAccess/of(_:in:)``).
    var budgetCallbacks = 100
    var access = SQLAccess()
    /// The current statement's accesses, merged into `access` when it completes.
    private var statement = SQLAccess()
    private var statementIsDDL = false
    private var statementReadsSchema = false
    private var statementReindexes = false

    init(tables: Set<String>) { self.tables = tables }

    func beginStatement() {
        statement = SQLAccess()
        statementIsDDL = false
        statementReadsSchema = false
        statementReindexes = false
    }

    func endStatement() {
        if statementReadsSchema && !statementIsDDL && statement.opaqueReason == nil {
            statement.opaqueReason = "it reads the schema table"
        }
        // `CREATE INDEX` reports a reindex of its new index; a `REINDEX` of its own is not analysed.
        if statementReindexes && !statementIsDDL && statement.opaqueReason == nil {
            statement.opaqueReason = "it uses REINDEX"
        }
        access.formUnion(statement)
    }

    private static let schemaTables: Set<String> = ["sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"]

    func record(_ action: Int32, _ a: String?, _ b: String?, database: String?) {
        // Temporary objects are the hook's own; table-valued functions (json_each) are not tables.
        let isMain = database == nil || database == "main"
        func storeTable(_ name: String?) -> String? {
            guard let name, isMain, tables.contains(name) else { return nil }
            return name
        }
        switch action {
        case SQLITE_READ:
            if let a, Self.schemaTables.contains(a) {
                statementReadsSchema = true
            } else if let table = storeTable(a) {
                statement.reads[table, default: []].insert(b ?? "")
            }
        case SQLITE_INSERT:
            if let a, Self.schemaTables.contains(a) { statementIsDDL = true } else if let t = storeTable(a) { statement.inserts.insert(t) }
        case SQLITE_UPDATE:
            if let a, Self.schemaTables.contains(a) { statementIsDDL = true } else if let t = storeTable(a) {
                statement.updates[t, default: []].insert(b ?? "")
            }
        case SQLITE_DELETE:
            if let a, Self.schemaTables.contains(a) { statementIsDDL = true } else if let t = storeTable(a) { statement.deletes.insert(t) }
        case SQLITE_CREATE_INDEX, SQLITE_DROP_INDEX, SQLITE_DROP_TRIGGER:
            statementIsDDL = true
            if let t = storeTable(b) { statement.schemaChanges.insert(t) }
        case SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW:
            // Their bodies name tables without the authorizer reporting reads (a view's query, a
            // trigger's statements until it fires), and they would follow a table being rebuilt.
            statementIsDDL = true
            statement.opaqueReason = statement.opaqueReason ?? "it creates a view or trigger"
        case SQLITE_CREATE_TABLE, SQLITE_DROP_TABLE, SQLITE_DROP_VIEW:
            statementIsDDL = true
            if isMain, let a { statement.schemaChanges.insert(a) }
        case SQLITE_ALTER_TABLE:
            statementIsDDL = true
            if let t = storeTable(b) { statement.schemaChanges.insert(t) } else if let b { statement.schemaChanges.insert(b) }
        case SQLITE_CREATE_TEMP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_DROP_TEMP_INDEX,
            SQLITE_CREATE_TEMP_VIEW, SQLITE_DROP_TEMP_VIEW:
            statementIsDDL = true
        case SQLITE_CREATE_TEMP_TRIGGER, SQLITE_DROP_TEMP_TRIGGER:
            // A temporary trigger may fire on the store's tables: nothing can be said about it.
            statement.opaqueReason = statement.opaqueReason ?? "it creates a temporary trigger"
        case SQLITE_REINDEX:
            statementReindexes = true
        case SQLITE_SELECT, SQLITE_FUNCTION, SQLITE_RECURSIVE, SQLITE_TRANSACTION, SQLITE_SAVEPOINT:
            break
        default:
            // PRAGMA, ATTACH, DETACH, ANALYZE, REINDEX, virtual tables, …
            statement.opaqueReason = statement.opaqueReason ?? "it uses \(Self.actionName(action))"
        }
    }

    static func actionName(_ action: Int32) -> String {
        switch action {
        case SQLITE_PRAGMA: "PRAGMA"
        case SQLITE_ATTACH: "ATTACH"
        case SQLITE_DETACH: "DETACH"
        case SQLITE_ANALYZE: "ANALYZE"
        case SQLITE_CREATE_VTABLE, SQLITE_DROP_VTABLE: "a virtual table"
        default: "an operation Instar does not analyse (authorizer code \(action))"
        }
    }
}

private func authorize(
    _ context: UnsafeMutableRawPointer?, _ action: Int32, _ a: UnsafePointer<CChar>?, _ b: UnsafePointer<CChar>?,
    _ database: UnsafePointer<CChar>?, _ trigger: UnsafePointer<CChar>?
) -> Int32 {
    guard let context else { return SQLITE_OK }
    let recorder = Unmanaged<AccessRecorder>.fromOpaque(context).takeUnretainedValue()
    recorder.record(
        action, a.map { String(cString: $0) }, b.map { String(cString: $0) }, database: database.map { String(cString: $0) })
    return SQLITE_OK
}
