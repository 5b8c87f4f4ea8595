import Foundation
import GRDB
@_spi(Layouts) import Instar
import InstarMapping
import InstarPlanner
import Testing
import InstarTestSupport

/// `PlanExport`: the folder an app ships reads back as the plan it was written from (versions by
/// hash and tables, mapping models by expression, the bundle's lack of order, stages and hooks), plans
/// the same chains, migrates a store to the same rows, and is written whole or not at all.
@Suite struct PlanExportTests {
    static let schoolClasses = packageRoot.appendingPathComponent("Plans/school-classes/plan.yaml")

    /// The school-classes plan as a bundle would imply it: no order but the target, its mapping model
    /// given a custom policy (a hook the app registers) and a filter.
    static func bundleLikePlan() throws -> Plan {
        var plan = try PlanFileReader.read(url: schoolClasses)
        plan.versionsAreOrdered = false
        plan.mappings[0].model.entityMappings[0].customPolicyClass = "StudentPolicy"
        return plan
    }

    func chains(_ plan: Plan) throws -> [String] {
        let finder = ChainFinder(graph: VersionGraph(plan: plan))
        return try plan.startingVersions(for: plan.targetVersion!).map { start in
            try finder.cheapestChain(from: start.name, to: plan.targetVersion!).steps
                .map { "\($0.from)→\($0.to) \($0.kind.rawValue) \($0.choice)" }.joined(separator: ", ")
        }
    }

    @Test func theExportReadsBackAsThePlanAndPlansTheSameChains() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plan = try Self.bundleLikePlan()
        let summary = try PlanExport.write(plan, to: dir.appendingPathComponent("Migrations"))
        #expect(summary.modelFiles.count == 3 && summary.mappingFiles.count == 1)
        #expect(summary.mappingHooks.map(\.name) == ["v2-to-v3.StudentToStudent"])
        let read = try PlanFileReader.read(url: summary.planFile)
        #expect(read.versionsAreOrdered == false)
        #expect(read.versions.map { VersionHashes(model: $0) } == plan.versions.map { VersionHashes(model: $0) })
        #expect(read.mappings.map(\.model.entityMappings[0].customPolicyClass) == ["StudentPolicy"])
        #expect(try chains(read) == chains(plan))
        let text = try String(contentsOf: summary.planFile, encoding: .utf8)
        #expect(text.contains(#"migrator.register(mappingHook: "v2-to-v3.StudentToStudent")"#), "the hooks to register head the plan file")
    }

    /// A store migrated by the export equals one migrated by the plan it came from, rows included;
    /// the policy hook is registered under the name the export gives.
    @Test func theExportMigratesAStoreAsThePlanDoes() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plan = try Self.bundleLikePlan()
        let summary = try PlanExport.write(plan, to: dir.appendingPathComponent("Migrations"))
        let exported = try PlanFileReader.read(url: summary.planFile)
        var results: [[Row]] = []
        for (index, migrating) in [plan, exported].enumerated() {
            let store = dir.appendingPathComponent("s\(index).sqlite").path
            let created = try SQLiteStore.create(at: store, model: plan.versions[0])
            try created.withDatabase { db in
                try db.execute(sql: #"INSERT INTO "Clazz" ("_pk", "name") VALUES (1, 'Blue'), (2, 'Red')"#)
                try db.execute(sql: #"INSERT INTO "Student" ("_pk", "name", "clazz") VALUES (1, 'Ada', 1), (2, 'Bo', 2), (3, 'Cy', NULL)"#)
            }
            try created.close()
            let migrator = Migrator(plan: ImpliedPlan(exported: migrating, store: URL(fileURLWithPath: store)).plan)
            migrator.register(mappingHook: summary.mappingHooks[0].name) { _ in }
            #expect(try migrator.migrate(storeAt: store) == .finished(steps: 2))
            let queue = try DatabaseQueue(path: store)
            results.append(try queue.read { db in try Row.fetchAll(db, sql: #"SELECT * FROM "Student" ORDER BY "_pk""#) })
            try queue.close()
        }
        #expect(results[0] == results[1])
        #expect(results[1].map { $0["clazzName"] as String? } == ["Blue", "Red", nil])
    }

    @Test func anExistingFolderIsRefusedAndLeftAlone() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("Migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try "mine".write(to: folder.appendingPathComponent("keep.txt"), atomically: true, encoding: .utf8)
        let error = #expect(throws: PlanExportError.self) { try PlanExport.write(try Self.bundleLikePlan(), to: folder) }
        #expect(error?.kind == .exists)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["keep.txt"])
        // A dangling link is something too: never written through.
        let link = dir.appendingPathComponent("Link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: dir.appendingPathComponent("nowhere").path)
        #expect(throws: PlanExportError.self) { try PlanExport.write(try Self.bundleLikePlan(), to: link) }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("nowhere").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["Link", "Migrations"])
    }

    /// Every bundle of the corpus with mapping models beside it exports, reads back, and plans the
    /// same chain from every version as the bundle itself.
    @Test(.needsCorpus) func everyCorpusBundleWithMappingModelsExportsAndPlansAlike() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var exported = 0
        for bundle in MappingCorpus.bundlesWithMappingModels() {
            let implied = try ImpliedPlan(models: [bundle])
            guard !implied.plan.mappings.isEmpty else { continue }
            let folder = dir.appendingPathComponent("export-\(exported)")
            let summary = try PlanExport.write(implied.plan, to: folder)
            let read = try PlanFileReader.read(url: summary.planFile)
            #expect(try chains(read) == chains(implied.plan), "\(bundle.path)")
            exported += 1
        }
        #expect(exported >= 10, "bundles with matched mapping models: \(exported)")
    }
}
