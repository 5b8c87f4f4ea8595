import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarRuntime
@testable import InstarCLI  // ImplicitPlan.words, the CLI's words for the library's refusal

/// The cases of CoreDataFidelityTests (InstarStoreTests) that run `instar`.
@Suite struct CoreDataFidelityCLITests {
    /// The corpus's DuckDuckGo store was written through three merged models from two repositories.
    @Test(.needsCorpus)
    func theCorpusMergedStoreIsNamedAndMigrated() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = corpusRoot.appendingPathComponent("duckduckgo__iOS/DuckDuckGoTests/AppRatingPrompt_v1/Database.sqlite")
        let path = directory.appendingPathComponent("Database.sqlite").path
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: path + suffix)
        }
        let kit = corpusRoot.appendingPathComponent("duckduckgo__BrowserServicesKit/Sources")
        let models = [
            corpusRoot.appendingPathComponent("duckduckgo__iOS/DuckDuckGo/AppRatingPrompt.xcdatamodeld").path,
            kit.appendingPathComponent("BrowserServicesKit/SmarterEncryption/Store/HTTPSUpgrade.xcdatamodeld").path,
            kit.appendingPathComponent("RemoteMessaging/CoreData/RemoteMessaging.xcdatamodeld").path,
        ]
        let arguments = models.flatMap { ["--model", $0] }
        let inspected = try runInstar(["inspect", "--store", path, "--format", "json"] + arguments)
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(inspected.json?["mergedFrom"] as? [String] == ["AppRatingPrompt", "HTTPSUpgrade 3", "RemoteMessaging"])

        let migrated = try runInstar(["migrate", "--store", path, "--merge", "--progress", "none"] + arguments)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let after = try runInstar(["inspect", "--store", path, "--format", "json"] + arguments)
        #expect(after.status == 0)
        #expect(after.json?["mergedFrom"] as? [String] == ["AppRatingPrompt 2", "HTTPSUpgrade 3", "RemoteMessaging"])
        #expect((after.json?["rowCounts"] as? [String: Int])?["ZHTTPSEXCLUDEDDOMAIN"] == 30)
    }

    @Test(.needsCorpus)
    func aBundleWithoutAPlanMigratesAcrossEveryVersion() throws {
        let repository = corpusRoot.appendingPathComponent("jeffreybergier__CoreDataMigrationTests/CoreDataMigration")
        let bundle = repository.appendingPathComponent("CoreDataMigration/Model.xcdatamodeld").path
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Example.sqlite").path
        try FileManager.default.copyItem(
            atPath: repository.appendingPathComponent("CoreDataMigrationTests/Example_v1.0.0.sqlite").path, toPath: path)
        let before = try DatabaseQueue(path: path).read { db in try Row.fetchAll(db, sql: "SELECT * FROM ZBASICENTITY") }

        let plan = try runInstar(["plan", "--model", bundle, "--store", path, "--format", "json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        let unknown = runInstarInProcess(["migrate", "--store", path, "--model", bundle, "--to", "v9"])  // refused before a run
        #expect(unknown.status == 1)
        let refusal = try #require(#expect(throws: ImpliedPlanError.self) {
            try ImpliedPlan(models: [URL(fileURLWithPath: bundle)], store: URL(fileURLWithPath: path), target: "v9")
        })
        #expect({ if case .unknownTarget("v9", _) = refusal.kind { true } else { false } }(), "\(refusal)")
        #expect(unknown.stderr == "instar: \(ImplicitPlan.words(refusal, store: path))\n", "\(unknown.stderr)")

        let run = try runInstar(["migrate", "--store", path, "--model", bundle, "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        let inspected = try runInstar(["inspect", "--store", path, "--model", bundle, "--format", "json"])
        #expect(inspected.json?["version"] as? String == "v2.0.0")
        let after = try DatabaseQueue(path: path).read { db in try Row.fetchAll(db, sql: "SELECT * FROM ZBASICENTITY") }
        #expect(after.count == before.count)
        #expect(after.first?["ZV2_0_0_NAME"] as String? == before.first?["ZV1_0_0_NAME"] as String?)
    }
}
