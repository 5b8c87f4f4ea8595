import Foundation
import GRDB
import Testing
import InstarRuntimeTestSupport

@_spi(Layouts) @testable import Instar

/// A store with `auto_vacuum = INCREMENTAL` (as Core Data creates them) gets back the pages a rebuild
/// freed before the run ends, in slices that each commit; other stores keep them, as before.
@Suite struct ReclaimSpaceTests {
    /// 30,000 rows of about 400 bytes (some 12 MB) that the step rebuilds, in a store whose auto-vacuum
    /// mode is `mode`.
    static func fixture(autoVacuum mode: String) throws -> RuntimeFixture {
        let f = try RuntimeFixture(rows: 30_000, v2Label: "string = none", stage: "before: []", hooks: "  {}\n")
        try f.execute(#"UPDATE "Item" SET "label" = printf('%.400c', 'x') || "_pk""#)
        let queue = try DatabaseQueue(path: f.store)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA auto_vacuum = \(mode)")
            try db.execute(sql: "VACUUM")
        }
        try queue.close()
        return f
    }

    func pages(_ f: RuntimeFixture) throws -> (free: Int, total: Int) {
        try f.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? -1, try Int.fetchOne(db, sql: "PRAGMA page_count") ?? -1)
        }
    }

    @Test func anIncrementalStoreEndsWithNoFreePages() throws {
        let reclaimed = try Self.fixture(autoVacuum: "INCREMENTAL")
        let kept = try Self.fixture(autoVacuum: "NONE")
        defer { reclaimed.remove(); kept.remove() }
        let before = try pages(reclaimed).total
        #expect(try reclaimed.migrator().migrate(storeAt: reclaimed.store) == .finished(steps: 1))
        #expect(try kept.migrator().migrate(storeAt: kept.store) == .finished(steps: 1))
        let after = try pages(reclaimed)
        let without = try pages(kept)
        #expect(after.free == 0)
        // Without incremental auto-vacuum the old table's pages stay free in the file.
        #expect(without.free > before / 2)
        #expect(after.total < without.total)
        #expect(try reclaimed.userContent().filter { $0.key != "sqlite_master" } == kept.userContent().filter { $0.key != "sqlite_master" })
    }

    /// Killed after the first slice of pages went back: the next run gives back the rest and ends.
    @Test func aKilledReclaimResumes() throws {
        let f = try Self.fixture(autoVacuum: "INCREMENTAL")
        defer { f.remove() }
        let killed = try f.instar(["migrate", f.plan, "--store", f.store], environment: ["INSTAR_FAILPOINT": "reclaim.after-commit@1"])
        #expect(killed.reason == .uncaughtSignal, "\(killed)")
        #expect(try pages(f).free > 0)
        let resumed = try f.instar(["migrate", f.plan, "--store", f.store])
        #expect(resumed.status == 0, "\(resumed)")
        #expect(try pages(f).free == 0)
        #expect(try f.journal()?.status == .finished)
    }

    /// The dry run says when a store keeps the pages its rebuilds free, and does not when it gives them back.
    @Test func theDryRunSaysWhenFreedPagesStayInTheFile() throws {
        let kept = try Self.fixture(autoVacuum: "NONE")
        let reclaimed = try Self.fixture(autoVacuum: "INCREMENTAL")
        defer { kept.remove(); reclaimed.remove() }
        let plan = try PlanFileReader.read(path: kept.plan)
        let risk = try DryRun.report(plan: plan, storePath: kept.store).risks.first { $0.kind == .freePagesKept }
        #expect((risk?.count ?? 0) > 5_000_000)
        #expect(try DryRun.report(plan: plan, storePath: reclaimed.store).risks.allSatisfy { $0.kind != .freePagesKept })
    }
}
