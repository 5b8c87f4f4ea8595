import Foundation
import GRDB
import Testing
import InstarRuntimeTestSupport

@_spi(Layouts) @testable import Instar

/// Sliced rewrites (``Slicing``): a step's table rebuild copied ahead in slices that each commit,
/// then taken by the step's transaction. What holds whatever the slices, the budget or the kills:
/// the store ends exactly as an unsliced run leaves it, rows and schema.
@Suite struct SlicedRewriteTests {
    /// V1 → V2 makes `label` required with a default, which only a rebuild of `Item` can do.
    static func fixture(rows: Int) throws -> RuntimeFixture {
        let f = try RuntimeFixture(rows: rows, v2Label: "string = none", stage: "before: []", hooks: "  {}\n")
        try f.execute(#"UPDATE "Item" SET "label" = 'row ' || "_pk", "n" = "_pk" * 7 WHERE "_pk" % 3 <> 0"#)
        return f
    }

    /// The reference: the fixture migrated without slicing.
    static func migrateUnsliced(_ f: RuntimeFixture) throws {
        let reference = try f.migrator()
        reference.slicing = .off
        _ = try reference.migrate(storeAt: f.store)
    }

    /// A migrator slicing 100 rows at a time, whose budgets run on `clock` (the test moves it).
    static func slicedMigrator(_ f: RuntimeFixture, clock: ManualBudgetClock) throws -> Migrator {
        let migrator = try f.migrator()
        migrator.slicing = .rows(100)
        migrator.budgetClock = clock.clock
        return migrator
    }

    /// What the run must leave: every table but Instar's journal and lease, and the schema's text.
    func content(_ f: RuntimeFixture) throws -> [String: [Row]] { try f.userContent() }

    @Test func slicedRunLeavesExactlyWhatAnUnslicedRunLeaves() throws {
        let whole = try Self.fixture(rows: 1000)
        let sliced = try Self.fixture(rows: 1000)
        defer { whole.remove(); sliced.remove() }
        let unslicedMigrator = try whole.migrator()
        unslicedMigrator.slicing = .off
        #expect(try unslicedMigrator.migrate(storeAt: whole.store) == .finished(steps: 1))

        let migrator = try sliced.migrator()
        migrator.slicing = .rows(64)
        var slices: [Int] = []
        let result = try migrator.migrate(storeAt: sliced.store) { event in
            if case .slice(let table, let copied, let total, _) = event {
                #expect(table == "Item")
                #expect(total == 1000)
                slices.append(copied)
            }
        }
        #expect(result == .finished(steps: 1))
        // 1000 rows in slices of 64: 16 slices, the last one short.
        #expect(slices.count == 16)
        #expect(slices.last == 1000)
        #expect(slices == slices.sorted())
        #expect(try content(sliced) == content(whole))
        // No staging table, change capture or retired old table is left.
        #expect(try sliced.ints("SELECT count(*) FROM sqlite_master WHERE name LIKE '\\_instar\\_slice%' ESCAPE '\\'") == [0])
        #expect(try sliced.ints("SELECT count(*) FROM sqlite_master WHERE name LIKE '\\_instar\\_retired%' ESCAPE '\\'") == [0])
    }

    /// A budget that runs out between slices keeps every committed slice: each call copies more, the
    /// journal says how far, and the last call swaps. The budget is counted in slices (each moves the
    /// run's clock by 0.1 s), so where it runs out never depends on the machine.
    @Test func aBudgetSmallerThanTheRewriteFinishesInSeveralLaunches() throws {
        let whole = try Self.fixture(rows: 1000)
        let sliced = try Self.fixture(rows: 1000)
        defer { whole.remove(); sliced.remove() }
        try Self.migrateUnsliced(whole)

        let time = ManualBudgetClock()
        let migrator = try Self.slicedMigrator(sliced, clock: time)
        var copiedAfterEachCall: [Int] = []
        var results: [MigrationResult] = []
        for _ in 0..<10 {
            let result = try migrator.migrate(storeAt: sliced.store, timeBudget: 0.35) { event in
                if case .slice = event { time.advance(by: 0.1) }
            }
            results.append(result)
            if result.isFinished { break }
            copiedAfterEachCall.append(try sliced.journal()?.slices?.rowsCopied ?? -1)
            // Between launches the store is still the old version's, with its rows all there.
            #expect(try sliced.ints(#"SELECT count(*) FROM "Item""#) == [1000])
        }
        // Four slices fit each call (the fourth spends the budget, looked at between slices).
        #expect(copiedAfterEachCall == [400, 800])
        #expect(results == [.paused(.timeBudget), .paused(.timeBudget), .finished(steps: 1)])
        #expect(try content(sliced) == content(whole))
    }

    /// The app writes the old table between two launches (updates rows already copied, deletes some,
    /// inserts new ones before and after the cursor): the run copies those rows again before the swap,
    /// and the store ends as an unsliced run of the written store leaves it.
    @Test func writesBetweenSlicesAreCarriedIntoTheNewTable() throws {
        let whole = try Self.fixture(rows: 600)
        let sliced = try Self.fixture(rows: 600)
        defer { whole.remove(); sliced.remove() }
        let time = ManualBudgetClock()
        let migrator = try Self.slicedMigrator(sliced, clock: time)
        let first = try migrator.migrate(storeAt: sliced.store, timeBudget: 0.25) { event in
            if case .slice = event { time.advance(by: 0.1) }
        }
        #expect(first == .paused(.timeBudget))
        #expect(try sliced.journal()?.slices?.rowsCopied == 300)

        let writes = #"""
            UPDATE "Item" SET "label" = 'changed', "n" = -1 WHERE "_pk" IN (5, 250, 599);
            UPDATE "Item" SET "label" = NULL WHERE "_pk" = 7;
            DELETE FROM "Item" WHERE "_pk" IN (10, 11, 400);
            INSERT INTO "Item" ("_pk", "n", "label") VALUES (11, 110, 'again'), (700, 7, 'new'), (650, 45, NULL);
            """#
        try sliced.execute(writes)
        try whole.execute(writes)
        try Self.migrateUnsliced(whole)

        let rest = try migrator.migrate(storeAt: sliced.store)
        #expect(rest == .finished(steps: 1))
        #expect(try content(sliced) == content(whole))
    }

    /// Killed after a slice committed, in the swap, and while the retired old table's rows are deleted
    /// (after the finish: the store is at the target then, and the journal says so): each time the next
    /// run resumes from the last commit and the store ends as an unsliced run leaves it.
    @Test(arguments: ["slice.after-commit@3", "slice.before-commit@5", "step.before-commit", "retire.after-commit@2"])
    func aKilledSlicedRunResumesExactly(failpoint: String) throws {
        let whole = try Self.fixture(rows: 500)
        let sliced = try Self.fixture(rows: 500)
        defer { whole.remove(); sliced.remove() }
        try Self.migrateUnsliced(whole)

        // A budget far above the run's time, so that the retired rows go a slice at a time.
        let arguments = ["migrate", sliced.plan, "--store", sliced.store, "--slices", "100rows", "--time-budget", "3600"]
        let killed = try sliced.instar(arguments, environment: ["INSTAR_FAILPOINT": failpoint])
        #expect(killed.reason == .uncaughtSignal, "\(killed)")
        let journal = try sliced.journal()
        if failpoint.hasPrefix("retire") {
            #expect(journal == nil || journal?.status == .finished)
            #expect(try sliced.ints(#"SELECT count(*) FROM "_instar_retired_1""#) == [300])
        } else {
            #expect(journal?.status == .running)
        }
        if failpoint.hasPrefix("slice.after-commit") { #expect(journal?.slices?.rowsCopied == 300) }
        let resumed = try sliced.instar(arguments)
        #expect(resumed.status == 0, "\(resumed)")
        #expect(try content(sliced) == content(whole))
    }

    /// With a budget, the run ends when the store is at the target: the old table it retired is
    /// deleted within the time left and by the calls after (each returns `.finished`, and a call
    /// with nothing else to do gives back the space), never holding the app back a launch for it.
    @Test func theRetiredTableGoesAfterTheFinishWithinEachBudget() throws {
        let whole = try Self.fixture(rows: 1000)
        let sliced = try Self.fixture(rows: 1000)
        defer { whole.remove(); sliced.remove() }
        try Self.migrateUnsliced(whole)

        let time = ManualBudgetClock()
        let migrator = try Self.slicedMigrator(sliced, clock: time)
        var results: [MigrationResult] = []
        var retiredLeft: [Int] = []
        for _ in 0..<20 {
            var reclaimed: [Int] = []
            let result = try migrator.migrate(storeAt: sliced.store, timeBudget: 0.35) { event in
                switch event {
                case .slice: time.advance(by: 0.1)
                case .reclaiming(let rows, _):
                    reclaimed.append(rows)
                    time.advance(by: 0.1)
                default: break
                }
            }
            results.append(result)
            let left = try sliced.read { db in
                try db.tableExists("_instar_retired_1") ? try Int.fetchOne(db, sql: #"SELECT count(*) FROM "_instar_retired_1""#) ?? -1 : 0
            }
            if result.isFinished { retiredLeft.append(left) }
            #expect(reclaimed == reclaimed.sorted(by: >), "rows left only go down: \(reclaimed)")
            if result.isFinished && left == 0 { break }
        }
        // Copying takes three calls (400, 800, then 1000 and the swap); the third ends at the target.
        #expect(Array(results.prefix(3)) == [.paused(.timeBudget), .paused(.timeBudget), .finished(steps: 1)])
        #expect(results.dropFirst(3).allSatisfy { $0 == .finished(steps: 0) })
        // After the finish, each call deletes what its budget allows, a slice at a time.
        #expect(retiredLeft.count >= 3 && retiredLeft.first! > 0 && retiredLeft.last == 0)
        #expect(retiredLeft == retiredLeft.sorted(by: >))
        #expect(try content(sliced) == content(whole))
        #expect(try sliced.journal() == nil || sliced.journal()?.status == .finished)
    }

    /// A machine slower than the one that measured the journal's rate: the rate sizes a first slice
    /// that the budget interrupts. The launch records a lower rate, so later launches fit their slices
    /// and the run finishes, instead of trying the same slice for ever. The budget runs on a clock
    /// that moves 1 ms each time it is read (SQLite reads it every 10,000 instructions), so where it
    /// runs out depends on the work done, never on the machine.
    @Test func aSliceTheBudgetInterruptsLowersTheRate() throws {
        let whole = try Self.fixture(rows: 100_000)
        let sliced = try Self.fixture(rows: 100_000)
        defer { whole.remove(); sliced.remove() }
        try Self.migrateUnsliced(whole)

        let first = ManualBudgetClock()
        let migrator = try Self.slicedMigrator(sliced, clock: first)
        #expect(try migrator.migrate(storeAt: sliced.store, timeBudget: 0.25) { event in
            if case .slice = event { first.advance(by: 0.1) }
        } == .paused(.timeBudget))
        // As if measured on a machine a million times faster than this one.
        try sliced.execute(#"UPDATE "_instar_journal" SET "entry" = json_set("entry", '$.slices.rowsPerSecond', 1e12)"#)

        let ticks = ManualBudgetClock()
        migrator.budgetClock = BudgetClock { ticks.advance(by: 0.001); return ticks.clock.now() }
        migrator.slicing = .seconds(0.25)
        var launches = 0
        var rates: [Double] = []
        while launches < 100 {
            launches += 1
            if try migrator.migrate(storeAt: sliced.store, timeBudget: 0.08).isFinished { break }
            rates.append(try sliced.journal()?.slices?.rowsPerSecond ?? -1)
        }
        let copied = try sliced.journal()?.slices?.rowsCopied ?? -1
        #expect(launches < 100, "the run never finished: rates \(rates.prefix(12)), \(copied) rows copied")
        #expect(rates.first.map { $0 <= 0.25e12 } == true, "the interrupted first slice lowered the rate: \(rates.prefix(3))")
        // The retired old table goes in a call without a budget; then the store is the unsliced run's.
        #expect(try migrator.migrate(storeAt: sliced.store) == .finished(steps: 0))
        #expect(try content(sliced) == content(whole))
    }

    /// Without a budget and with the default setting nothing is sliced: one commit, as before.
    @Test func theDefaultSlicesOnlyBudgetedRuns() throws {
        let f = try Self.fixture(rows: 200)
        defer { f.remove() }
        var sliced = false
        _ = try f.migrator().migrate(storeAt: f.store) { event in
            if case .slice = event { sliced = true }
        }
        #expect(!sliced)
    }

    /// The dry run names the tables a budgeted run copies ahead and counts the launches a budget needs.
    @Test func theDryRunCountsLaunchesForABudget() throws {
        let f = try Self.fixture(rows: 1000)
        defer { f.remove() }
        let report = try DryRun.report(plan: try PlanFileReader.read(path: f.plan), storePath: f.store)
        #expect(report.steps.first?.slicedTables == ["Item"])
        #expect(report.steps.first?.slicedRows == 1000)
        // At 1,000 rows a second the step takes a second unsliced.
        #expect(report.launches(timeBudget: 10, rowsPerSecond: 1000) == 1)
        // The default slices steps of 10,000 rows or more; this one is sliced when asked.
        #expect(report.launches(timeBudget: 0.25, rowsPerSecond: 1000) == nil)
        // Sliced, with no fixed work per launch: a second and a tenth of copying, four launches' worth
        // and a bit, then the swap.
        let launches = try #require(report.launches(timeBudget: 0.25, rowsPerSecond: 1000, slicing: .rows(100), launchSeconds: 0))
        #expect(launches == 5)
        // Unsliced, a quarter of a second never fits the step; sliced, it does.
        #expect(report.unitsExceeding(timeBudget: 0.25, rowsPerSecond: 1000, slicing: .off).count == 1)
        #expect(report.unitsExceeding(timeBudget: 0.25, rowsPerSecond: 1000, slicing: .rows(100)).isEmpty)
        #expect(report.launches(timeBudget: 0.25, rowsPerSecond: 1000, slicing: .off) == nil)
    }

    /// Every launch spends its fixed work (opening, the lease, finding the version) from its budget
    /// before any unit: a short budget holds less work than its length, and one no longer than the
    /// fixed work holds none, which the dry run says rather than counting launches that never progress.
    @Test func theDryRunCountsEachLaunchsFixedWork() throws {
        let f = try Self.fixture(rows: 1000)
        defer { f.remove() }
        let report = try DryRun.report(plan: try PlanFileReader.read(path: f.plan), storePath: f.store)
        // An eighth of a second of fixed work leaves an eighth: 1.1 s of slices need 9 launches (8.8),
        // the ninth's rest (0.125 + 0.1 s) cannot take the 0.1 s swap as well: 10.
        #expect(report.launches(timeBudget: 0.25, rowsPerSecond: 1000, slicing: .rows(100), launchSeconds: 0.125) == 10)
        // The swap (0.1 s) fits what 0.25 s leaves after 0.125 s, not what 0.15 s leaves.
        #expect(report.unitsExceeding(timeBudget: 0.25, rowsPerSecond: 1000, slicing: .rows(100), launchSeconds: 0.125).isEmpty)
        let tight = report.unitsExceeding(timeBudget: 0.15, rowsPerSecond: 1000, slicing: .rows(100), launchSeconds: 0.125)
        #expect(tight.count == 1 && tight.first?.step != nil && tight.first?.message.contains("fixed work") == true)
        #expect(report.launches(timeBudget: 0.15, rowsPerSecond: 1000, slicing: .rows(100), launchSeconds: 0.125) == nil)
        // A budget the fixed work fills: no launch progresses, said once for the whole run.
        let none = report.unitsExceeding(timeBudget: 0.01, rowsPerSecond: 1000, slicing: .rows(100), launchSeconds: 0.02)
        #expect(none.count == 1 && none.first?.step == nil && none.first?.kind == .exceedsTimeBudget)
        #expect(none.first?.message.contains("no launch with that budget makes progress") == true)
        #expect(report.launches(timeBudget: 0.01, rowsPerSecond: 1000, slicing: .rows(100), launchSeconds: 0.02) == nil)
        #expect(report.launches(timeBudget: 0.000001) == nil, "the typical fixed work fills a microsecond")
    }

    /// An unfinished sliced run's measured rate (in the journal) is what the dry run estimates with:
    /// it is this device's, where the typical rate is a guess. The rate is set, never timed.
    @Test func theDryRunUsesTheJournalsMeasuredRate() throws {
        let f = try Self.fixture(rows: 1000)
        defer { f.remove() }
        let clock = ManualBudgetClock()
        let migrator = try Self.slicedMigrator(f, clock: clock)
        #expect(try migrator.migrate(storeAt: f.store, timeBudget: 0.25) { event in
            if case .slice = event { clock.advance(by: 0.1) }
        } == .paused(.timeBudget))
        try f.execute(#"UPDATE "_instar_journal" SET "entry" = json_set("entry", '$.slices.rowsPerSecond', 1000)"#)

        let report = try DryRun.report(plan: try PlanFileReader.read(path: f.plan), storePath: f.store)
        #expect(report.measuredRowsPerSecond == 1000)
        // Slices at 1,000 rows/s are an unsliced rewrite at 1,100 rows/s (slicedWorkFactor).
        #expect(abs(report.estimateRowsPerSecond - 1000 * DryRunReport.slicedWorkFactor) < 1e-9)
        let rate = report.estimateRowsPerSecond
        #expect(report.launches(timeBudget: 0.25, slicing: .rows(100)) == report.launches(timeBudget: 0.25, rowsPerSecond: rate, slicing: .rows(100)))
        // A second of slices fills four launches of 0.25 s less their fixed work (typicalLaunchSeconds)
        // and part of a fifth, where the swap (0.1 × 1000 / 1100 s) fits too.
        #expect(report.launches(timeBudget: 0.25, slicing: .rows(100)) == 5)
    }

    /// Without a journal's rate the estimate says it stands on the typical rate.
    @Test func withoutAnEarlierLaunchTheTypicalRateIsUsed() throws {
        let f = try Self.fixture(rows: 1000)
        defer { f.remove() }
        let report = try DryRun.report(plan: try PlanFileReader.read(path: f.plan), storePath: f.store)
        #expect(report.measuredRowsPerSecond == nil)
        #expect(report.estimateRowsPerSecond == DryRunReport.typicalRowsPerSecond)
    }

    /// A sliced step whose final transaction is estimated over the budget still says its slices
    /// progress: only an unsliced transaction makes no progress at all.
    @Test func anOverBudgetSwapDoesNotClaimNoProgressForTheSlices() throws {
        let f = try Self.fixture(rows: 1000)
        defer { f.remove() }
        let report = try DryRun.report(plan: try PlanFileReader.read(path: f.plan), storePath: f.store)
        // The swap is 0.1 × 1000 / 1000 = 0.1 s, over a 0.05 s budget.
        let risks = report.unitsExceeding(timeBudget: 0.05, rowsPerSecond: 1000, slicing: .rows(100))
        #expect(risks.count == 1)
        #expect(risks.first?.message.contains("those launches progress") == true)
        #expect(risks.first?.message.contains("makes no progress") == false)
        let unsliced = report.unitsExceeding(timeBudget: 0.05, rowsPerSecond: 1000, slicing: .off)
        #expect(unsliced.first?.message.contains("makes no progress") == true)
    }
}
