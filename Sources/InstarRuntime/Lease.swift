import Foundation
import GRDB
import GRDBSQLite
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

/// Who is migrating a store: one run at a time, across processes and within one.
///
/// The lease is a row in the store, claimed in a write transaction, so two processes can never both
/// believe they own it. It names its owner (pid, host, since) for the error a second migrator gets,
/// and the run that holds it (a token), because two runs in one process share a pid.
///
/// A lease is taken over when its owner is gone:
/// - in this process: no run with its token is running (`ActiveRuns`);
/// - on this host: nobody holds the store's lock file (`StoreLock`: the kernel drops a process's
///   locks when it dies, before it is reaped, so a killed run is dead at once and a recycled pid
///   means nothing); for a lease written without the lock (by an earlier version of Instar), its
///   process is gone, a zombie, or the pid now belongs to a process started at another time. Neither
///   uses a heartbeat, which would either let a second run in while a hook awaits a slow server or
///   keep a dead owner's store locked for minutes;
/// - on another host (a store on a shared volume): its heartbeat is older than `staleAfter`.
public struct Lease: Sendable, Equatable, CustomStringConvertible {
    /// The lease's table in the store (one row at most); dropped when a run finishes.
    package static let table = "_instar_lease"
    /// Seconds without a heartbeat after which another host's lease counts as abandoned and is taken over.
    package static let staleAfter: TimeInterval = 120

    /// The owner in words, e.g. `instar pid 4242 on build-7`.
    public package(set) var owner: String
    /// The owner's process id (on ``host``).
    public package(set) var pid: Int32
    /// The owner's host name.
    public package(set) var host: String
    /// When the owner took the lease.
    public package(set) var since: Date
    /// When the owner last committed (every commit of a run refreshes it).
    package var heartbeat: Date
    /// The run holding the lease (unique per run, also within one process); nil in leases written by
    /// earlier versions of Instar.
    package var token: String?
    /// When the owner's process started, as the system counts it (nil where it cannot tell): with the
    /// pid, it names the process exactly.
    package var processStart: Double?
    /// Whether the owner holds the store's lock file while it runs (``StoreLock``): then the lock, not
    /// the pid, says whether it lives.
    package var holdsLock = false
    /// The store the lease was read from (to find its lock file), when it was read from one.
    package var storePath: String?

    /// A lease for a new run of this process, taken now.
    package static func mine() -> Lease {
        let now = Date()
        let pid = getpid()
        let host = ProcessInfo.processInfo.hostName
        return Lease(
            owner: "instar pid \(pid) on \(host)", pid: pid, host: host, since: now, heartbeat: now,
            token: UUID().uuidString, processStart: ProcessStart.of(pid))
    }

    public var description: String {
        "\(owner) (pid \(pid), host \(host), since \(Journal.iso(since)))"
    }

    /// Whether the owner still runs, as far as this machine can tell.
    public var isAlive: Bool {
        guard host == ProcessInfo.processInfo.hostName else {
            return Date().timeIntervalSince(heartbeat) < Self.staleAfter
        }
        if pid == getpid() {
            // Another run of this process: alive only while it runs (a run that ended without releasing
            // its lease, or a lease from before this version, is left over).
            return token.map(ActiveRuns.shared.isRunning) ?? false
        }
        if holdsLock, let storePath {
            // The owner held the lock for as long as it could write: if no other process holds it now,
            // the owner is gone (killed, crashed, or a zombie not yet reaped).
            return StoreLock.isHeldByAnotherProcess(store: storePath)
        }
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        if ProcessStart.isZombie(pid) { return false }  // killed, not yet reaped: it will never write again
        if let recorded = processStart, let current = ProcessStart.of(pid), abs(current - recorded) > 0.5 {
            return false  // the pid was reused by a later process
        }
        return true
    }

