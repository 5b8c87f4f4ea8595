import Foundation
import GRDB
import Testing
import InstarRuntime
import InstarTestSupport
import InstarStoreTestSupport
@testable import InstarCLI

/// Mapping steps on real apps' stores, through `instar migrate --store COPY --model <bundle>` (the
/// plan-less bundle migration, which finds the mapping models beside the bundle).
@Suite struct MappingStepCorpusTests {
    /// A copy of a corpus store with its -wal/-shm, in a temporary folder.
    static func copy(_ relative: String, into folder: URL, as name: String) throws -> String {
        let source = corpusRoot.appendingPathComponent(relative)
        let target = folder.appendingPathComponent(name)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path + suffix)
        }
        return target.path
    }

    static func rows(_ path: String, _ sql: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: sql).map { row in
                row.databaseValues.map { $0.isNull ? "NULL" : "\($0)" }.joined(separator: "|")
            }
        }.sorted()
    }

    /// Tables with their columns (name, declared type, key) and indexes with their columns: the schema
    /// as SQLite reads it, whatever the spelling of the `CREATE` statements.
    static func schema(_ path: String) throws -> [String] {
        try rows(
            path,
            "SELECT m.name, p.cid, p.name, p.type, p.pk FROM sqlite_master AS m, pragma_table_info(m.name) AS p WHERE m.type = 'table'")
            + rows(
                path,
                "SELECT m.tbl_name, m.name, i.seqno, i.name FROM sqlite_master AS m, pragma_index_info(m.name) AS i WHERE m.type = 'index'")
    }

    /// objc.io Moody 4 → 5: `Country.isoContinent = $source.continent.numericISO3166Code`, and the
    /// `Continent` entity goes. Compared with the real `Moody 5.moody` Core Data wrote: same schema, the
    /// same rows with the same values (Core Data gave the countries new keys; links are compared through
    /// the countries' codes).
    @Test(.needsCorpus) func moodyFourToFiveMatchesCoreData() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tests = "objcio__core-data/Migrations/MigrationsTests/"
        let store = try Self.copy(tests + "Moody 4.moody", into: folder, as: "work.moody")
        let real = try Self.copy(tests + "Moody 5.moody", into: folder, as: "real.moody")
        let bundle = corpusRoot.appendingPathComponent("objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld").path
        let result = try runInstar(["migrate", "--store", store, "--model", bundle, "--to", "Moody 5"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.schema(store) == Self.schema(real))
        let countries = """
            SELECT Z_ENT, ZISOCONTINENT, ZNUMBEROFMOODS, ZNUMERICISO3166CODE, ZUNIQUENESSDUMMY, ZMARKEDFORDELETIONDATE, ZUPDATEDAT FROM ZCOUNTRY
            """
        #expect(try Self.rows(store, countries) == Self.rows(real, countries))
        let moods = """
            SELECT m.Z_ENT, m.ZMARKEDFORREMOTEDELETION, m.ZRATING, c.ZNUMERICISO3166CODE, m.ZDATE, m.ZLATITUDE, m.ZLONGITUDE,
              m.ZMARKEDFORDELETIONDATE, m.ZCREATORID, m.ZREMOTEID, hex(m.ZCOLORS) FROM ZMOOD AS m LEFT JOIN ZCOUNTRY AS c ON c.Z_PK = m.ZCOUNTRY
            """
        #expect(try Self.rows(store, moods) == Self.rows(real, moods))
        let numbers = "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY"
        #expect(try Self.rows(store, numbers) == Self.rows(real, numbers))
    }

    /// objc.io Moody 2 → 3: `Continent.moods` is `$source.countries.@distinctUnionOfSets.moods`, the
    /// union of the moods of a continent's countries, followed link by link. Compared with Moody 3.moody.
    @Test(.needsCorpus) func moodyTwoToThreeFollowsAUnionOfSets() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tests = "objcio__core-data/Migrations/MigrationsTests/"
        let store = try Self.copy(tests + "Moody 2.moody", into: folder, as: "work.moody")
        let real = try Self.copy(tests + "Moody 3.moody", into: folder, as: "real.moody")
        let bundle = corpusRoot.appendingPathComponent("objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld").path
        let result = try runInstar(["migrate", "--store", store, "--model", bundle, "--to", "Moody 3"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.schema(store) == Self.schema(real))
        for link in ["ZCONTINENT", "ZCOUNTRY"] {
            let moods = "SELECT r.Z_ENT, r.ZNUMERICISO3166CODE, count(*) FROM ZMOOD AS m JOIN ZGEOGRAPHICREGION AS r ON r.Z_PK = m.\(link) GROUP BY 1, 2"
            #expect(try Self.rows(store, moods) == Self.rows(real, moods))
        }
        let regions = "SELECT Z_ENT, ZNUMERICISO3166CODE, ZNUMBEROFMOODS, ZNUMBEROFCOUNTRIES FROM ZGEOGRAPHICREGION"
        #expect(try Self.rows(store, regions) == Self.rows(real, regions))
    }

    /// A kill right after the first of two mapping steps committed (Moody 3 → 4 → 5): the next run
    /// resumes at the second and finishes.
    @Test(.needsCorpus) func killedBetweenMappingStepsResumes() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Self.copy("objcio__core-data/Migrations/MigrationsTests/Moody 3.moody", into: folder, as: "work.moody")
        let bundle = corpusRoot.appendingPathComponent("objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld").path
        let killed = try runInstar(
            ["migrate", "--store", store, "--model", bundle, "--to", "Moody 5"], environment: ["INSTAR_FAILPOINT": "step.after-commit"])
        #expect(killed.status != 0)
        let resumed = try runInstar(["migrate", "--store", store, "--model", bundle, "--to", "Moody 5", "--progress", "json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        // The first step's transaction moved the journal on to the second (it has no hooks after it).
        let started = resumed.progressEvents.first { $0.resumedAt != nil }
        #expect(started?.resumedAt == "step 2/2 (Moody 4 → Moody 5), before phase, hook 1", "\(resumed.stdout)")
        let inspect = try runInstar(["inspect", "--store", store, "--model", bundle, "--format", "json"])
        #expect((try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])?["version"] as? String == "Moody 5", "\(inspect.stdout) \(inspect.stderr)")
    }

    /// The library's refusal of a migration whose mapping step needs app code: the hooks it misses.
    static func missingHooks(store: String, bundle: String, target: String) throws -> HookError {
        let implied = try ImpliedPlan(models: [URL(fileURLWithPath: bundle)], store: URL(fileURLWithPath: store), target: target)
        return try #require(#expect(throws: HookError.self) { try Migrator(plan: implied.plan).migrate(storeAt: store) })
    }

    /// What `instar migrate --store <store> --model <bundle> --to <target>` prints for `refusal`.
    static func words(_ refusal: HookError, store: String, bundle: String, target: String) -> String {
        let resume = ImplicitPlan.resumeCommand(models: [bundle], store: store, target: target, merge: false)
        return "instar: \(ErrorHints.text(refusal, resume: resume))\n"
    }

    /// Moody 5 → 6 has a custom policy: refused before anything is written, naming the hook.
    @Test(.needsCorpus) func moodyCustomPolicyNamesItsHook() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Self.copy("objcio__core-data/Migrations/MigrationsTests/Moody 5.moody", into: folder, as: "work.moody")
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let bundle = corpusRoot.appendingPathComponent("objcio__core-data/Migrations/Migrations/Moody.xcdatamodeld").path
        let result = try runInstar(["migrate", "--store", store, "--model", bundle, "--to", "Moody 6"])
        #expect(result.status != 0)
        let refusal = try Self.missingHooks(store: store, bundle: bundle, target: "Moody 6")
        #expect(refusal.missing.map(\.hook) == ["Moody 5-Moody 6.CountryToCountry"], "\(refusal)")
        #expect(refusal.missing.allSatisfy { if case .mapping = $0.reason { true } else { false } }, "\(refusal)")
        #expect(result.stderr == Self.words(refusal, store: store, bundle: bundle, target: "Moody 6"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    /// apptentive ATDataModel 1 → 6 crosses five mapping models (an abstract entity replaced, a
    /// hierarchy merged into one entity); each store migrates to the next version with the schema Core
    /// Data gave the next store.
    @Test(.needsCorpus, arguments: 1...5) func apptentiveStepsMatchTheNextStoresSchema(version: Int) throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = "apptentive__apptentive-ios/Apptentive/ApptentiveTests/data/"
        let store = try Self.copy(data + "ATDataModelv\(version).sqlite", into: folder, as: "work.sqlite")
        let real = try Self.copy(data + "ATDataModelv\(version + 1).sqlite", into: folder, as: "real.sqlite")
        let bundle = corpusRoot.appendingPathComponent("apptentive__apptentive-ios/Apptentive/Apptentive/Model/ATDataModel.xcdatamodeld").path
        let result = try runInstar(["migrate", "--store", store, "--model", bundle, "--to", "ATDataModel \(version + 1)"])
        #expect(result.status == 0, "\(result.stderr)")
        // Z_MODELCACHE follows the framework version that wrote the store (the v6 store was written by a
        // newer Core Data than the v5 store it is compared with), not the mapping step.
        let tables = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'Z_MODELCACHE'"
        #expect(try Self.rows(store, tables) == Self.rows(real, tables))
    }

    /// CareKit 2.0 → 2.1: its mapping model has custom policies, which need app code: refused, naming
    /// the hooks, with the store file unchanged.
    @Test(.needsCorpus) func careKitCustomPoliciesAreRefusedUnchanged() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Self.copy(
            "carekit-apple__CareKit/CareKitStore/CareKitStoreTests/CoreDataSchema/Migrations/SampleStore2.0.sqlite", into: folder,
            as: "work.sqlite")
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let bundle = corpusRoot.appendingPathComponent("carekit-apple__CareKit/CareKitStore/CareKitStore/CoreData/CareKitStore.xcdatamodeld").path
        let result = try runInstar(["migrate", "--store", store, "--model", bundle, "--to", "CareKitStore2.1"])
        #expect(result.status != 0)
        let refusal = try Self.missingHooks(store: store, bundle: bundle, target: "CareKitStore2.1")
        #expect(!refusal.missing.isEmpty && refusal.missing.allSatisfy { $0.hook.hasPrefix("2.0_2.1_Mapping.") }, "\(refusal)")
        #expect(refusal.missing.allSatisfy { if case .mapping = $0.reason { true } else { false } }, "\(refusal)")
        #expect(result.stderr == Self.words(refusal, store: store, bundle: bundle, target: "CareKitStore2.1"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }
}
