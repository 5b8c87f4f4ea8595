@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts
import Testing
import InstarTestSupport

/// A plan with `layout: coredata` runs through the same planner and runtime, and leaves no Instar
/// tables behind in a store that Core Data will open.
@Suite struct CoreDataPlanTests {
    @Test func planOnACoreDataStoreLeavesNoInstarTables() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "name: V1\nentities:\n  Note:\n    attributes:\n      text: string?\n".write(
            to: dir.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        try "name: V2\nentities:\n  Note:\n    attributes:\n      text: string?\n      pinned: bool = NO\n  Tag:\n    attributes:\n      name: string?\n"
            .write(to: dir.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        let planPath = dir.appendingPathComponent("plan.yaml").path
        try "layout: coredata\nversions: [v1.yaml, v2.yaml]\n".write(toFile: planPath, atomically: true, encoding: .utf8)
        let plan = try PlanFileReader.read(path: planPath)
        let storePath = dir.appendingPathComponent("notes.sqlite").path
        let store = try SQLiteStore.create(at: storePath, model: plan.versions[0], layout: try #require(Layouts.named("coredata")))
        try store.withDatabase { db in
            try db.execute(sql: "INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZTEXT) VALUES (1, 1, 1, 'hello'), (2, 1, 1, NULL)")
        }
        try store.close()

        let result = try Migrator(plan: plan).migrate(storeAt: storePath)
        #expect(result == .finished(steps: 1))
        let reopened = try SQLiteStore.open(at: storePath)
        #expect(reopened.layout.name == "coredata")
        let tables = try reopened.withDatabase { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(!tables.contains { $0.hasPrefix("_instar_") }, "\(tables)")
        let detection = try reopened.detectVersion(among: plan.versions)
        #expect(detection.version?.name == "V2" && detection.matchedBy == .metadata && detection.drift.isEmpty)
        let rows = try reopened.withDatabase { db in
            try Row.fetchAll(db, sql: "SELECT ZTEXT, ZPINNED FROM ZNOTE ORDER BY Z_PK").map { [$0[0] as String?, ($0[1] as Int?).map(String.init)] }
        }
        #expect(rows == [["hello", "0"], [nil, "0"]])
    }

    @Test(.needsCorpus) func aPlanOverABundleRunsOnARealCoreDataStore() throws {
        // Apptentive's ATDataModel bundle and its version-1 store (framework 419): the planner, runtime
        // and journal work unchanged; the journal's tables are not part of the schema.
        // The bundle is copied away from the app's mapping models, which would otherwise fix every step
        // (MappingStepTests cover those): here the steps are inferred.
        let data = corpusRoot.appendingPathComponent("apptentive__apptentive-ios/Apptentive")
        let original = data.appendingPathComponent("ApptentiveTests/data/ATDataModelv1.sqlite")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Model/ATDataModel.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: data.appendingPathComponent("Apptentive/Model/ATDataModel.xcdatamodeld"), to: bundle)
        let store = directory.appendingPathComponent("ATDataModel.sqlite")
        try FileManager.default.copyItem(at: original, to: store)
        let planFile = directory.appendingPathComponent("plan.yaml")
        try "name: apptentive\nlayout: coredata\nbundle: \(bundle.path)\ntarget: ATDataModel 3\n"
            .write(to: planFile, atomically: true, encoding: .utf8)
        let plan = try PlanFileReader.read(path: planFile.path)
        let result = try Migrator(plan: plan).migrate(storeAt: store.path)
        guard case .finished(let steps) = result else {
            Issue.record("the migration did not finish: \(result)")
            return
        }
        #expect(steps >= 1)
        let opened = try SQLiteStore.open(at: store.path, readOnly: true)
        defer { try? opened.close() }
        #expect((opened.layout as? CoreDataLayout)?.frameworkVersion == 419)
        let detection = try opened.detectVersion(among: plan.versions)
        #expect(detection.version?.name == "ATDataModel 3" && detection.isExactMatch)
        #expect(try opened.rowCounts()["ZATRECORD"] == 3)
        #expect(try !opened.schema().tables.contains { $0.name.hasPrefix("_instar_") })
    }
}
