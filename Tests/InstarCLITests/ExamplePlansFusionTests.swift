import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarRuntime
@_spi(Layouts) @testable import InstarStore
import Testing
@_spi(Layouts) @testable import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport

/// Every example plan in `Plans/` gives the same store fused (steps merged, work moved across hooks)
/// and step by step: the digest of every table's rows and of the schema.
@Suite struct ExamplePlansFusionTests {
    @Test(arguments: ["garage", "music", "school", "school-classes", "shop", "flight-log"])
    func fusedAndStepwiseRunsOfTheExamplePlansAgree(_ name: String) throws {
        try checkFusedAndStepwiseAgree(name)
    }

    /// The benchmark's plan fills its store with the peer benchmark's own generator (`../shared/bench`).
    @Test(.enabled(if: benchGeneratorIsPresent, "skipped: needs the peer benchmark at ../shared/bench (CI provides it)"))
    func fusedAndStepwiseRunsOfTheBenchmarkPlanAgree() throws {
        try checkFusedAndStepwiseAgree("bench-tracks")
    }

    func checkFusedAndStepwiseAgree(_ name: String) throws {
        let folder = packageRoot.appendingPathComponent("Plans/\(name)")
        let plan = try PlanFileReader.read(path: folder.appendingPathComponent("plan.yaml").path)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var digests: [String] = []
        for fuse in [true, false] {
            let store = directory.appendingPathComponent("\(fuse ? "fused" : "stepwise").sqlite").path
            let created = try runInstar(["store", "create", folder.appendingPathComponent("models/v1.yaml").path, "--store", store, "--layout", plan.layout])
            try #require(created.status == 0, "\(created.stderr)")
            let fill = try fillExampleStore(folder, store: store, rows: 400)
            try #require(fill.status == 0, "\(fill.stderr)")
            let migrator = Migrator(plan: plan)
            migrator.fuse = fuse
            guard case .finished(let steps) = try migrator.migrate(storeAt: store), steps > 0 else {
                Issue.record("\(name): the migration did not finish (fuse: \(fuse))")
                return
            }
            let opened = try SQLiteStore.open(at: store, layout: Layouts.named(plan.layout))
            // The finished run's journal record (its id and timings) is the only expected difference.
            try opened.withDatabase { db in
                if try db.tableExists("_instar_journal") { try db.execute(sql: #"DELETE FROM "_instar_journal""#) }
            }
            digests.append(try StoreContent.digest(opened))
            try opened.close()
        }
        #expect(digests[0] == digests[1])
    }
}
