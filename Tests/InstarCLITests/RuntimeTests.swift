import Foundation
import GRDB
@_spi(Layouts) import Instar
import Testing
@testable import InstarCLI
import InstarTestSupport
import InstarRuntimeTestSupport
import InstarStoreTestSupport

/// The migration runtime: each hook kind's guarantee, resuming after a failure or a kill in every
/// phase, refusal when the plan changed, the lease between real processes, time budgets, signals,
/// backups and restores.
///
/// Every test builds a tiny two-version history in a temporary folder: V1 → V2 adds `Item.note`
/// (in place), and the stage V1 → V2 runs the hooks under test. `Item.n` counts how often a hook
/// touched a row; `Log` collects one row per run of a hook, so "exactly once" is a row count.
@Suite struct RuntimeTests {
    // MARK: SQL hooks

    /// SQL hooks inside the step's transaction, and a SQL hook that commits on its own between two
    /// Swift hooks: each runs exactly once although the run fails twice after them and is retried.
    @Test func sqlHooksRunExactlyOnceAcrossFailures() throws {
        let f = try RuntimeFixture.cli(
            stage: "before: [logBefore]\n    after: [logInside, flakyA, logAlone, flakyB]",
            hooks: """
                  logBefore:
                    sql: ["INSERT INTO \\"Log\\" (\\"msg\\") VALUES ('before')"]
                  logInside:
                    sql: ["INSERT INTO \\"Log\\" (\\"msg\\") VALUES ('inside')"]
                  logAlone:
                    sql: ["INSERT INTO \\"Log\\" (\\"msg\\") VALUES ('alone')"]
                  flakyA: {swift: flakyA}
                  flakyB: {swift: flakyB}
                """)
        defer { f.remove() }
        let flakyA = FailOnce(), flakyB = FailOnce()
        let migrator = try f.migrator()
        migrator.register(hook: "flakyA", flakyA.hook)
        migrator.register(hook: "flakyB", flakyB.hook)

        // 1st run: the step (with logBefore and logInside) commits, then flakyA fails.
        #expect(throws: HookError.self) { try migrator.migrate(storeAt: f.store) }
        var journal = try #require(try f.journal())
        #expect(journal.status == .failed && journal.phase == .after && journal.hook == 0)
        #expect(journal.lastError?.contains("hook 'flakyA' failed") == true)
        #expect(try f.logCounts() == ["before": 1, "inside": 1])
        // 2nd run: flakyA passes, logAlone commits on its own, flakyB fails.
        #expect(throws: HookError.self) { try migrator.migrate(storeAt: f.store) }
        journal = try #require(try f.journal())
        #expect(journal.status == .failed && journal.phase == .after && journal.hook == 2)
        #expect(journal.lastError?.contains("hook 'flakyB' failed") == true)
        #expect(try f.logCounts() == ["before": 1, "inside": 1, "alone": 1])
        // 3rd run finishes without running any SQL hook again.
        #expect(try migrator.migrate(storeAt: f.store) == .finished(steps: 1))
        journal = try #require(try f.journal())
        #expect(journal.status == .finished && journal.attempts == 3 && journal.lastError != nil)
        #expect(try f.logCounts() == ["before": 1, "inside": 1, "alone": 1])
        #expect(flakyA.calls == 2 && flakyB.calls == 2)
        #expect(try f.version() == "V2")
    }

    static let crashPoints = [
        "step.statement", "step.before-commit", "step.after-commit", "batch.before-commit@3", "batch.after-commit@2",
        "hook.before-commit@2", "hook.after-commit@2", "step.done.before-commit", "step.done.after-commit",
    ]

