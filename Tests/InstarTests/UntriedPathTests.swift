import Foundation
import GRDB
import Instar
import Testing
import InstarTestSupport

/// Paths a user takes that the authors did not design for: what a hook reports, what a second
/// `batches` call sees, what `instar restore` is handed. Each test names the path and what broke.
@Suite struct UntriedPathTests {
    /// A command hook's progress lines are its own: `15/10` (an estimate that was low) or `-3/10`
    /// reached the terminal bar unchecked and trapped (`String(repeating:count:)` with a negative
    /// count), killing `instar` mid-hook. The bar clamps them; the run finishes.
    @Test func progressBarSurvivesAHooksOutOfRangeProgress() throws {
        let f = try RuntimeFixture(stage: "after: [external]", hooks: "  external: {command: [python3, cmd.py]}\n")
        defer { f.remove() }
        try """
        print("instar:progress 15/10", flush=True)
        print("instar:progress -3/10", flush=True)
        print("instar:progress 4/0", flush=True)
        """.write(to: f.dir.appendingPathComponent("cmd.py"), atomically: true, encoding: .utf8)
        let cli = try f.instar(["migrate", f.plan, "--store", f.store, "--allow-commands", "--progress", "bar"])
        #expect(cli.status == 0, "\(cli)")
        #expect(cli.stdout.contains("external 15/10") && cli.stdout.contains("external -3/10"), "\(cli.stdout)")
        #expect(try f.version() == "V2")
    }

    /// A backup killed while it was written is rolled back to an empty database (or is a 0-byte file),
    /// and `--backup` then refuses the occupied name, so the user reaches for `instar restore` with
    /// it. That copied the emptiness over the store: every table gone, exit 0. It is refused now, and
    /// the store keeps every row.
    @Test(arguments: [false, true]) func restoreRefusesAnEmptyBackup(headerOnly: Bool) throws {
        let f = try RuntimeFixture(rows: 4, stage: "after: []", hooks: "  unused: {sql: ['SELECT 1']}\n")
        defer { f.remove() }
        let backup = f.dir.appendingPathComponent("before.sqlite").path
        FileManager.default.createFile(atPath: backup, contents: Data())
        if headerOnly {  // a database file with a header and no table, as a rolled-back copy leaves it
            let queue = try DatabaseQueue(path: backup)
            try queue.write { db in try db.execute(sql: "PRAGMA user_version = 7") }
            try queue.close()
        }
        let before = try f.userContent()
        let restored = try f.instar(["restore", "--backup", backup, "--store", f.store])
        #expect(restored.status == 65, "\(restored)")
        #expect(restored.stderr.contains("empty database") && restored.stderr.contains("nothing was changed"), "\(restored)")
        #expect(try f.userContent() == before)
        #expect(try f.version() == "V1")
    }
}
