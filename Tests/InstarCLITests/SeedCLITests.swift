import Foundation
import GRDB
import Testing
@_spi(Layouts) @testable import InstarStore
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
import InstarSeeding
import InstarTestSupport

/// The cases of SeedTests (InstarStoreTests) that run `instar`.
@Suite struct SeedCLITests {
    /// A column's own CHECK clause (an adopted model's `columnSQL`) is asked before each value: the
    /// edge values it forbids (negative numbers here) are replaced, and the seed goes through.
    @Test func seededValuesSatisfyAColumnsCheck() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let modelPath = directory.appendingPathComponent("shop.yaml").path
        try """
            name: Shop 1
            entities:
              Item:
                attributes:
                  qty: {type: int64, columnSQL: "CHECK (qty >= 0)"}
                  price: {type: double, optional: true, columnSQL: "CHECK (price BETWEEN 0 AND 1000)"}

            """.write(toFile: modelPath, atomically: true, encoding: .utf8)
        let store = directory.appendingPathComponent("shop.sqlite").path
        #expect(try runInstar(["store", "create", modelPath, "--store", store, "--layout", "sql"]).status == 0)
        let seeded = try runInstar(["store", "seed", store, "--rows", "60", "--layout", "sql", "--model", modelPath])
        #expect(seeded.status == 0, "\(seeded.stdout)\(seeded.stderr)")
        let queue = try DatabaseQueue(path: store)
        defer { try? queue.close() }
        let (rows, bad) = try queue.read { db in
            (try Int.fetchOne(db, sql: #"SELECT count(*) FROM "Item""#) ?? 0,
             try Int.fetchOne(db, sql: #"SELECT count(*) FROM "Item" WHERE "qty" < 0 OR "price" NOT BETWEEN 0 AND 1000"#) ?? 0)
        }
        #expect(rows == 60 && bad == 0)
    }

    /// The command: a refusal exits 65 and leaves the file as it was; a seeded Garage 1 store migrates
    /// with its plan, and a Core Data store of it with `--to-model`.
    @Test func theCommandSeedsStoresThatThenMigrate() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let models = packageRoot.appendingPathComponent("Plans/garage/models")
        let (v1, v3) = (models.appendingPathComponent("v1.yaml").path, models.appendingPathComponent("v3.yaml").path)
        let store = directory.appendingPathComponent("garage.sqlite").path
        #expect(try runInstar(["store", "create", v1, "--store", store]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let refused = try runInstar(["store", "seed", store, "--rows", "5", "--rows-for", "Nope=2"])
        #expect(refused.status == 65, "\(refused.stderr)")  // the words: golden cli/seed-test-refusals.txt
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        let seeded = try runInstar(["store", "seed", store, "--rows", "50", "--seed", "9"])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let counted = try SQLiteStore.open(at: store, readOnly: true)
        #expect(try counted.rowCounts()["Car"] == 50)
        try counted.close()
        let plan = packageRoot.appendingPathComponent("Plans/garage/plan.yaml").path
        let migrated = try runInstar(["migrate", plan, "--store", store])
        #expect(migrated.status == 0, "\(migrated.stdout)\(migrated.stderr)")

        let coreData = directory.appendingPathComponent("garage-cd.sqlite").path
        #expect(try runInstar(["store", "create", v1, "--store", coreData, "--layout", "coredata"]).status == 0)
        #expect(try runInstar(["store", "seed", coreData, "--rows", "40"]).status == 1)  // version unknown without --model
        #expect(try runInstar(["store", "seed", coreData, "--rows", "40", "--model", v1]).status == 0)
        let converted = try runInstar(["migrate", "--store", coreData, "--model", v1, "--to-model", v3])
        #expect(converted.status == 0, "\(converted.stdout)\(converted.stderr)")
    }
}