    /// A real `instar migrate` killed with SIGKILL at a failpoint, then run again: every SQL hook's
    /// rows appear once and the batched hook touched every row once, wherever the kill happened.
    @Test(arguments: crashPoints) func killedCLIRunResumesExactlyOnce(failpoint: String) throws {
        let f = try RuntimeFixture.cli(
            rows: 10,
            stage: "before: [logBefore]\n    after: [logInside, bump, logAlone]",
            hooks: """
                  logBefore:
                    sql: ["INSERT INTO \\"Log\\" (\\"msg\\") VALUES ('before')"]
                  logInside:
                    sql: ["INSERT INTO \\"Log\\" (\\"msg\\") VALUES ('inside')"]
                  bump:
                    batchedSQL: {table: Item, size: 3, sql: 'UPDATE "Item" SET "n" = "n" + 1 WHERE "_pk" BETWEEN :start AND :end'}
                  logAlone:
                    sql: ["INSERT INTO \\"Log\\" (\\"msg\\") VALUES ('alone')"]
                """)
        defer { f.remove() }
        let killed = try f.instar(["migrate", f.plan, "--store", f.store], environment: ["INSTAR_FAILPOINT": failpoint])
        #expect(killed.reason == .uncaughtSignal && killed.status == SIGKILL, "\(failpoint): \(killed)")
        let status = try f.instar(["status", "--store", f.store, "--format", "json"])
        if ["step.statement", "step.before-commit"].contains(failpoint) {
            // Killed in the run's first transaction, which carries the lease claim and the journal's
            // start: nothing was committed, so the store is as it was, with no run and no lease.
            #expect(status.json?["unfinished"] as? Bool == false && status.json?["lease"] == nil, "\(failpoint): \(status)")
        } else if failpoint == "step.done.after-commit" {
            // Past the last step's hooks, moving on is the finish: that commit ended the run and released
            // the lease, so there is nothing left for the next run to do.
            #expect(status.status == 0 && status.json?["unfinished"] as? Bool == false && status.json?["lease"] == nil, "\(failpoint): \(status)")
        } else {
            // The dead process's lease is left behind; status says so and the next run takes over.
            #expect(status.status == 1 && status.json?["unfinished"] as? Bool == true, "\(failpoint): \(status)")
            let lease = status.json?["lease"] as? [String: Any]
            #expect(lease?["alive"] as? Bool == false && lease?["pid"] as? Int == Int(killed.pid), "\(failpoint)")
        }

        let resumed = try f.instar(["migrate", f.plan, "--store", f.store])
        #expect(resumed.status == 0, "\(failpoint): \(resumed)")
        #expect(try f.logCounts() == ["before": 1, "inside": 1, "alone": 1], "\(failpoint)")
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == Array(repeating: 1, count: 10), "\(failpoint)")
        #expect(try f.version() == "V2")
        let done = try f.instar(["status", "--store", f.store, "--format", "json"])
        #expect(done.status == 0 && done.json?["unfinished"] as? Bool == false && done.json?["lease"] == nil, "\(failpoint): \(done)")
    }

    // MARK: Batched SQL hooks

    /// Killed right after the 2nd batch committed: the journal holds that batch's last key, and the
    /// next run continues with the 3rd batch, so every row is updated exactly once.
    @Test func batchedSQLResumesAfterTheLastCommittedBatch() throws {
        let f = try RuntimeFixture.cli(
            rows: 20, stage: "after: [bump]",
            hooks: """
                  bump:
                    batchedSQL: {table: Item, size: 3, sql: 'UPDATE "Item" SET "n" = "n" + 1 WHERE "_pk" BETWEEN :start AND :end'}
                """)
        defer { f.remove() }
        let killed = try f.instar(
            ["migrate", f.plan, "--store", f.store, "--progress", "lines"], environment: ["INSTAR_FAILPOINT": "batch.after-commit@2"])
        #expect(killed.reason == .uncaughtSignal && killed.status == SIGKILL, "\(killed)")
        let journal = try #require(try f.journal())
        #expect(journal.status == .running && journal.phase == .after && journal.hook == 0 && journal.checkpoint == "6")
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == Array(repeating: 1, count: 6) + Array(repeating: 0, count: 14))

        let resumed = try f.instar(["migrate", f.plan, "--store", f.store, "--progress", "json"])
        #expect(resumed.status == 0, "\(resumed)")
        let started = progressEvents(resumed.stdout).first { $0.resumedAt != nil }
        #expect(started?.resumedAt == "step 1/1 (V1 → V2), after phase, hook 1 at checkpoint 6", "\(resumed.stdout)")
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == Array(repeating: 1, count: 20))
    }

    // MARK: Swift hooks

    /// A Swift hook working through `context.batches` throws in its 3rd batch on the first attempt:
    /// that batch rolls back, the two before it stay committed with their checkpoint, and the retry
    /// (`isResumed`) continues from there. Every row is updated exactly once; progress is reported on
    /// the callback and on the `AsyncStream`.
    @Test func swiftHookBatchesResumeExactlyOnce() async throws {
        let f = try RuntimeFixture.cli(rows: 10, stage: "after: [native]", hooks: "  native: {swift: fill}\n")
        defer { f.remove() }
        let migrator = try f.migrator()
        let state = SwiftHookState()
        migrator.register(hook: "fill") { context in
            state.attempts += 1
            state.resumed.append(context.isResumed)
            state.startCheckpoints.append(context.checkpoint)
            #expect(context.step == "V1 → V2" && context.phase == .after && context.storePath == f.store)
            var batch = 0
            try context.batches(of: "Item", size: 3) { db, range in
                batch += 1
                try db.execute(
                    sql: #"UPDATE "Item" SET "n" = "n" + 1 WHERE "_pk" BETWEEN ? AND ?"#,
                    arguments: [range.lowerBound, range.upperBound])
                if state.attempts == 1 && batch == 3 { throw Flaky() }  // after its update: must roll back
            }
        }
        let events = migrator.progressEvents()
        var callbackEvents: [ProgressEvent] = []
        #expect(throws: HookError.self) { try migrator.migrate(storeAt: f.store) { callbackEvents.append($0) } }
        var journal = try #require(try f.journal())
        #expect(journal.status == .failed && journal.phase == .after && journal.hook == 0)
        #expect(journal.checkpoint == "6", "the journal keeps the checkpoint of the last committed batch")
        #expect(journal.lastError?.contains("hook 'native' failed") == true)
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == [1, 1, 1, 1, 1, 1, 0, 0, 0, 0])

        // A stream covers one run and finishes with it: ask for another one for the retry.
        let retryEvents = migrator.progressEvents()
        #expect(try migrator.migrate(storeAt: f.store) { callbackEvents.append($0) } == .finished(steps: 1))
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == Array(repeating: 1, count: 10))
        #expect(state.attempts == 2)
        #expect(state.resumed == [false, true])
        #expect(state.startCheckpoints == [nil, "6"])
        journal = try #require(try f.journal())
        #expect(journal.status == .finished && journal.attempts == 2)

        // Batches 1, 2 on the first attempt; 3 and 4 (of 4) on the second.
        let hookEvents = callbackEvents.compactMap { event -> [Int]? in
            if case .hook("native", let done, let total?) = event { return [done, total] }
            return nil
        }
        #expect(hookEvents == [[1, 4], [2, 4], [3, 4], [4, 4]])
        #expect(callbackEvents.contains { if case .started(_, 1, let at?) = $0 { at.contains("after phase") } else { false } })
        // The streams saw the same events as the callback, and both finished with their run.
        var streamed: [ProgressEvent] = []
        for await event in events { streamed.append(event) }
        for await event in retryEvents { streamed.append(event) }
        #expect(streamed == callbackEvents)
    }

    /// `context.write` commits its work with its checkpoint; an unregistered Swift hook is a clear error.
    @Test func swiftHookWriteAndMissingRegistration() throws {
        let f = try RuntimeFixture.cli(rows: 3, stage: "before: [native]", hooks: "  native: {swift: fill}\n")
        defer { f.remove() }
        let migrator = try f.migrator()
        let before = try f.bytes()
        let error = #expect(throws: HookError.self) { try migrator.migrate(storeAt: f.store) }
        #expect(error?.kind == .notDefined)
        #expect(error?.missing == [MissingHook(hook: "native", step: "V1 → V2", reason: .notRegistered("fill"))])
        #expect(try f.version() == "V1")
        #expect(try f.bytes() == before, "a missing hook is found before anything is written")
        let checkpoints = Box<[String?]>([])
        migrator.register(hook: "fill") { context in
            checkpoints.value.append(context.checkpoint)
            try context.write(checkpoint: "wrote") { db in
                try db.execute(sql: #"INSERT INTO "Log" ("msg") VALUES ('swift')"#)
            }
            checkpoints.value.append(context.checkpoint)
        }
        #expect(try migrator.migrate(storeAt: f.store) == .finished(steps: 1))
        #expect(checkpoints.value == [nil, "wrote"])
        #expect(try f.logCounts() == ["swift": 1])
        #expect(try f.version() == "V2")
    }

    // MARK: Command hooks

    @Test func commandHooksNeedAllowCommands() throws {
        let f = try RuntimeFixture.cli(stage: "before: [external]", hooks: "  external: {command: [python3, -c, 'pass']}\n")
        defer { f.remove() }
        let migrator = try f.migrator()
        let error = #expect(throws: HookError.self) { try migrator.migrate(storeAt: f.store) }
        #expect(error?.hook == "external")
        // The library says what happened; only the CLI names its flag.
        #expect(error?.kind == .commandsNotAllowed)
        #expect(error?.description.contains("--") == false)
        #expect(try f.version() == "V1")
        #expect(try f.journal() == nil, "refused before anything is written")

        let cli = try f.instar(["migrate", f.plan, "--store", f.store])
        // The CLI prints the library's error with its flag (the words: golden error-hints.txt, hook.commandsNotAllowed).
        let hinted = ErrorHints.text(try #require(error), resume: "instar migrate \(f.plan) --store \(f.store)")
        #expect(cli.status == 1 && cli.stderr == "instar: \(hinted)\n", "\(cli)")
        let allowed = try f.instar(["migrate", f.plan, "--store", f.store, "--allow-commands"])
        #expect(allowed.status == 0, "\(allowed)")
        #expect(try f.version() == "V2")
    }

    /// A command gets the store, its checkpoint and whether it is resumed; its `instar:checkpoint`
    /// lines commit to the journal. It fails after checkpoint `b` on its first run; the retry is told
    /// `INSTAR_RESUMED=1` and `INSTAR_CHECKPOINT=b` (at least once).
    @Test func commandHookGetsCheckpointAndResumedFlag() throws {
        let f = try RuntimeFixture.cli(stage: "after: [external]", hooks: "  external: {command: [python3, cmd.py]}\n")
        defer { f.remove() }
        try """
        import os, sys
        with open("env.log", "a") as log:
            log.write("%s|%s|%s|%s|%s\\n" % (os.environ["INSTAR_STORE"], os.environ["INSTAR_CHECKPOINT"],
                os.environ["INSTAR_RESUMED"], os.environ["INSTAR_HOOK"], os.environ["INSTAR_PHASE"]))
        print("instar:checkpoint a", flush=True)
        print("instar:progress 1/2", flush=True)
        print("instar:checkpoint b", flush=True)
        if not os.path.exists("second-time"):
            open("second-time", "w").close()
            sys.exit(3)
        print("instar:progress 2/2", flush=True)
        """.write(to: f.dir.appendingPathComponent("cmd.py"), atomically: true, encoding: .utf8)
        let migrator = try f.migrator()
        migrator.allowCommands = true
        var events: [ProgressEvent] = []
        let error = #expect(throws: HookError.self) { try migrator.migrate(storeAt: f.store) { events.append($0) } }
        #expect(error?.kind == .failed && error?.exitStatus == 3, "\(String(describing: error))")
        var journal = try #require(try f.journal())
        #expect(journal.status == .failed && journal.phase == .after && journal.hook == 0 && journal.checkpoint == "b")
        #expect(try f.version() == "V2")  // the step itself committed before the after hooks

        #expect(try migrator.migrate(storeAt: f.store) { events.append($0) } == .finished(steps: 1))
        journal = try #require(try f.journal())
        #expect(journal.status == .finished && journal.attempts == 2)
        let lines = try String(contentsOf: f.dir.appendingPathComponent("env.log"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(lines == ["\(f.store)||0|external|after", "\(f.store)|b|1|external|after"])
        #expect(events.filter { $0 == .hook(name: "external", done: 1, total: 2) }.count == 2)
        #expect(events.contains(.hook(name: "external", done: 2, total: 2)))
    }

    /// At least once also across a kill: a command that was running when `instar` was killed runs
    /// again, told that it is resumed (it may have done part of its work).
    @Test func commandHookRunningDuringAKillIsToldItIsResumed() throws {
        let f = try RuntimeFixture.cli(stage: "before: [external]", hooks: "  external: {command: [python3, wait.py]}\n")
        defer { f.remove() }
        try f.writeWaitScript()
        let first = try f.start(["migrate", f.plan, "--store", f.store, "--allow-commands"])
        defer { first.kill() }
        #expect(f.waitForFile("started"), "the command hook never started: \(first.result())")
        first.kill()
        try f.touch("release")
        let second = try f.instar(["migrate", f.plan, "--store", f.store, "--allow-commands"])
        #expect(second.status == 0, "\(second)")
        let runs = try String(contentsOf: f.dir.appendingPathComponent("wait.log"), encoding: .utf8).split(separator: "\n")
        #expect(runs == ["resumed=0 checkpoint=", "resumed=1 checkpoint="])
    }

    // MARK: Failures in each phase

    /// A Swift hook of the `before` phase fails once: nothing of the step is committed, the journal and
    /// `instar status` say where and why, and the next run retries it and finishes.
    @Test func failureBeforeTheStepResumes() throws {
        let f = try RuntimeFixture.cli(stage: "before: [flaky]\n    after: [logInside]", hooks: Self.flakyHooks)
        defer { f.remove() }
        let flaky = FailOnce()
        let migrator = try f.migrator()
        migrator.register(hook: "flaky", flaky.hook)
        #expect(throws: HookError.self) { try migrator.migrate(storeAt: f.store) }
        #expect(try f.version() == "V1")
        #expect(try f.logCounts() == [:])
        try expectFailedStatus(f, phase: "before", error: "hook 'flaky' failed in step V1 → V2")

        #expect(try migrator.migrate(storeAt: f.store) == .finished(steps: 1))
        try expectFinished(f, attempts: 2)
    }

    /// The step's transaction fails (the data does not satisfy V2: NULLs where `label` becomes
    /// required) in a fresh run's first transaction: rolled back, and the store is byte for byte as it
    /// was (no journal, no lease: nothing records an attempt that changed nothing); after fixing the
    /// data the next run starts afresh and finishes.
    @Test func failureInTheFirstTransactionLeavesTheStoreUntouched() throws {
        let f = try RuntimeFixture.cli(
            rows: 4, v2Label: "string", stage: "before: [logBefore]\n    after: [logInside]", hooks: Self.flakyHooks)
        defer { f.remove() }
        try f.execute(#"UPDATE "Item" SET "label" = 'x' WHERE "_pk" <> 3"#)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: f.store))
        let migrator = try f.migrator()
        #expect(throws: StoreError.self) { try migrator.migrate(storeAt: f.store) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.store)) == bytes)
        try expectNoJournal(f)

        try f.execute(#"UPDATE "Item" SET "label" = 'fixed' WHERE "label" IS NULL"#)
        #expect(try migrator.migrate(storeAt: f.store) == .finished(steps: 1))
        try expectFinished(f, attempts: 1)
        #expect(try f.logCounts() == ["before": 1, "inside": 1])
    }

    /// A SQL hook inside a fresh run's first transaction fails: the step rolls back with it, the store
    /// is unchanged, and the CLI says so (no "instar status" to look at, nothing to resume).
    @Test func failingSQLHookRollsBackTheStep() throws {
        let f = try RuntimeFixture.cli(
            stage: "after: [logInside, broken]",
            hooks: Self.flakyHooks + "  broken:\n    sql: [\"INSERT INTO \\\"Nope\\\" VALUES (1)\"]\n")
        defer { f.remove() }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: f.store))
        let cli = try f.instar(["migrate", f.plan, "--store", f.store])
        #expect(cli.status == 1, "\(cli)")
        #expect(!cli.stderr.contains("instar status"), "\(cli.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.store)) == bytes)
        try expectNoJournal(f)
        // The same run in the library: the facts the CLI's words come from (the words: golden
        // error-hints.txt, "hook.failed (a fresh run's first transaction: the store unchanged)").
        let error = try #require(#expect(throws: HookError.self) { try f.migrator().migrate(storeAt: f.store) })
        #expect(error.kind == .failed && error.hook == "broken" && error.step == "V1 → V2" && error.storeUnchanged, "\(error)")
        let sqlite = try #require(error.underlying as? StoreError, "\(String(describing: error.underlying))")
        #expect(sqlite.sqlite?.code == 1 && sqlite.sqlite?.message == "no such table: Nope", "\(sqlite)")
        #expect(cli.stderr == "instar: \(ErrorHints.text(error, resume: "instar migrate \(f.plan) --store \(f.store)"))\n", "\(cli.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.store)) == bytes)
        try expectNoJournal(f)
    }

    /// The failure comes after an earlier run of the same chain committed (here: a resumed run whose
    /// first transaction fails): the journal keeps the failure, and status shows it.
    @Test func failureOfAResumedRunIsRecorded() throws {
        let f = try RuntimeFixture.cli(
            rows: 4, v2Label: "string", stage: "before: [flaky, logBefore]\n    after: [logInside]", hooks: Self.flakyHooks)
        defer { f.remove() }
        let flaky = FailOnce()
        let migrator = try f.migrator()
        migrator.register(hook: "flaky", flaky.hook)
        try f.execute(#"UPDATE "Item" SET "label" = 'x' WHERE "_pk" <> 3"#)
        #expect(throws: HookError.self) { try migrator.migrate(storeAt: f.store) }  // records the start, then fails
        #expect(throws: StoreError.self) { try migrator.migrate(storeAt: f.store) }  // resumed: the step fails
        #expect(try f.version() == "V1")
        let status = try f.instar(["status", "--store", f.store, "--format", "json"])
        let journal = status.json?["journal"] as? [String: Any]
        #expect(journal?["status"] as? String == "failed" && journal?["attempts"] as? Int == 2, "\(status)")
        #expect((journal?["lastError"] as? String)?.contains("hold NULL in 'label'") == true, "\(journal ?? [:])")
    }

    /// A Swift hook of the `after` phase fails once: the step stays committed (the store is at V2),
    /// and the next run only runs the remaining hooks.
    @Test func failureAfterTheStepResumes() throws {
        let f = try RuntimeFixture.cli(stage: "after: [logInside, flaky, logAlone]", hooks: Self.flakyHooks)
        defer { f.remove() }
        let flaky = FailOnce()
        let migrator = try f.migrator()
        migrator.register(hook: "flaky", flaky.hook)
        #expect(throws: HookError.self) { try migrator.migrate(storeAt: f.store) }
        #expect(try f.version() == "V2")
        #expect(try f.logCounts() == ["inside": 1])
        try expectFailedStatus(f, phase: "after", error: "hook 'flaky' failed in step V1 → V2")

        // `instar status` shows where the run stands (its words: the golden transcript cli/status-failed.txt).
        let status = try f.instar(["status", "--store", f.store, "--format", "json"])
        #expect(status.status == 1)
        let journal = try decodeMember("journal", as: JournalEntry.self, status.stdout)
        // The first hook committed on its own ('logInside' runs inside the step): "hook 1" in the text.
        #expect(status.json?["unfinished"] as? Bool == true && journal.status == .failed && journal.phase == .after && journal.hook == 0, "\(journal)")
        #expect(journal.lastError?.hasPrefix("hook 'flaky' failed") == true && journal.planFile == f.plan)
        #expect(try f.instar(["status", "--store", f.store]).status == 1)

        #expect(try migrator.migrate(storeAt: f.store) == .finished(steps: 1))
        try expectFinished(f, attempts: 2)
        #expect(try f.logCounts() == ["inside": 1, "alone": 1])
    }

    static let flakyHooks = """
          flaky: {swift: flaky}
          logBefore:
            sql: ["INSERT INTO \\"Log\\" (\\"msg\\") VALUES ('before')"]
          logInside:
            sql: ["INSERT INTO \\"Log\\" (\\"msg\\") VALUES ('inside')"]
          logAlone:
            sql: ["INSERT INTO \\"Log\\" (\\"msg\\") VALUES ('alone')"]

        """

    func expectFailedStatus(_ f: RuntimeFixture, phase: String, error: String, sourceLocation: Testing.SourceLocation = #_sourceLocation)
        throws
    {
        let status = try f.instar(["status", "--store", f.store, "--format", "json"])
        #expect(status.status == 1, "\(status)", sourceLocation: sourceLocation)
        #expect(status.json?["unfinished"] as? Bool == true, sourceLocation: sourceLocation)
        let journal = status.json?["journal"] as? [String: Any]
        #expect(journal?["status"] as? String == "failed", sourceLocation: sourceLocation)
        #expect(journal?["phase"] as? String == phase, sourceLocation: sourceLocation)
        #expect(journal?["attempts"] as? Int == 1, sourceLocation: sourceLocation)
        #expect((journal?["lastError"] as? String)?.contains(error) == true, "\(journal ?? [:])", sourceLocation: sourceLocation)
        #expect(status.json?["lease"] == nil, "a failed run releases its lease", sourceLocation: sourceLocation)
    }

    func expectNoJournal(_ f: RuntimeFixture, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let status = try f.instar(["status", "--store", f.store, "--format", "json"])
        #expect(status.json?["journal"] == nil && status.json?["lease"] == nil, "\(status)", sourceLocation: sourceLocation)
        #expect(try f.version() == "V1", sourceLocation: sourceLocation)
    }

    func expectFinished(_ f: RuntimeFixture, attempts: Int, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let status = try f.instar(["status", "--store", f.store, "--format", "json"])
        #expect(status.status == 0, "\(status)", sourceLocation: sourceLocation)
        let journal = status.json?["journal"] as? [String: Any]
        #expect(journal?["status"] as? String == "finished", sourceLocation: sourceLocation)
        #expect(journal?["attempts"] as? Int == attempts, sourceLocation: sourceLocation)
        #expect(try f.version() == "V2", sourceLocation: sourceLocation)
    }

    // MARK: Plan changed

    /// Killed midway, then the batched hook's SQL is edited: resuming would apply different work to
    /// the remaining batches, so it is refused naming the step, and nothing changes. With the plan as
    /// it was, the run resumes.
    @Test func changedPlanRefusesToResume() throws {
        let original = """
              bump:
                batchedSQL: {table: Item, size: 3, sql: 'UPDATE "Item" SET "n" = "n" + 1 WHERE "_pk" BETWEEN :start AND :end'}
            """
        let f = try RuntimeFixture.cli(rows: 12, stage: "after: [bump]", hooks: original)
        defer { f.remove() }
        let killed = try f.instar(["migrate", f.plan, "--store", f.store], environment: ["INSTAR_FAILPOINT": "batch.after-commit@2"])
        #expect(killed.reason == .uncaughtSignal, "\(killed)")

        try f.writePlan(stage: "after: [bump]", hooks: original.replacingOccurrences(of: "+ 1", with: "+ 2"))
        let refused = try f.instar(["migrate", f.plan, "--store", f.store])
        #expect(refused.status == 1, "\(refused)")
        let error = try #require(#expect(throws: ResumeRefused.self) { try f.migrator().migrate(storeAt: f.store) })
        #expect(error.reason == .stepChanged(index: 1, from: "V1", to: "V2"))
        // The CLI prints that refusal (its words: golden error-hints.txt, resume.stepChanged).
        #expect(refused.stderr == "instar: \(ErrorHints.text(error, resume: "instar migrate \(f.plan) --store \(f.store)"))\n", "\(refused.stderr)")
        let journal = try #require(try f.journal())
        #expect(journal.status == .running && journal.checkpoint == "6" && journal.attempts == 1)
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == Array(repeating: 1, count: 6) + Array(repeating: 0, count: 6))

        try f.writePlan(stage: "after: [bump]", hooks: original)
        // An unknown target is refused before the store is opened; a resumed run keeps its target.
        let before = try Data(contentsOf: URL(fileURLWithPath: f.store))
        let unknown = try f.instar(["migrate", f.plan, "--store", f.store, "--to", "V9"])
        let unknownTarget = try #require(#expect(throws: StoreError.self) { try f.migrator().migrate(storeAt: f.store, to: "V9") })
        #expect(unknownTarget.kind == .unknownVersion, "\(unknownTarget)")
        #expect(unknown.status == 1 && unknown.stderr == "instar: \(ErrorHints.text(unknownTarget))\n", "\(unknown)")
        let elsewhere = try f.instar(["migrate", f.plan, "--store", f.store, "--to", "V1"])
        let otherTarget = try #require(#expect(throws: ResumeRefused.self) { try f.migrator().migrate(storeAt: f.store, to: "V1") })
        #expect(otherTarget.reason == .otherTarget(unfinishedTarget: "V2", requested: "V1"), "\(otherTarget)")
        let resumeV1 = "instar migrate \(f.plan) --store \(f.store) --to 'V1'"
        #expect(elsewhere.status == 1 && elsewhere.stderr == "instar: \(ErrorHints.text(otherTarget, resume: resumeV1))\n", "\(elsewhere)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.store)) == before)
        let resumed = try f.instar(["migrate", f.plan, "--store", f.store])
        #expect(resumed.status == 0, "\(resumed)")
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == Array(repeating: 1, count: 12))
    }

    // MARK: Lease

    /// Two real `instar migrate` processes: while the first runs (held inside a command hook), the
    /// second exits 2 naming the first's pid; a third with `--wait` waits for it and then finds
    /// nothing left to do.
    @Test func secondProcessIsLockedOutOrWaits() throws {
        let f = try RuntimeFixture.cli(stage: "before: [external]", hooks: "  external: {command: [python3, wait.py]}\n")
        defer { f.remove() }
        try f.writeWaitScript()
        let first = try f.start(["migrate", f.plan, "--store", f.store, "--allow-commands"])
        defer { first.kill() }
        #expect(f.waitForFile("started"), "the first migration never reached its hook: \(first.result())")

        let locked = try f.instar(["migrate", f.plan, "--store", f.store, "--allow-commands"])
        #expect(locked.status == 2, "\(locked)")
        let sameRun = try f.migrator()
        sameRun.allowCommands = true  // as the CLI's --allow-commands: the lease is what refuses it
        let held = try #require(#expect(throws: LeaseError.self) { try sameRun.migrate(storeAt: f.store) })
        #expect(held.holder.pid == first.pid && held.path == f.store, "\(held)")
        // The CLI prints that error with its hint (the words: golden error-hints.txt, lease).
        #expect(locked.stderr == "instar: \(ErrorHints.text(held))\n", "\(locked.stderr)")
        let status = try f.instar(["status", "--store", f.store, "--format", "json"])
        let lease = status.json?["lease"] as? [String: Any]
        #expect(lease?["pid"] as? Int == Int(first.pid) && lease?["alive"] as? Bool == true, "\(status)")
        let restore = try f.instar(["restore", "--backup", f.dir.appendingPathComponent("any.sqlite").path, "--store", f.store])
        #expect(restore.status == 2, "\(restore)")
        #expect(restore.stderr == "instar: \(ErrorHints.text(held))\n", "the same holder, named by its pid: \(restore)")

        let waiting = try f.start(["migrate", f.plan, "--store", f.store, "--allow-commands", "--wait", "300", "--progress", "json"])
        defer { waiting.kill() }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(waiting.isRunning, "--wait should wait while the first holds the store: \(waiting.result())")
        try f.touch("release")
        let firstResult = first.result(timeout: 300)  // bounds a hang only: a slow machine needs no less
        #expect(firstResult.status == 0 && firstResult.reason == .exit, "\(firstResult)")
        let waited = waiting.result(timeout: 300)
        #expect(waited.status == 0, "\(waited)")
        #expect(progressEvents(waited.stdout).isEmpty, "already at the target, it ran nothing: \(waited)")
        #expect(try f.version() == "V2")
    }

    /// A lease left by a process that no longer runs (same host) is taken over; one held by a live
    /// process is not. Another host's lease counts as alive until its heartbeat is stale.
    @Test func staleLeasesAreTakenOverLiveOnesAreNot() throws {
        let f = try RuntimeFixture.cli(rows: 5, stage: "after: [logInside]", hooks: Self.flakyHooks)
        defer { f.remove() }
        let host = ProcessInfo.processInfo.hostName

        // A live process on this host.
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["86400"]  // alive until the test stops it, however long the test takes
        try sleeper.run()
        defer { stopProcess(sleeper) }
        try f.writeLease(pid: sleeper.processIdentifier, host: host)
        let locked = try f.instar(["migrate", f.plan, "--store", f.store])
        let error = try #require(#expect(throws: LeaseError.self) { try f.migrator().migrate(storeAt: f.store) })
        #expect(error.holder.pid == sleeper.processIdentifier)
        #expect(locked.status == 2 && locked.stderr == "instar: \(ErrorHints.text(error))\n", "naming the holder: \(locked)")
        #expect(try f.version() == "V1")

        // Another host, fresh heartbeat: alive; stale heartbeat: taken over.
        try f.writeLease(pid: 1, host: "elsewhere.example")
        #expect(throws: LeaseError.self) { try f.migrator().migrate(storeAt: f.store) }
        try f.writeLease(pid: 1, host: "elsewhere.example", heartbeat: Date().addingTimeInterval(-Lease.staleAfter - 5))

        // A dead process on this host.
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let status = try f.instar(["status", "--store", f.store, "--format", "json"])
        #expect((status.json?["lease"] as? [String: Any])?["alive"] as? Bool == false, "\(status)")
        try f.writeLease(pid: dead.processIdentifier, host: host)
        let deadStatus = try f.instar(["status", "--store", f.store, "--format", "json"])
        #expect((deadStatus.json?["lease"] as? [String: Any])?["alive"] as? Bool == false, "\(deadStatus)")
        let taken = try f.instar(["migrate", f.plan, "--store", f.store])
        #expect(taken.status == 0, "\(taken)")
        #expect(try f.version() == "V2")
        #expect(try f.logCounts() == ["inside": 1])
        #expect(try Migrator.status(ofStoreAt: f.store).lease == nil)
    }

    // MARK: Time budget

    /// A count that goes on for as long as the log holds a `hold` row (and ends at once on the empty
    /// tables the planner analyses hooks on): work that only an interrupt stops, on any machine.
    static let countWhileHeld = #"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE EXISTS (SELECT 1 FROM "Log" WHERE "msg" = ''hold'')) SELECT count(*) FROM c"#

    /// `--time-budget` stops at a safe point with exit 75 and says how to resume; runs without a budget
    /// finish, and every row is updated once.
    @Test(.timeLimit(.minutes(3))) func timeBudgetPausesTheCLI() throws {
        let f = try RuntimeFixture.cli(
            rows: 120, stage: "after: [bump]",
            hooks: """
                  bump:
                    batchedSQL: {table: Item, size: 1, sql: 'UPDATE "Item" SET "n" = "n" + 1 WHERE "_pk" BETWEEN :start AND :end AND (:start < 2 OR (\(Self.countWhileHeld)) > 0)'}
                """)
        defer { f.remove() }
        // The second batch counts for as long as a `hold` row is in the log: only the budget stops it.
        try f.execute(#"INSERT INTO "Log" ("msg") VALUES ('hold')"#)
        // A budget spent by the checks before the first write writes nothing.
        let before = try f.bytes()
        let spent = try f.instar(["migrate", f.plan, "--store", f.store, "--time-budget", "0.001"])
        #expect(spent.status == 75, "the budget is spent (75 is a spent budget's status): \(spent)")
        #expect(try f.bytes() == before)
        // It says so, rather than "everything done so far is committed", and names the dry run that
        // tells which units a budget does not fit: a loop of retries with that budget may never progress.
        #expect(spent.stdout.contains("spent before this launch committed any work; the store is as it was"), "\(spent)")
        #expect(spent.stdout.contains("--time-budget 0.001' names the units that do not fit"), "\(spent)")
        #expect(!spent.stdout.contains("Everything done so far is committed"), "\(spent)")
        // A budget that runs out inside the batched hook stops there, the step committed. Budgets
        // doubling until one reaches the hook: none can finish, so the first that gets past the checks
        // before the first write pauses inside the hook, on a fast or a loaded machine alike.
        var paused = spent
        for budget in (0..<8).map({ 0.25 * pow(2, Double($0)) }) {
            paused = try f.instar(["migrate", f.plan, "--store", f.store, "--time-budget", String(format: "%.3f", budget), "--progress", "json"])
            if paused.status == 75 && (try? f.journal()) != nil { break }
        }
        #expect(paused.status == 75, "\(paused)")
        #expect(paused.stdout.contains("Everything done so far is committed"), "this launch committed the step: \(paused)")
        // The run's last line is the command that resumes it.
        #expect(paused.stdout.split(separator: "\n").last.map(String.init) == "resume with: instar migrate \(f.plan) --store \(f.store)", "\(paused.stdout)")
        let journal = try #require(try f.journal())
        #expect(journal.status == .paused)
        let status = try f.instar(["status", "--store", f.store, "--format", "json"])
        #expect(status.status == 1, "\(status)")
        #expect(try decodeMember("journal", as: JournalEntry.self, status.stdout).status == .paused, "\(status)")

        try f.execute(#"DELETE FROM "Log" WHERE "msg" = 'hold'"#)
        let finished = try f.instar(["migrate", f.plan, "--store", f.store])
        #expect(finished.status == 0, "\(finished)")
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == Array(repeating: 1, count: 120))
        #expect(try f.version() == "V2")
    }

    /// A budget that runs out in the middle of an SQL hook's batches pauses between two of them, each
    /// batch committed with its checkpoint, and the next calls continue from there. The budget is
    /// counted in work: every row a batch touches moves the run's clock by 0.1 s (an SQL function the
    /// app's configuration adds), so where it runs out never depends on how fast SQLite is here.
    @Test func timeBudgetPausesBetweenBatches() throws {
        let f = try RuntimeFixture.cli(
            rows: 40, stage: "after: [bump]",
            hooks: """
                  bump:
                    batchedSQL:
                      table: Item
                      size: 2
                      sql: 'UPDATE "Item" SET "n" = "n" + 1 WHERE "_pk" BETWEEN :start AND :end AND work() > 0'
                """)
        defer { f.remove() }
        let time = ManualBudgetClock()
        let migrator = try f.migrator()
        migrator.budgetClock = time.clock
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.add(function: DatabaseFunction("work", argumentCount: 0, pure: false) { _ in
                time.advance(by: 0.1)
                return 1
            })
        }
        var results: [MigrationResult] = []
        var checkpoints: [String] = []
        for _ in 0..<40 {
            let result = try migrator.migrate(storeAt: f.store, timeBudget: 0.5, configuration: configuration)
            results.append(result)
            if result == .finished(steps: 1) { break }
            if let checkpoint = try f.journal()?.checkpoint { checkpoints.append(checkpoint) }
        }
        // 0.2 s a batch against 0.5 s: each call commits three batches (the third passes the budget,
        // which is looked at between batches), so 20 batches take seven calls.
        #expect(results == Array(repeating: .paused(.timeBudget), count: 6) + [.finished(steps: 1)])
        #expect(checkpoints.count == 6)
        #expect(Set(checkpoints).count == checkpoints.count, "every call moves the checkpoint on: \(checkpoints)")
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == Array(repeating: 1, count: 40))
        #expect(try f.journal()?.status == .finished)
    }

    /// A Swift hook sees the time budget through `isCancelled`: `batches` stops after the batch that
    /// spent it, the run pauses with the hook's checkpoint, and the next calls continue from there.
    /// Each batch moves the run's clock by 0.05 s, so with a 0.12 s budget every call does three.
    @Test func timeBudgetReachesSwiftHookBatches() throws {
        let f = try RuntimeFixture.cli(rows: 10, stage: "after: [native]", hooks: "  native: {swift: fill}\n")
        defer { f.remove() }
        let time = ManualBudgetClock()
        let migrator = try f.migrator()
        migrator.budgetClock = time.clock
        migrator.register(hook: "fill") { context in
            try context.batches(of: "Item", size: 1) { db, range in
                time.advance(by: 0.05)
                try db.execute(sql: #"UPDATE "Item" SET "n" = "n" + 1 WHERE "_pk" BETWEEN ? AND ?"#, arguments: [range.lowerBound, range.upperBound])
            }
        }
        var done: [Int] = []
        var results: [MigrationResult] = []
        while results.last != .finished(steps: 1) && results.count < 10 {
            results.append(try migrator.migrate(storeAt: f.store, timeBudget: 0.12))
            guard results.last == .paused(.timeBudget), let journal = try f.journal() else { continue }
            let updated = try f.ints(#"SELECT count(*) FROM "Item" WHERE "n" = 1"#).first ?? -1
            done.append(updated)
            #expect(journal.status == .paused)
            #expect(journal.phase == .after && journal.checkpoint == String(updated), "the checkpoint is the last updated key")
        }
        #expect(results == Array(repeating: .paused(.timeBudget), count: 3) + [.finished(steps: 1)])
        #expect(done == [3, 6, 9])
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == Array(repeating: 1, count: 10))
        #expect(try f.journal()?.status == .finished)
    }

    @Test func backupBeforeMigratingAndRestore() throws {
        let f = try RuntimeFixture.cli(
            rows: 8, stage: "after: [logInside, bump]",
            hooks: Self.flakyHooks + """
                  bump:
                    batchedSQL: {table: Item, size: 3, sql: 'UPDATE "Item" SET "n" = "n" + 1, "note" = ''n'' || "_pk" WHERE "_pk" BETWEEN :start AND :end'}
                """)
        defer { f.remove() }
        try f.execute(#"UPDATE "Item" SET "label" = 'L' || "_pk", "n" = "_pk" * 10"#)
        try f.execute(#"INSERT INTO "Log" ("msg") VALUES ('old')"#)
        let items = try f.rows(#"SELECT * FROM "Item" ORDER BY "_pk""#)
        let logs = try f.rows(#"SELECT * FROM "Log" ORDER BY "_pk""#)
        let backup = f.dir.appendingPathComponent("before.sqlite").path

        let migrated = try f.instar(["migrate", f.plan, "--store", f.store, "--backup", backup])
        #expect(migrated.status == 0, "\(migrated)")
        #expect(try f.version() == "V2")
        #expect(try f.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == (1...8).map { $0 * 10 + 1 })
        #expect(try f.version(of: backup) == "V1")
        #expect(try Migrator.status(ofStoreAt: backup).lease == nil, "the backup is the store before the run: no lease")
        #expect(try Migrator.status(ofStoreAt: backup).journal == nil)
        #expect(try f.rows(#"SELECT * FROM "Item" ORDER BY "_pk""#, in: backup) == items)
        #expect(try f.rows(#"SELECT * FROM "Log" ORDER BY "_pk""#, in: backup) == logs)

        // At the target already: nothing runs, so no backup is taken (the existing file is not touched).
        let backupBefore = try Data(contentsOf: URL(fileURLWithPath: backup))
        let again = try f.instar(["migrate", f.plan, "--store", f.store, "--backup", backup, "--progress", "json"])
        #expect(again.status == 0 && progressEvents(again.stdout).isEmpty, "nothing to do, so no backup is needed: \(again)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) == backupBefore)

        let restored = try f.instar(["restore", "--backup", backup, "--store", f.store])
        #expect(restored.status == 0, "\(restored)")
        #expect(try f.version() == "V1")
        #expect(try f.rows(#"SELECT * FROM "Item" ORDER BY "_pk""#) == items)
        #expect(try f.rows(#"SELECT * FROM "Log" ORDER BY "_pk""#) == logs)
        let missing = try f.instar(["restore", "--backup", f.dir.appendingPathComponent("nope.sqlite").path, "--store", f.store])
        #expect(missing.status == 66, "a missing file (its words: golden cli/refusals.txt): \(missing)")

        // The restored store migrates again; an existing backup file is refused before anything runs.
        let occupied = try f.instar(["migrate", f.plan, "--store", f.store, "--backup", backup])
        #expect(occupied.status == 1, "\(occupied)")
        #expect(try f.version() == "V1")
        let exists = try #require(#expect(throws: StoreError.self) { try f.migrator().migrate(storeAt: f.store, backup: backup) })
        #expect(exists.kind == .alreadyExists && exists.path == backup, "\(exists)")
        // Its words: golden error-hints.txt, store.alreadyExists.
        #expect(occupied.stderr == "instar: \(ErrorHints.text(exists))\n", "\(occupied)")
        #expect(try f.version() == "V1")
        #expect(try f.rows(#"SELECT * FROM "Item" ORDER BY "_pk""#) == items)
        let second = try f.instar(["migrate", f.plan, "--store", f.store, "--backup", backup + ".2"])
        #expect(second.status == 0, "\(second)")
        #expect(try f.version() == "V2")
        #expect(try f.logCounts() == ["old": 1, "inside": 1])
    }

    /// `restore` refuses while another live process holds the store's lease.
    @Test func restoreRefusesWhileLeased() throws {
        let f = try RuntimeFixture.cli(rows: 2, stage: "after: [logInside]", hooks: Self.flakyHooks)
        defer { f.remove() }
        let backup = f.dir.appendingPathComponent("b.sqlite").path
        #expect(try f.migrator().migrate(storeAt: f.store, backup: backup) == .finished(steps: 1))
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["86400"]  // alive until the test stops it, however long the test takes
        try sleeper.run()
        defer { stopProcess(sleeper) }
        try f.writeLease(pid: sleeper.processIdentifier, host: ProcessInfo.processInfo.hostName)
        let refused = try f.instar(["restore", "--backup", backup, "--store", f.store])
        let holder = try #require(try Migrator.status(ofStoreAt: f.store).lease)
        #expect(holder.pid == sleeper.processIdentifier)
        #expect(refused.status == 2 && refused.stderr == "instar: \(ErrorHints.text(LeaseError(path: f.store, holder: holder)))\n", "\(refused)")
        #expect(try f.version() == "V2")
        stopProcess(sleeper)
        let restored = try f.instar(["restore", "--backup", backup, "--store", f.store])
        #expect(restored.status == 0, "\(restored)")
        #expect(try f.version() == "V1")
        // The backup is the store as it was before the run: no lease of the (still running) process
        // that took it, so another process can migrate the restored store.
        #expect(try Migrator.status(ofStoreAt: f.store).lease == nil)
        let migrated = try f.instar(["migrate", f.plan, "--store", f.store])
        #expect(migrated.status == 0, "\(migrated)")
    }
}

// MARK: - Support

/// SIGKILL and reap (`sleep` started from the test runner did not end on SIGTERM here).
func stopProcess(_ process: Process) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
}
