import Foundation
import GRDB

/// Who is migrating a store: one migrator at a time, across processes.
///
/// The lease is a row in the store, claimed in a write transaction, so two processes can never both
/// believe they own it. It names its owner (pid, host, since) for the error a second migrator gets.
/// A lease whose process is gone (same host, pid no longer alive) or whose heartbeat is older than
/// `staleAfter` (another host) is taken over: a killed migration must not lock its store forever.
public struct Lease: Sendable, Equatable, CustomStringConvertible {
    /// The lease's table in the store (one row at most); dropped when a run finishes.
    public static let table = "_instar_lease"
    /// Seconds without a heartbeat after which another host's lease counts as abandoned and is taken over.
    public static let staleAfter: TimeInterval = 120

    /// The owner in words, e.g. `instar pid 4242 on build-7`.
    public var owner: String
    /// The owner's process id (on ``host``).
    public var pid: Int32
    /// The owner's host name.
    public var host: String
    /// When the owner took the lease.
    public var since: Date
    /// When the owner last committed (every commit of a run refreshes it).
    public var heartbeat: Date

    /// A lease for this process, taken now.
    package static func mine() -> Lease {
        let now = Date()
        let pid = getpid()
        let host = ProcessInfo.processInfo.hostName
        return Lease(owner: "instar pid \(pid) on \(host)", pid: pid, host: host, since: now, heartbeat: now)
    }

    public var description: String {
        "\(owner) (pid \(pid), host \(host), since \(Journal.iso(since)))"
    }

    /// Whether the owner still runs, as far as this machine can tell.
    public var isAlive: Bool {
        if host == ProcessInfo.processInfo.hostName {
            return kill(pid, 0) == 0 || errno == EPERM
        }
        return Date().timeIntervalSince(heartbeat) < Self.staleAfter
    }

    static func create(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS "\(table)" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "owner" TEXT NOT NULL,
                  "pid" INTEGER NOT NULL, "host" TEXT NOT NULL, "since" REAL NOT NULL, "heartbeat" REAL NOT NULL)
                """)
    }

    /// The current holder, if any.
    public static func holder(_ db: Database) throws -> Lease? {
        guard try db.tableExists(table), let row = try Row.fetchOne(db, sql: "SELECT * FROM \"\(table)\" WHERE \"id\" = 1")
        else { return nil }
        return Lease(
            owner: row["owner"], pid: row["pid"], host: row["host"],
            since: Date(timeIntervalSince1970: row["since"]), heartbeat: Date(timeIntervalSince1970: row["heartbeat"]))
    }

    /// Claims the lease inside the caller's write transaction; returns the live holder if it is taken.
    static func claim(_ mine: Lease, _ db: Database) throws -> Lease? {
        try create(db)
        if let holder = try holder(db), holder.pid != mine.pid || holder.host != mine.host, holder.isAlive {
            return holder
        }
        try write(mine, db)
        return nil
    }

    static func write(_ lease: Lease, _ db: Database) throws {
        try create(db)
        try db.execute(
            sql: "INSERT OR REPLACE INTO \"\(table)\" (\"id\", \"owner\", \"pid\", \"host\", \"since\", \"heartbeat\") VALUES (1, ?, ?, ?, ?, ?)",
            arguments: [lease.owner, lease.pid, lease.host, lease.since.timeIntervalSince1970, Date().timeIntervalSince1970])
    }

    /// Deletes the lease from a copy of the store (a backup taken while this process holds it).
    static func removeAll(fromCopyAt path: String) throws {
        let copy = try DatabaseQueue(path: path)
        defer { try? copy.close() }
        try copy.write { db in
            if try db.tableExists(table) { try db.execute(sql: "DELETE FROM \"\(table)\"") }
        }
    }

    static func release(_ mine: Lease, _ db: Database) throws {
        guard try db.tableExists(table) else { return }
        try db.execute(
            sql: "DELETE FROM \"\(table)\" WHERE \"id\" = 1 AND \"pid\" = ? AND \"host\" = ?", arguments: [mine.pid, mine.host])
    }
}

/// Another migrator holds the store (a live process; a dead owner's lease is taken over).
public struct LeaseError: Error, Sendable, CustomStringConvertible {
    /// The store's path.
    public var path: String
    /// Who holds the store.
    public var holder: Lease

    /// Makes the error for the store at `path`, held by `holder`.
    package init(path: String, holder: Lease) {
        self.path = path
        self.holder = holder
    }

    public var description: String {
        "\(path): another migration holds the store: \(holder)"
    }
}
