import Foundation
import GRDB
@_spi(Layouts) import Instar
import Testing
import InstarTestSupport
import InstarRuntimeTestSupport

/// The paths an app takes that a command line does not: two calls for one store at once, a cancel
/// at any await, a budget of a millisecond, another connection holding the file, a launch with
/// nothing to do. Each test names what could go wrong and checks the store and the journal after.
@Suite struct AppSafetyTests {
    static let fillHook = "  native: {swift: fill}\n"
    /// A statement that never ends while the store has items (a count that keeps counting), and ends at
    /// once on the empty tables the planner analyses hooks on: slow by construction, on any machine, so
    /// only an interrupt (a cancel, a budget, a kill) stops it.
    static let slowSQL = #"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE EXISTS (SELECT 1 FROM "Item")) SELECT count(*) FROM c"#

    // MARK: One run per store

    /// Two calls 50 ms apart, from two migrators (two scenes): the second waits for the first, finds
    /// nothing left, and the hook's row is written once; the journal is finished and the next launch
    /// changes no byte.
    @Test func twoCallsInOneProcessRunOnce() async throws {
        let f = try RuntimeFixture(rows: 3, stage: "after: [native]", hooks: Self.fillHook)
        defer { f.remove() }
        let plan = try PlanFileReader.read(path: f.plan)
        let concurrent = Locked(0)
        let runs = Locked(0)
        func migrator() -> Migrator {
            let migrator = Migrator(plan: plan)
            migrator.register(hook: "fill") { context in
                let overlapping = concurrent.withLock { $0 += 1; return $0 }
                #expect(overlapping == 1, "two runs of the hook at once")
                try await Task.sleep(for: .milliseconds(300))
                try context.write { db in try db.execute(sql: #"INSERT INTO "Log" ("msg") VALUES ('swift')"#) }
                concurrent.withLock { $0 -= 1 }
                runs.withLock { $0 += 1 }
            }
            return migrator
        }
        let url = URL(fileURLWithPath: f.store)
        async let first = migrator().migrate(store: url)
        try await Task.sleep(for: .milliseconds(50))
        async let second = migrator().migrate(store: url)
        let results = try await [first, second]
        #expect(results.contains(.finished(steps: 1)) && results.contains(.finished(steps: 0)), "\(results)")
        #expect(runs.current == 1)
        #expect(try f.logCounts() == ["swift": 1])
        #expect(try f.journal()?.status == .finished)
        let before = try f.bytes()
        #expect(try await migrator().migrate(store: url) == .finished(steps: 0))
        #expect(try f.bytes() == before, "a launch with nothing to do writes nothing")
    }

    /// A lease left by an earlier run of this very process (same pid, another run) is taken over;
    /// a lease row whose values have the wrong types is never trusted, and never crashes.
    @Test func leftoverAndDamagedLeasesAreTakenOver() throws {
        let f = try RuntimeFixture(rows: 2, stage: "after: []", hooks: "  unused: {sql: ['SELECT 1']}\n")
        defer { f.remove() }
        try f.writeLease(pid: getpid(), host: ProcessInfo.processInfo.hostName)
        #expect(try f.migrator().migrate(storeAt: f.store) == .finished(steps: 1))

        let g = try RuntimeFixture(rows: 2, stage: "after: []", hooks: "  unused: {sql: ['SELECT 1']}\n")
        defer { g.remove() }
        try g.writeLease(pid: 1, host: ProcessInfo.processInfo.hostName)
        try g.execute(#"UPDATE "_instar_lease" SET "pid" = 'not a pid', "heartbeat" = x'00'"#)
        #expect(try Migrator.status(ofStoreAt: g.store).lease == nil)
        try g.execute(#"UPDATE "_instar_lease" SET "pid" = 9999999999"#)
        #expect(try Migrator.status(ofStoreAt: g.store).lease == nil)
        #expect(try g.migrator().migrate(storeAt: g.store) == .finished(steps: 1))
    }

    /// On a rollback-journal store, a second process that finds the first inside its first (long)
    /// transaction is refused without writing: that transaction carries the first run's lease claim,
    /// which no other process can read before it commits, so the refusal says the store is locked by
    /// another connection, perhaps another migration (a lease committed before, by a hook that commits
    /// on its own, is named: `RuntimeTests`). The first is killed at the end: waiting for it to finish
    /// would block a thread of the suite's pool for many seconds.
    @Test(.timeLimit(.minutes(2))) func aSecondProcessDuringAStepOfARollbackJournalStoreIsLockedOut() throws {
        let f = try RuntimeFixture(rows: 150, stage: "after: [slow]", hooks: "  slow: {sql: ['\(Self.slowSQL)']}\n")
        defer { f.remove() }
        let first = try f.start(["migrate", f.plan, "--store", f.store])
        defer { first.kill() }
        var started = false
        for _ in 0..<300 where !started {
            Thread.sleep(forTimeInterval: 0.05)
            started = FileManager.default.fileExists(atPath: f.store + "-journal")  // its transaction has written
        }
        #expect(started, "the first migration never started: \(first.result())")
        Thread.sleep(forTimeInterval: 0.3)
        let before = try f.userContent()
        let second = try f.instar(["migrate", f.plan, "--store", f.store])
        // 2: locked (SQLite's lock here, the lease claim unreadable inside the first's transaction; the
        // words for a locked store: golden error-hints.txt).
        #expect(second.status == 2, "\(second)")
        #expect(first.isRunning, "the first migration ended early: \(first.result())")
        first.kill()
        #expect(try f.userContent() == before, "the store changed although neither run committed")
        #expect(try f.journal() == nil)
    }

    // MARK: Hooks exactly once

    /// A hook that writes without a checkpoint and is then cancelled: its write is undone, and the next
    /// run writes it once. (It used to commit at once and run again after the resume: two rows.) The
    /// hook's first run waits an hour: only the cancel can end it.
    @Test(.timeLimit(.minutes(2))) func uncheckpointedWritesOfACancelledHookAreUndone() async throws {
        let f = try RuntimeFixture(rows: 3, stage: "after: [native]", hooks: Self.fillHook)
        defer { f.remove() }
        let migrator = try f.migrator()
        let slow = Locked(true)
        let sawCancellation = Locked(false)
        let wrote = Locked(false)
        migrator.register(hook: "fill") { context in
            try context.write { db in try db.execute(sql: #"INSERT INTO "Log" ("msg") VALUES ('swift')"#) }
            wrote.withLock { $0 = true }
            if slow.current {
                do {
                    try await Task.sleep(for: .seconds(3600))
                } catch {
                    sawCancellation.withLock { $0 = Task.isCancelled }
                    throw error
                }
            }
        }
        let run = Task { try await migrator.migrate(store: URL(fileURLWithPath: f.store)) }
        while !wrote.current { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        run.cancel()
        #expect(try await run.value == .paused(.cancelled), "the hour-long sleep was cut short")
        #expect(sawCancellation.current, "the async hook's task is cancelled")
        #expect(try f.logCounts() == [:])
        #expect(try f.journal()?.status == .paused)

        slow.withLock { $0 = false }
        #expect(try await migrator.migrate(store: URL(fileURLWithPath: f.store)) == .finished(steps: 1))
        #expect(try f.logCounts() == ["swift": 1])
    }

    /// A hook that finished is recorded with its writes: a stop requested right after it does not make
    /// it run again.
    @Test func aFinishedHookIsRecordedWithItsWrites() throws {
        let f = try RuntimeFixture(rows: 3, stage: "after: [native, second]", hooks: Self.fillHook + "  second: {swift: second}\n")
        defer { f.remove() }
        let migrator = try f.migrator()
        let calls = Locked(0)
        let stop = StopRequest()
        migrator.register(hook: "fill") { context in
            calls.withLock { $0 += 1 }
            try context.write { db in try db.execute(sql: #"INSERT INTO "Log" ("msg") VALUES ('swift')"#) }
        }
        migrator.register(hook: "second") { context in
            stop.request(.cancelled)  // the app stops the run while the second hook runs
            try context.write { db in try db.execute(sql: #"INSERT INTO "Log" ("msg") VALUES ('second')"#) }
        }
        #expect(try migrator.migrate(storeAt: f.store, stop: stop) == .paused(.cancelled))
        #expect(try f.logCounts() == ["swift": 1], "the second hook's write is undone, the first's kept")
        #expect(try migrator.migrate(storeAt: f.store) == .finished(steps: 1))
        #expect(calls.current == 1)
        #expect(try f.logCounts() == ["swift": 1, "second": 1])
    }

    /// A hook the app never registered, needed by the second step only: refused before the first
    /// step commits, with every missing hook named.
    @Test func aMissingHookOfALaterStepIsFoundBeforeTheFirstWrite() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let versions = ["V1": "", "V2": "      b: string?\n", "V3": "      b: string?\n      c: string?\n"]
        for (name, extra) in versions {
            try "name: \(name)\nentities:\n  Item:\n    attributes:\n      a: string?\n\(extra)"
                .write(to: dir.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8)
        }
        let plan = dir.appendingPathComponent("plan.yaml").path
        try """
            name: missing
            versions: [V1.yaml, V2.yaml, V3.yaml]
            stages:
              - {from: V1, to: V2, after: [log]}
              - {from: V2, to: V3, after: [later]}
            hooks:
              log: {sql: ["SELECT 1"]}
              later: {swift: later}
            """.write(toFile: plan, atomically: true, encoding: .utf8)
        let store = dir.appendingPathComponent("s.sqlite").path
        try SQLiteStore.create(at: store, model: try PlanFileReader.read(path: plan).versions[0]).close()
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let error = #expect(throws: HookError.self) { try Migrator(plan: try PlanFileReader.read(path: plan)).migrate(storeAt: store) }
        #expect(error?.kind == .notDefined)
        #expect(error?.missing == [MissingHook(hook: "later", step: "V2 → V3", reason: .notRegistered("later"))])
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    /// The app's own error stays a value an app can switch on.
    @Test func aHookKeepsTheAppsError() throws {
        struct ServerDown: Error, Equatable { var status: Int }
        let f = try RuntimeFixture(rows: 1, stage: "after: [native]", hooks: Self.fillHook)
        defer { f.remove() }
        let migrator = try f.migrator()
        migrator.register(hook: "fill") { _ in throw ServerDown(status: 503) }
        let error = #expect(throws: HookError.self) { try migrator.migrate(storeAt: f.store) }
        #expect(error?.kind == .failed)
        #expect(error?.underlying as? ServerDown == ServerDown(status: 503))
    }

    // MARK: Cancellation and budgets

    /// A statement that would never end inside a step's transaction is interrupted by a cancel: the
    /// call returns (bounded by a statement, not a step), the step is rolled back, nothing is left.
    @Test(.timeLimit(.minutes(2))) func cancellingInterruptsARunningStep() async throws {
        let f = try RuntimeFixture(rows: 150, stage: "after: [slow]", hooks: "  slow: {sql: ['\(Self.slowSQL)']}\n")
        defer { f.remove() }
        let migrator = try f.migrator()
        let inStep = Locked(false)
        let run = Task {
            try await migrator.migrate(store: URL(fileURLWithPath: f.store)) { event in
                if case .stepStarted = event { inStep.withLock { $0 = true } }
            }
        }
        while !inStep.current { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(300))
        run.cancel()
        #expect(try await run.value == .paused(.cancelled))
        #expect(try f.version() == "V1")
        // The step was the run's first transaction (its lease claim and start record included): rolled
        // back, it leaves the store as it was, with no run to resume.
        #expect(try f.journal() == nil)
    }

    /// A budget of 1 ms writes nothing (the checks before the first write count, and a step it
    /// interrupts is rolled back); a budget that runs out inside a step that would never end
    /// interrupts it.
    @Test(.timeLimit(.minutes(2))) func budgetsHold() throws {
        let f = try RuntimeFixture(rows: 150, stage: "after: [slow]", hooks: "  slow: {sql: ['\(Self.slowSQL)']}\n")
        defer { f.remove() }
        let migrator = try f.migrator()
        let before = try f.bytes()
        #expect(try migrator.migrate(storeAt: f.store, timeBudget: 0.001) == .paused(.timeBudget))
        #expect(try f.bytes() == before)

        #expect(try migrator.migrate(storeAt: f.store, timeBudget: 0.5) == .paused(.timeBudget), "the budget interrupts the step")
        #expect(try f.bytes() == before)
        #expect(try f.version() == "V1")
    }

    /// The dry run names the transaction a given budget cannot hold: a rebuild of 7 rows at 5 rows a
    /// second takes longer than a second, the step that only adds a column none.
    @Test func theDryRunNamesUnitsLongerThanABudget() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let versions = [
            "name: V1\nentities: {Item: {attributes: {n: int32?}}}\n",
            "name: V2\nentities: {Item: {attributes: {n: int32 = 0}}}\n",
            "name: V3\nentities: {Item: {attributes: {n: int32 = 0, note: string?}}}\n",
        ]
        let (plan, store) = try pinnedItemsPlan(versions, in: dir, insert: (1...7).map { "INSERT INTO \"Item\" (\"_pk\", \"n\") VALUES (\($0), \($0));" }.joined())
        let report = try DryRun.report(plan: plan, storePath: store)
        let risks = report.unitsExceeding(timeBudget: 1, rowsPerSecond: 5)
        #expect(risks.map(\.kind) == [.exceedsTimeBudget])
        #expect(risks.first?.count == 7)
        #expect(report.unitsExceeding(timeBudget: 1, rowsPerSecond: 100).isEmpty)
    }

    // MARK: Errors an app can switch on

    /// Another connection holding the file: a ``StoreError`` of kind `locked` with SQLite's codes,
    /// never a raw GRDB error.
    @Test func anotherConnectionsLockIsATypedError() throws {
        let f = try RuntimeFixture(rows: 1, stage: "after: []", hooks: "  unused: {sql: ['SELECT 1']}\n")
        defer { f.remove() }
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: f.store, configuration: configuration)
        try holder.writeWithoutTransaction { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        defer {
            try? holder.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
            try? holder.close()
        }
        let error = #expect(throws: StoreError.self) { try f.migrator().migrate(storeAt: f.store) }
        #expect(error?.kind == .locked)
        #expect(error?.sqlite?.code == 5, "SQLITE_BUSY")
    }

    /// A task cancelled before `migrate(database:)` reaches the writer: `.paused(.cancelled)`, not a
    /// raw `CancellationError`, and a progress stream asked for before it finishes.
    @Test func aCancelledDatabaseMigrationPausesAndEndsItsStreams() async throws {
        let f = try RuntimeFixture(rows: 1, stage: "after: []", hooks: "  unused: {sql: ['SELECT 1']}\n")
        defer { f.remove() }
        let migrator = try f.migrator()
        let writer = try DatabaseQueue(path: f.store)
        defer { try? writer.close() }
        let events = migrator.progressEvents()
        let run = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await migrator.migrate(database: writer)
        }
        #expect(try await run.value == .paused(.cancelled))
        var count = 0
        for await _ in events { count += 1 }  // finishes
        #expect(count == 0)
    }

    /// The app's GRDB configuration is used for Instar's connection: a SQL hook calls a function only
    /// the app's `prepareDatabase` defines.
    @Test func theAppsConfigurationIsHonoured() async throws {
        let f = try RuntimeFixture(
            rows: 2, stage: "after: [tag]", hooks: #"  tag: {sql: ['UPDATE "Item" SET "note" = app_tag()']}"# + "\n")
        defer { f.remove() }
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.add(function: DatabaseFunction("app_tag", argumentCount: 0, pure: true) { _ in "tagged" })
        }
        let migrator = try f.migrator()
        #expect(throws: HookError.self) { try migrator.migrate(storeAt: f.store) }
        #expect(try await migrator.migrate(store: URL(fileURLWithPath: f.store), configuration: configuration) == .finished(steps: 1))
        #expect(try f.read { db in try String.fetchAll(db, sql: #"SELECT "note" FROM "Item""#) } == ["tagged", "tagged"])
    }

    // MARK: The read-only question

    /// `pendingWork` answers without writing: a new run's steps, an unfinished run, then nothing.
    @Test func pendingWorkWritesNothing() async throws {
        let f = try RuntimeFixture(rows: 2, stage: "after: [native]", hooks: Self.fillHook)
        defer { f.remove() }
        let migrator = try f.migrator()
        let url = URL(fileURLWithPath: f.store)
        let before = try f.bytes()
        guard case .migration(let from, let to, let steps) = try await migrator.pendingWork(store: url) else {
            Issue.record("expected a migration")
            return
        }
        #expect(from == "V1" && to == "V2" && steps.map(\.kind) == [.custom])
        #expect(try f.bytes() == before)

        let stop = StopRequest()
        migrator.register(hook: "fill") { _ in stop.request(.cancelled) }
        #expect(try await migrator.migrate(store: url, stop: stop) == .paused(.cancelled))
        guard case .unfinishedRun(let entry, let holder) = try await migrator.pendingWork(store: url) else {
            Issue.record("expected an unfinished run")
            return
        }
        #expect(entry.status == .paused && holder == nil)

        migrator.register(hook: "fill") { _ in }
        #expect(try await migrator.migrate(store: url) == .finished(steps: 1))
        let pending = try await migrator.pendingWork(store: url)
        #expect(!pending.isNeeded)
    }
}
