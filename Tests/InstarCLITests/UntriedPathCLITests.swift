import Foundation
import GRDB
@_spi(Layouts) import Instar
import Testing
@_spi(Layouts) import InstarStore
import InstarTestSupport
import InstarRuntimeTestSupport
import InstarStoreTestSupport
@testable import InstarCLI  // ErrorHints, the words the CLI adds to a library error

/// The cases of UntriedPathTests (InstarRuntimeTests) that run `instar`.
@Suite struct UntriedPathCLITests {
    /// A backup killed while it was written is rolled back to an empty database (or is a 0-byte file),
    /// and `--backup` then refuses the occupied name, so the user reaches for `instar restore` with
    /// it. That copied the emptiness over the store: every table gone, exit 0. It is refused now, and
    /// the store keeps every row.
    @Test(arguments: [false, true]) func restoreRefusesAnEmptyBackup(headerOnly: Bool) throws {
        let f = try RuntimeFixture.cli(rows: 4, stage: "after: []", hooks: "  unused: {sql: ['SELECT 1']}\n")
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
        // The library's check refuses it (not a database to restore: no tables), as the CLI prints it.
        let refusal = try #require(#expect(throws: StoreError.self) { try SQLiteStore.checkBackup(backup) })
        #expect(refusal.kind == .notADatabase && refusal.path == backup && refusal.sqlite == nil, "\(refusal)")
        #expect(restored.stderr == "instar: \(ErrorHints.text(refusal, store: f.store))\n", "\(restored)")
        #expect(try f.userContent() == before)
        #expect(try f.version() == "V1")
    }

    /// `--time-budget` and `--wait` are parsed as Doubles, so `nan` was accepted: `--time-budget nan`
    /// paused before the first write on every run (exit 75, "the time budget is spent"), a run that
    /// can never progress. NaN and negative seconds are a bad command line (64) now, before the store
    /// is opened; `inf` (no limit) still runs.
    @Test(arguments: ["--time-budget=nan", "--time-budget=-1", "--wait=nan", "--wait=-2"])
    func nonsenseSecondsAreABadCommandLine(option: String) throws {
        let f = try RuntimeFixture.cli(rows: 3, stage: "after: []", hooks: "  unused: {sql: ['SELECT 1']}\n")
        defer { f.remove() }
        let before = try f.bytes()
        let cli = runInstarInProcess(["migrate", f.plan, "--store", f.store, option])  // refused while parsing: no run
        #expect(cli.status == 64, "a bad command line (the words: golden cli/migrate-refusals.txt): \(cli)")
        #expect(try f.bytes() == before)
        if option.hasPrefix("--time-budget") {
            let unlimited = try f.instar(["migrate", f.plan, "--store", f.store, "--time-budget=inf"])
            #expect(unlimited.status == 0, "\(unlimited)")
        }
    }
}
