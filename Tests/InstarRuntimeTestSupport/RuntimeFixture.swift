// What the runtime's tests and the CLI's share: a store and a plan whose one stage runs the hooks under
// test, and hooks that fail on purpose.
import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore
import InstarStoreTestSupport
import InstarTestSupport

/// V1 → V2 (adds `Item.note`), a plan whose single stage runs the hooks under test, and a store at V1
/// with `rows` items (`n` = 0).
package struct RuntimeFixture {
    package let dir: URL
    package let plan: String
    package let store: String

    package init(rows: Int = 6, v2Label: String = "string?", stage: String, hooks: String) throws {
        dir = try temporaryDirectory()
        plan = dir.appendingPathComponent("plan.yaml").path
        store = dir.appendingPathComponent("store.sqlite").path
        let v1 = "name: V1\nentities:\n  Item:\n    attributes:\n      n: int64 = 0\n      label: string?\n  Log:\n    attributes:\n      msg: string?\n"
        let v2 = "name: V2\nentities:\n  Item:\n    attributes:\n      n: int64 = 0\n      label: \(v2Label)\n      note: string?\n  Log:\n    attributes:\n      msg: string?\n"
        try v1.write(to: dir.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        try v2.write(to: dir.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        try writePlan(stage: stage, hooks: hooks)
        let created = try SQLiteStore.create(at: store, model: try model(v1, name: "V1"))
        try created.withDatabase { db in
            for pk in 0..<rows { try db.execute(sql: #"INSERT INTO "Item" ("_pk", "n") VALUES (?, 0)"#, arguments: [pk + 1]) }
        }
        try created.close()
    }

    package func remove() { try? FileManager.default.removeItem(at: dir) }

    package func writePlan(stage: String, hooks: String) throws {
        let text = """
            name: runtime
            versions: [v1.yaml, v2.yaml]
            stages:
              - from: V1
                to: V2
                \(stage)
            hooks:
            \(hooks)
            """
        try text.write(toFile: plan, atomically: true, encoding: .utf8)
    }

    package func migrator() throws -> Migrator { Migrator(plan: try PlanFileReader.read(path: plan)) }

    package func journal() throws -> JournalEntry? { try Migrator.status(ofStoreAt: store).journal }

    package func read<T>(_ path: String? = nil, _ body: (Database) throws -> T) throws -> T {
        let queue = try DatabaseQueue(path: path ?? store)
        defer { try? queue.close() }
        return try queue.read(body)
    }

    package func execute(_ sql: String) throws {
        let queue = try DatabaseQueue(path: store)
        defer { try? queue.close() }
        try queue.write { db in try db.execute(sql: sql) }
    }

    package func ints(_ sql: String) throws -> [Int] { try read { db in try Int.fetchAll(db, sql: sql) } }

    package func rows(_ sql: String, in path: String? = nil) throws -> [Row] { try read(path) { db in try Row.fetchAll(db, sql: sql) } }

    /// How many `Log` rows each message has.
    package func logCounts() throws -> [String: Int] {
        try read { db in
            var counts: [String: Int] = [:]
            for msg in try String.fetchAll(db, sql: #"SELECT "msg" FROM "Log""#) { counts[msg, default: 0] += 1 }
            return counts
        }
    }

    /// The store's version as `instar inspect` tells it.
    package func version(of path: String? = nil) throws -> String? {
        let result = try instar(["inspect", "--store", path ?? store, "--format", "json"])
        return result.json?["version"] as? String
    }

    /// Every table but the journal and the lease, with the schema: what a rolled-back step must not change.
    package func userContent() throws -> [String: [Row]] {
        try read { db in
            let names = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('_instar_journal', '_instar_lease')")
            var tables: [String: [Row]] = [:]
            for name in names { tables[name] = try Row.fetchAll(db, sql: "SELECT * FROM \"\(name)\" ORDER BY rowid") }
            tables["sqlite_master"] = try Row.fetchAll(
                db, sql: "SELECT type, name, sql FROM sqlite_master WHERE tbl_name NOT IN ('_instar_journal', '_instar_lease') ORDER BY name")
            return tables
        }
    }

    /// The store's files, byte for byte (the main file and any journal, WAL or shared memory beside it).
    package func bytes() throws -> [Data] {
        try ["", "-journal", "-wal", "-shm"].compactMap { suffix in
            FileManager.default.fileExists(atPath: store + suffix) ? try Data(contentsOf: URL(fileURLWithPath: store + suffix)) : nil
        }
    }

    package func writeLease(pid: Int32, host: String, heartbeat: Date = Date()) throws {
        let queue = try DatabaseQueue(path: store)
        defer { try? queue.close() }
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS "_instar_lease" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "owner" TEXT NOT NULL,
                      "pid" INTEGER NOT NULL, "host" TEXT NOT NULL, "since" REAL NOT NULL, "heartbeat" REAL NOT NULL)
                    """)
            try db.execute(
                sql: #"INSERT OR REPLACE INTO "_instar_lease" ("id", "owner", "pid", "host", "since", "heartbeat") VALUES (1, ?, ?, ?, ?, ?)"#,
                arguments: ["instar pid \(pid) on \(host)", pid, host, heartbeat.timeIntervalSince1970, heartbeat.timeIntervalSince1970])
        }
    }

    /// `wait.py`: logs whether it is resumed, marks `started`, then waits for `release` (at most 300 s, a
    /// bound for a test that failed before releasing it, far above any machine's time to get there).
    package func writeWaitScript() throws {
        try """
        import os, time
        with open("wait.log", "a") as log:
            log.write("resumed=%s checkpoint=%s\\n" % (os.environ["INSTAR_RESUMED"], os.environ["INSTAR_CHECKPOINT"]))
        open("started", "w").close()
        deadline = time.time() + 300
        while not os.path.exists("release") and time.time() < deadline:
            time.sleep(0.05)
        """.write(to: dir.appendingPathComponent("wait.py"), atomically: true, encoding: .utf8)
    }

    package func touch(_ name: String) throws {
        try Data().write(to: dir.appendingPathComponent(name))
    }

    package func waitForFile(_ name: String, timeout: TimeInterval = 15) -> Bool {
        let giveUp = Date().addingTimeInterval(timeout)
        while Date() < giveUp {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    package func start(_ arguments: [String], environment: [String: String] = [:]) throws -> InstarProcess {
        try InstarProcess(arguments, environment: environment, directory: dir)
    }

    /// Runs a command of `instar` in this process instead of as one, where it returns a result: set by the
    /// test target that links the CLI (InstarCLITests' `RuntimeFixture.cli`), so that its read-only commands
    /// and migrations without failpoints cost no process. The runtime's own tests run `instar` as a process.
    package var inProcess: (@Sendable (_ arguments: [String]) -> InstarProcess.Result?)?

    /// Runs `instar` to completion (killed after `timeout` seconds, so a hang cannot hang the suite):
    /// in this process where ``inProcess`` takes the command (never one with an environment), else as a process.
    package func instar(_ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 30) throws -> InstarProcess.Result {
        if environment.isEmpty, let result = inProcess?(arguments) { return result }
        return try start(arguments, environment: environment).result(timeout: timeout)
    }
}

package struct Flaky: Error, CustomStringConvertible {
    package init() {}
    package var description: String { "flaky on purpose" }
}

/// A Swift hook that throws on its first call and succeeds afterwards.
package final class FailOnce: @unchecked Sendable {
    package init() {}
    package private(set) var calls = 0
    package var hook: SwiftHook {
        { [self] _ in
            calls += 1
            if calls == 1 { throw Flaky() }
        }
    }
}

package final class SwiftHookState: @unchecked Sendable {
    package init() {}
    package var attempts = 0
    package var resumed: [Bool] = []
    package var startCheckpoints: [String?] = []
}

package final class Box<T>: @unchecked Sendable {
    package var value: T
    package init(_ value: T) { self.value = value }
}
