import Foundation
import GRDB
@_spi(Layouts) import Instar
import Testing
@_spi(Layouts) import InstarStore
import InstarTestSupport
import InstarRuntimeTestSupport
import InstarStoreTestSupport

/// Paths a user takes that the authors did not design for: what a hook reports, what a second
/// `batches` call sees, what `instar restore` is handed. Each test names the path and what broke.
@Suite struct UntriedPathTests {
    /// A command hook's progress lines are its own: `15/10` (an estimate that was low) or `-3/10`
    /// reached the terminal bar unchecked and trapped (`String(repeating:count:)` with a negative
    /// count), killing `instar` mid-hook. The bar clamps them; the run finishes.
    @Test func progressBarSurvivesAHooksOutOfRangeProgress() throws {
        let (f, cli) = try migrateWithOutOfRangeHookProgress(style: "bar")
        defer { f.remove() }
        // It finished: the numbers the bar is given are in range (hookProgressEventsAreInRange).
        #expect(cli.status == 0, "\(cli)")
        #expect(try f.version() == "V2")
    }

    /// A 0-byte store (a valid, empty SQLite database) is named as empty, not as a version missing from
    /// the plan ("add the store's version to the plan" would send the user the wrong way); untouched.
    @Test func anEmptyStoreIsNamedAsEmpty() throws {
        let f = try RuntimeFixture(stage: "after: []", hooks: "  unused: {sql: ['SELECT 1']}\n")
        defer { f.remove() }
        let empty = f.dir.appendingPathComponent("empty.sqlite").path
        FileManager.default.createFile(atPath: empty, contents: Data())
        let migrator = try f.migrator()
        #expect {
            try migrator.migrate(storeAt: empty)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .unknownVersion && error.storeIsEmpty && error.closestVersion == nil && error.hint != nil
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: empty)).isEmpty)
    }

    /// Migrates with a command hook that reports progress out of range (past its total, negative, out of
    /// a total of 0, negative without a total), showing progress in `style`. The caller removes `f`.
    private func migrateWithOutOfRangeHookProgress(style: String) throws -> (RuntimeFixture, InstarProcess.Result) {
        let f = try RuntimeFixture(stage: "after: [external]", hooks: "  external: {command: [python3, cmd.py]}\n")
        do {
            try """
            print("instar:progress 15/10", flush=True)
            print("instar:progress -3/10", flush=True)
            print("instar:progress 4/0", flush=True)
            print("instar:progress -2", flush=True)
            """.write(to: f.dir.appendingPathComponent("cmd.py"), atomically: true, encoding: .utf8)
            return (f, try f.instar(["migrate", f.plan, "--store", f.store, "--allow-commands", "--progress", style]))
        } catch {
            f.remove()
            throw error
        }
    }

    /// The same hook's numbers reach an app's progress events in range: an app drawing its own bar
    /// must not trap on them either.
    @Test func hookProgressEventsAreInRange() throws {
        let (f, cli) = try migrateWithOutOfRangeHookProgress(style: "json")
        defer { f.remove() }
        #expect(cli.status == 0, "\(cli)")
        let hooks = cli.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.filter { $0["event"] as? String == "hook" }
        let pairs = hooks.map { ($0["done"] as? Int ?? -99, $0["total"] as? Int) }
        #expect(pairs.map(\.0) == [10, 0, 4, 0] && pairs.map(\.1) == [10, 10, nil, nil], "\(cli.stdout)")
    }

    /// A hook that works through two tables with `batches` (items, then their log) committed the first
    /// table's last key as the checkpoint, and the second call took it for its own: it resumed after
    /// that key and skipped the log rows below it (here all of them) on a first, uninterrupted run. Now
    /// every row of both tables is updated exactly once, also when the second call fails half-way and
    /// the hook is resumed: the first call does not redo its table, the second continues its own.
    @Test func aHookBatchingTwoTablesUpdatesEachRowOnce() async throws {
        let f = try RuntimeFixture(rows: 10, stage: "after: [native]", hooks: "  native: {swift: fill}\n")
        defer { f.remove() }
        try f.execute(#"INSERT INTO "Log" ("msg") VALUES ('a'), ('b'), ('c'), ('d'), ('e')"#)
        let migrator = try f.migrator()
        let state = SwiftHookState()
        migrator.register(hook: "fill") { context in
            state.attempts += 1
            state.startCheckpoints.append(context.checkpoint)
            try context.batches(of: "Item", size: 4) { db, keys in
                try db.execute(
                    sql: #"UPDATE "Item" SET "n" = "n" + 1 WHERE "_pk" BETWEEN ? AND ?"#,
                    arguments: [keys.lowerBound, keys.upperBound])
            }
            var batch = 0
            try context.batches(of: "Log", size: 2) { db, keys in
                batch += 1
                try db.execute(
                    sql: #"UPDATE "Log" SET "msg" = "msg" || '+' WHERE "_pk" BETWEEN ? AND ?"#,
                    arguments: [keys.lowerBound, keys.upperBound])
                if state.attempts == 1 && batch == 2 { throw Flaky() }
            }
        }
        #expect(throws: HookError.self) { try migrator.migrate(storeAt: f.store) }
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == Array(repeating: 1, count: 10))
        let halfway = try f.rows(#"SELECT "msg" FROM "Log" ORDER BY "_pk""#).map { $0[0] as String }
        #expect(halfway == ["a+", "b+", "c", "d", "e"], "the log's first batch committed, its second rolled back")

        #expect(try await migrator.migrate(store: URL(fileURLWithPath: f.store)) == .finished(steps: 1))
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == Array(repeating: 1, count: 10))
        let logs = try f.rows(#"SELECT "msg" FROM "Log" ORDER BY "_pk""#).map { $0[0] as String }
        #expect(logs == ["a+", "b+", "c+", "d+", "e+"])
        #expect(state.attempts == 2)
        #expect(state.startCheckpoints.first == .some(nil) && state.startCheckpoints.count == 2)
    }

    /// A journal written by a run that stopped in a one-table hook (checkpoint: the bare last key) still
    /// resumes there, and so does a hook whose only `batches` call is its first.
    @Test func batchCheckpointsKeepTheBareKeyForTheFirstCall() {
        #expect(BatchCheckpoint("6") == BatchCheckpoint(call: 0, lastKey: 6))
        #expect(BatchCheckpoint(call: 0, lastKey: -3).text == "-3")
        #expect(BatchCheckpoint(BatchCheckpoint(call: 2, lastKey: -7).text) == BatchCheckpoint(call: 2, lastKey: -7))
        #expect(BatchCheckpoint("phase two") == nil && BatchCheckpoint("0:5") == nil && BatchCheckpoint(nil) == nil)
    }

}