    static func create(_ db: Database) throws {
        let table = SQLIdentifier.quoted(Self.table)
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(table) ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "owner" TEXT NOT NULL,
                  "pid" INTEGER NOT NULL, "host" TEXT NOT NULL, "since" REAL NOT NULL, "heartbeat" REAL NOT NULL,
                  "token" TEXT, "processStart" REAL, "holdsLock" INTEGER)
                """)
        // A lease table written by an earlier version lacks the newer columns.
        let columns = Set(try db.columns(in: Self.table).map(\.name))
        for (column, type) in [("token", "TEXT"), ("processStart", "REAL"), ("holdsLock", "INTEGER")] where !columns.contains(column) {
            try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(SQLIdentifier.quoted(column)) \(type)")
        }
    }

    /// The current holder, if any. A row that cannot describe a holder (wrong types, values out of
    /// range: a damaged or hand-edited store) is read as no holder, so that a run can take it over;
    /// it is never trusted to lock the store.
    package static func holder(_ db: Database) throws -> Lease? {
        guard try db.tableExists(table),
            let row = try Row.fetchOne(db, sql: "SELECT * FROM \(SQLIdentifier.quoted(table)) WHERE \"id\" = 1")
        else { return nil }
        // Decoded leniently: GRDB's typed subscript traps on a value of the wrong type.
        func value<T: DatabaseValueConvertible>(_ column: String, as type: T.Type) -> T? {
            guard row.hasColumn(column) else { return nil }
            return T.fromDatabaseValue(row[column] as DatabaseValue)
        }
        guard let owner = value("owner", as: String.self), let pidValue = value("pid", as: Int64.self),
            let pid = Int32(exactly: pidValue), let host = value("host", as: String.self),
            let since = value("since", as: Double.self), let heartbeat = value("heartbeat", as: Double.self),
            since.isFinite, heartbeat.isFinite
        else { return nil }
        var lease = Lease(
            owner: owner, pid: pid, host: host, since: Date(timeIntervalSince1970: since),
            heartbeat: Date(timeIntervalSince1970: heartbeat), token: value("token", as: String.self),
            processStart: value("processStart", as: Double.self))
        lease.holdsLock = value("holdsLock", as: Bool.self) ?? false
        lease.storePath = mainFile(db)
        return lease
    }

    /// The path of the connection's main database file, as SQLite opened it.
    private static func mainFile(_ db: Database) -> String? {
        guard let connection = db.sqliteConnection, let name = sqlite3_db_filename(connection, "main") else { return nil }
        let path = String(cString: name)
        return path.isEmpty ? nil : path
    }

    /// Claims the lease inside the caller's write transaction; returns the live holder if it is taken.
    static func claim(_ mine: Lease, _ db: Database) throws -> Lease? {
        if let holder = try holder(db), holder.token != mine.token, holder.isAlive {
            return holder
        }
        try write(mine, db)
        return nil
    }

    /// Whether `mine` still holds the lease: checked inside every transaction of a run before it
    /// commits, so a run that lost its lease never writes over another run's journal.
    static func isHeld(by mine: Lease, _ db: Database) throws -> Bool {
        try holder(db)?.token == mine.token
    }

    static func write(_ lease: Lease, _ db: Database) throws {
        try create(db)
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO \(SQLIdentifier.quoted(table))
                  ("id", "owner", "pid", "host", "since", "heartbeat", "token", "processStart", "holdsLock")
                  VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                lease.owner, lease.pid, lease.host, lease.since.timeIntervalSince1970, Date().timeIntervalSince1970,
                lease.token, lease.processStart, lease.holdsLock,
            ])
    }

    /// Deletes the lease from a copy of the store (a backup taken while this process holds it).
    static func removeAll(fromCopyAt path: String) throws {
        let copy = try DatabaseQueue(path: path)
        defer { try? copy.close() }
        try copy.write { db in
            if try db.tableExists(table) { try db.execute(sql: "DELETE FROM \(SQLIdentifier.quoted(table))") }
        }
    }

    static func release(_ mine: Lease, _ db: Database) throws {
        guard try db.tableExists(table), try isHeld(by: mine, db) else { return }
        try db.execute(sql: "DELETE FROM \(SQLIdentifier.quoted(table)) WHERE \"id\" = 1")
    }
}

/// When a process started, in seconds on the system's own clock: with the pid, it tells a process
/// from a later one that reuses the pid.
enum ProcessStart {
    /// Whether `pid` is a process that has died and not been reaped (state `Z`, or `X` while it goes):
    /// `kill(pid, 0)` still succeeds on it, but it will never write again.
    static func isZombie(_ pid: Int32) -> Bool {
        #if os(Linux)
            // Field 3 of /proc/<pid>/stat, the first after the command name's last ')'.
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { return false }
            let state = text[text.index(after: close)...].split(separator: " ").first
            return state == "Z" || state == "X"
        #else
            return false
        #endif
    }

    static func of(_ pid: Int32) -> Double? {
        #if os(Linux)
            // Field 22 of /proc/<pid>/stat: start time in clock ticks after boot. The command name
            // (field 2) may hold spaces and parentheses, so fields are counted after its last ')'.
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
            return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
        #else
            return nil
        #endif
    }
}

/// Another migrator holds the store (a live process, or another run of this one), or this run lost
/// its lease to one that took it over.
public struct LeaseError: InstarError, CustomStringConvertible {
    /// The store's path.
    public package(set) var path: String
    /// Who holds the store.
    public package(set) var holder: Lease

    /// Makes the error for the store at `path`, held by `holder`.
    package init(path: String, holder: Lease) {
        self.path = path
        self.holder = holder
    }

    public var description: String {
        "\(path): another migration holds the store: \(holder)"
    }
}
