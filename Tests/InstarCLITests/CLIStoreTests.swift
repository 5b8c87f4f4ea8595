import Foundation
import Testing
@_spi(Layouts) import Instar
import InstarTestSupport
import InstarStoreTestSupport
@testable import InstarCLI  // ErrorHints, the words the CLI adds to a library error

/// `instar store create`, `instar inspect` and `instar migrate`, run as a user would.
@Suite struct CLIStoreTests {
    let garage = packageRoot.appendingPathComponent("Plans/garage/models")

    func model(_ name: String) -> String { garage.appendingPathComponent(name).path }

    @Test func createInspectMigrateInspect() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("garage.sqlite").path
        let created = try runInstar(["store", "create", model("v1.yaml"), "--store", store])
        #expect(created.status == 0, "\(created.stderr)")

        let inspect = try runInstar(["inspect", "--store", store, "--model", model("v1.yaml"), "--format", "json"])
        #expect(inspect.status == 0)
        let json = try #require(inspect.json)
        #expect(json["layout"] as? String == "instar")
        #expect(json["version"] as? String == "Garage 1")
        #expect(json["matchedBy"] as? String == "metadata")
        #expect((json["drift"] as? [Any])?.isEmpty == true)

        // The dry run's text (its SQL renames color to finish): golden cli/migrate-dry-run.txt.
        let dry = runInstarInProcess(["migrate", "--store", store, "--to-model", model("v3.yaml"), "--dry-run"])
        #expect(dry.status == 0)
        let migrated = try runInstar(["migrate", "--store", store, "--to-model", model("v3.yaml")])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let chain = try #require(try Migrator.status(ofStoreAt: store).journal).chain
        #expect(chain.first?.from == "Garage 1" && chain.last?.to == "Garage 3", "\(chain)")

        let after = try runInstar(["inspect", "--store", store, "--format", "json"])
        #expect(after.json?["version"] as? String == "Garage 3")
        let again = try runInstar(["migrate", "--store", store, "--to-model", model("v3.yaml"), "--progress", "json"])
        #expect(again.status == 0 && again.progressEvents.isEmpty, "already at the target, nothing runs: \(again.stdout)")
    }

    @Test func inspectWithoutMetadataMatchesBySchemaOrReportsDrift() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("g.sqlite").path
        #expect(try runInstar(["store", "create", model("v2.yaml"), "--store", store]).status == 0)
        // Without its metadata the store is known by its tables and columns.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('DROP TABLE _instar_metadata'); c.commit()", store]
        try process.run()
        process.waitUntilExit()
        let bySchema = try runInstar([
            "inspect", "--store", store, "--model", model("v1.yaml"), "--model", model("v2.yaml"), "--format", "json",
        ])
        #expect(bySchema.status == 0)
        #expect(bySchema.json?["version"] as? String == "Garage 2")
        #expect(bySchema.json?["matchedBy"] as? String == "schema")
        // Against v1 and v3 only: no match, the closest is named with its exact differences.
        let drift = try runInstar(["inspect", "--store", store, "--model", model("v1.yaml"), "--model", model("v3.yaml"), "--format", "json"])
        #expect(drift.status == 1)
        let json = try #require(drift.json)
        #expect(json["version"] is NSNull)
        #expect(json["closest"] as? String != nil)
        #expect((json["drift"] as? [String])?.isEmpty == false)
        // And migrate refuses, naming the closest version.
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let refused = try runInstar(["migrate", "--store", store, "--to-model", model("v3.yaml"), "--model", model("v1.yaml")])
        #expect(refused.status == 1)
        // The library refuses the same plan with the facts (the closest version and its drift), which the CLI prints.
        let implied = try ImpliedPlan.toModel(
            URL(fileURLWithPath: model("v3.yaml")), from: [URL(fileURLWithPath: model("v1.yaml"))], store: URL(fileURLWithPath: store))
        let unknown = try #require(#expect(throws: StoreError.self) { try Migrator(plan: implied.plan).migrate(storeAt: store) })
        #expect(unknown.kind == .unknownVersion && unknown.closestVersion == "Garage 1" && !unknown.drift.isEmpty, "\(unknown)")
        #expect(refused.stderr == "instar: \(ErrorHints.text(unknown))\n", "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    @Test func migrateErrorsHaveExitCodesAndLeaveTheStoreAlone() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = try runInstar(["migrate", "--store", dir.appendingPathComponent("none.sqlite").path, "--to-model", model("v2.yaml")])
        #expect(missing.status == 66, "\(missing.stderr)")  // the refusal's words: golden cli/refusals.txt
        let store = dir.appendingPathComponent("g.sqlite").path
        #expect(try runInstar(["store", "create", model("v1.yaml"), "--store", store]).status == 0)
        let exists = try runInstar(["store", "create", model("v1.yaml"), "--store", store])
        #expect(exists.status == 1, "\(exists.stderr)")  // the refusal's words: golden cli/refusals.txt
        let incompatible = dir.appendingPathComponent("bad.yaml")
        try "entities:\n  Owner:\n    attributes:\n      name: int64\n".write(to: incompatible, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let refused = try runInstar(["migrate", "--store", store, "--to-model", incompatible.path])
        #expect(refused.status == 1, "\(refused.stderr)")
        // The library's refusal of the same step: no chain from the store's version, blocked at Owner.name.
        let implied = try ImplicitPlan.makeToModel(incompatible.path, candidates: [], storePath: store)
        let noChain = try #require(#expect(throws: NoChain.self) { try Migrator(plan: implied).migrate(storeAt: store) })
        #expect(noChain.from == "Garage 1" && noChain.to == "bad", "\(noChain)")
        #expect(noChain.gaps.flatMap(\.blocking).map(\.subject).contains("Owner.name"), "\(noChain)")
        #expect(refused.stderr.hasPrefix("instar: \(noChain.description)\n"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }
}
