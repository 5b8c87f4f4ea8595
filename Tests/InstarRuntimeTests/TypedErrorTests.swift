import Foundation
@_spi(Layouts) import Instar
import Testing
import InstarTestSupport
import InstarRuntimeTestSupport

/// An app catches one type, `InstarError`, and switches on its domain; each case carries the facts
/// (drift items, SQLite's codes, a hook's error or exit status) rather than a message to parse.
@Suite struct TypedErrorTests {
    /// The store's schema drifted from the version its metadata names: the run refuses, and the
    /// error lists each difference as a value.
    @Test func driftArrivesAsItemsThroughTheUmbrella() throws {
        let f = try RuntimeFixture(rows: 2, stage: "after: []", hooks: "  unused: {sql: ['SELECT 1']}\n")
        defer { f.remove() }
        try f.execute(#"ALTER TABLE "Item" ADD COLUMN "sneaky" TEXT"#)
        let before = try f.bytes()
        do {
            try f.migrator().migrate(storeAt: f.store)
            Issue.record("expected the drift to stop the run")
        } catch let error as InstarError {
            guard case .store(let store) = error.domain else {
                Issue.record("expected a store error, got \(error)")
                return
            }
            #expect(store.kind == .schemaDrift, "\(store)")
            #expect(store.drift.map(\.kind) == [.extraColumn])
            #expect(store.drift.first?.table == "Item" && store.drift.first?.column == "sneaky")
            #expect(store.path == f.store)
        }
        #expect(try f.bytes() == before, "nothing was written")
    }

    /// A store at no version of the plan names the closest one and how it differs from it.
    @Test func anUnknownVersionNamesTheClosestAndItsDrift() throws {
        let f = try RuntimeFixture(rows: 2, stage: "after: []", hooks: "  unused: {sql: ['SELECT 1']}\n")
        defer { f.remove() }
        try f.execute(#"ALTER TABLE "Log" RENAME COLUMN "msg" TO "text""#)
        try f.execute(#"DELETE FROM "_instar_metadata""#)
        let error = #expect(throws: StoreError.self) { try f.migrator().migrate(storeAt: f.store) }
        #expect(error?.kind == .unknownVersion, "\(String(describing: error))")
        #expect(error?.closestVersion == "V1")
        #expect(Set(error?.drift.map(\.kind) ?? []) == [.missingColumn, .extraColumn])
        #expect(error?.drift.allSatisfy { $0.table == "Log" } == true)
    }

    /// The dry run throws only what an app can name: a store that is not there is a `StoreError`
    /// of kind `notFound`, reached through the umbrella's domain.
    @Test func theDryRunThrowsOnlyStoreErrors() throws {
        let f = try RuntimeFixture(rows: 1, stage: "after: []", hooks: "  unused: {sql: ['SELECT 1']}\n")
        defer { f.remove() }
        let plan = try PlanFileReader.read(path: f.plan)
        let missing = f.dir.appendingPathComponent("absent.sqlite").path
        do {
            _ = try DryRun.report(plan: plan, storePath: missing)
            Issue.record("expected no store to be an error")
        } catch {
            // `error` is statically a StoreError: typed throws say so to the compiler.
            #expect(error.kind == .notFound && error.path == missing)
            let umbrella: any InstarError = error
            guard case .store = umbrella.domain else {
                Issue.record("expected the store domain")
                return
            }
        }
        #expect(!FileManager.default.fileExists(atPath: missing), "a dry run creates nothing")
    }

    /// A failing SQL hook keeps SQLite's facts: the hook error's underlying error is a store error
    /// with SQLite's code and the statement that failed.
    @Test func aFailingSQLHookKeepsSQLitesFacts() throws {
        let f = try RuntimeFixture(rows: 1, stage: "before: [bad]", hooks: "  bad: {sql: ['INSERT INTO \"Nowhere\" VALUES (1)']}\n")
        defer { f.remove() }
        do {
            try f.migrator().migrate(storeAt: f.store)
            Issue.record("expected the hook to fail")
        } catch let error as InstarError {
            guard case .hook(let hook) = error.domain else {
                Issue.record("expected a hook error, got \(error)")
                return
            }
            #expect(hook.hook == "bad" && hook.kind == .failed && hook.step == "V1 → V2")
            let store = try #require(hook.underlying as? StoreError, "\(hook)")
            #expect(store.sqlite?.code == ResultCode.SQLITE_ERROR.rawValue)
            #expect(store.sqlite?.sql?.contains("Nowhere") == true)
        }
        #expect(try f.version() == "V1")
    }

    /// A model that does not parse is the model domain, with its problems and their positions.
    @Test func aBadModelIsTheModelDomainWithPositions() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.yaml")
        try "name: V1\nentities:\n  Track:\n    attributes:\n      title: strng\n".write(to: file, atomically: true, encoding: .utf8)
        do {
            _ = try ModelLoader.load(file.path)
            Issue.record("expected an unknown type to be refused")
        } catch {
            let umbrella: any InstarError = error
            guard case .model(let model) = umbrella.domain else {
                Issue.record("expected the model domain, got \(umbrella)")
                return
            }
            #expect(model.problems.first?.location?.line == 5, "\(model)")
        }
    }
}
