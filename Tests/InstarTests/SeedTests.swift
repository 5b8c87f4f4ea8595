@_spi(Layouts) import InstarLayouts
import Foundation
import GRDB
import Testing

@_spi(Layouts) @testable import InstarStore
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
import InstarSeeding
import InstarTestSupport

/// `instar store seed` and ``SQLiteStore/seed(model:options:)``: row counts, links, constraints,
/// edge values, determinism, refusals and Core Data's bookkeeping, in every layout.
@Suite struct SeedTests {
    /// Every attribute type, a hierarchy under an abstract root (not in the sql layout, which has none),
    /// uniqueness constraints, required and optional to-ones, a one-to-one, a one-to-many, an ordered
    /// one-to-many, an ordered many-to-many and a reflexive many-to-many that is its own inverse.
    static func seedModel(hierarchy: Bool) throws -> Model {
        let items =
            hierarchy
            ? """
              Item:
                abstract: true
                unique: [[code]]
                attributes:
                  code: string
                  title: string?
                relationships:
                  owner: Person inverse items
                  tags: Tag[] inverse items
                  badges: Badge[] inverse pinned
              Book:
                parent: Item
                attributes:
                  pages: int16 = 100
              Gadget:
                parent: Item
                attributes:
                  weight: double?
            """
            : """
              Item:
                unique: [[code]]
                attributes:
                  code: string
                  title: string?
                  pages: int16 = 100
                relationships:
                  owner: Person inverse items
                  tags: Tag[] inverse items
                  badges: Badge[] inverse pinned
            """
        return try model(
            """
            name: Seed 1
            entities:
            \(items)
              Person:
                unique: [[email]]
                attributes:
                  email: string
                  nick: string?
                  i16: int16?
                  i32: int32?
                  i64: int64 = 7
                  amount: decimal?
                  ratio: double?
                  score: float?
                  flag: bool = true
                  born: date?
                  uid: uuid?
                  site: uri?
                  photo: binary?
                  extra: transformable?
                relationships:
                  items: Item[] ordered inverse owner
                  friends: Person[] inverse friends
                  mentor: Person? inverse mentees
                  mentees: Person[] inverse mentor
                  badge: Badge? inverse holder
              Badge:
                attributes:
                  level: int32
                relationships:
                  holder: Person inverse badge
                  pinned: Item? inverse badges
              Tag:
                attributes:
                  label: string
                  active: bool?
                relationships:
                  items: Item[] ordered inverse tags
            """, name: "Seed 1")
    }

    static let layouts = ["instar", "coredata", "sql"]

    /// A new store of the test model in `layout`, in a fresh folder.
    static func makeStore(_ layout: String, model: Model? = nil) throws -> (SQLiteStore, Model, URL) {
        let model = try model ?? seedModel(hierarchy: layout != "sql")
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("seed.sqlite").path
        let store = try SQLiteStore.create(at: path, model: model, layout: Layouts.named(layout)!)
        return (store, model, directory)
    }

    @Test(arguments: layouts) func fillsEveryEntityAndKeepsTheStoreSound(layout: String) throws {
        let (store, model, directory) = try Self.makeStore(layout)
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = try store.seed(model: model, options: SeedOptions(rows: 50, seed: 3))
        let map = try store.layout.storageMap(for: model)
        try store.withDatabase { db in
            for entity in model.entities {
                let expected = entity.isAbstract ? 0 : 50
                #expect(try SeedCheck.count(db, map, entity.name, exactly: true) == expected, "\(layout) \(entity.name)")
                if !entity.isAbstract { #expect(report.rows[entity.name] == 50) }
            }
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            try SeedCheck.requiredValuesPresent(db, map, model, layout: layout)
            try SeedCheck.linksPointAtRightRows(db, map, model, layout: layout)
            for (entity, property) in [("Item", "code"), ("Person", "email")] {
                let table = map.entities[entity]!.table
                let column = SQLIdentifier.quoted(map.entities[entity]!.columns[property]!)
                let duplicates = try Int.fetchOne(
                    db, sql: "SELECT count(\(column)) - count(DISTINCT \(column)) FROM \(SQLIdentifier.quoted(table))")
                #expect(duplicates == 0, "\(layout) \(entity).\(property) unique")
            }
        }
        #expect(report.linkRows.values.allSatisfy { $0 > 0 })
    }

    @Test(arguments: layouts) func writesTheEdgeValuesOnTheFirstRows(layout: String) throws {
        let (store, model, directory) = try Self.makeStore(layout)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try store.seed(model: model, options: SeedOptions(rows: 10))
        let person = try store.layout.storageMap(for: model).entities["Person"]!
        func values(_ property: String) throws -> [DatabaseValue] {
            try store.withDatabase { db in
                try DatabaseValue.fetchAll(
                    db, sql: "SELECT \(SQLIdentifier.quoted(person.columns[property]!)) FROM \(SQLIdentifier.quoted(person.table))")
            }
        }
        let nicks = try values("nick").compactMap { String.fromDatabaseValue($0) }
        #expect(nicks.contains(""))
        #expect(nicks.contains { $0.unicodeScalars.contains { !$0.isASCII } })
        #expect(nicks.contains { $0.contains("'") && $0.contains("\"") })
        #expect(try values("nick").contains(.null))
        let big = try values("i64").compactMap { Int64.fromDatabaseValue($0) }
        #expect(big.contains(.min) && big.contains(.max) && big.contains(7))
        #expect(try values("i16").compactMap { Int64.fromDatabaseValue($0) }.contains(Int64(Int16.min)))
        #expect(try values("ratio").compactMap { Double.fromDatabaseValue($0) }.contains { $0 < 0 })
        #expect(try values("photo").compactMap { Data.fromDatabaseValue($0) }.contains(Data()))
        #expect(try values("flag").compactMap { Int64.fromDatabaseValue($0) }.sorted().first == 0)
        let uids = try values("uid").filter { !$0.isNull }
        #expect(!uids.isEmpty)
        if layout == "coredata" {
            #expect(uids.allSatisfy { (Data.fromDatabaseValue($0)?.count) == 16 })
        } else {
            #expect(uids.allSatisfy { String.fromDatabaseValue($0).flatMap(UUID.init(uuidString:)) != nil })
        }
    }

    @Test(arguments: layouts) func theSameSeedWritesTheSameBytes(layout: String) throws {
        var dumps: [String] = []
        for seed: UInt64 in [5, 5, 6] {
            let (store, model, directory) = try Self.makeStore(layout)
            defer { try? FileManager.default.removeItem(at: directory) }
            _ = try store.seed(model: model, options: SeedOptions(rows: 40, seed: seed))
            dumps.append(try SeedCheck.dump(store))
        }
        #expect(dumps[0] == dumps[1])
        #expect(dumps[0] != dumps[2])
    }

    @Test(arguments: layouts) func aStoreWithRowsGetsMoreAfterItsKeys(layout: String) throws {
        let (store, model, directory) = try Self.makeStore(layout)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try store.seed(model: model, options: SeedOptions(rows: 20, seed: 1))
        _ = try store.seed(model: model, options: SeedOptions(rows: 30, seed: 1))
        let map = try store.layout.storageMap(for: model)
        try store.withDatabase { db in
            #expect(try SeedCheck.count(db, map, "Person", exactly: true) == 50)
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            try SeedCheck.requiredValuesPresent(db, map, model, layout: layout)
            if layout == "coredata" { try SeedCheck.coreDataBookkeeping(db, map, model) }
        }
    }

    @Test func coreDataKeepsZENTAndZPRIMARYKEYRight() throws {
        let (store, model, directory) = try Self.makeStore("coredata")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try store.seed(model: model, options: SeedOptions(rows: 50))
        let map = try store.layout.storageMap(for: model)
        try store.withDatabase { db in try SeedCheck.coreDataBookkeeping(db, map, model) }
    }

    @Test(arguments: layouts) func refusalsNameTheReasonAndWriteNothing(layout: String) throws {
        let (store, model, directory) = try Self.makeStore(layout)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try store.seed(model: model, options: SeedOptions(rows: 5))
        let before = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let error = #expect(throws: SeedError.self) {
            try store.seed(model: model, options: SeedOptions(rows: 5, rowsPerEntity: ["Person": 0]))
        }
        #expect(error?.isRefusal == true)
        #expect(error?.refusals.contains { $0.property == "owner" && $0.reason == .requiredToOneWithoutRows(destination: "Person") } == true)
        #expect(error?.refusals.contains { $0.entity == "Badge" && $0.property == "holder" } == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == before)
    }

    @Test(arguments: layouts) func aUniqueBooleanTakesTwoRowsAtMost(layout: String) throws {
        let flags = try model(
            """
            name: Flags
            entities:
              Switch:
                unique: [[on]]
                attributes:
                  on: bool
                  name: string?
            """, name: "Flags")
        let (store, _, directory) = try Self.makeStore(layout, model: flags)
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = try store.seed(model: flags, options: SeedOptions(rows: 1))
        #expect(report.rows["Switch"] == 1)
        let before = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let error = #expect(throws: SeedError.self) { try store.seed(model: flags, options: SeedOptions(rows: 2)) }
        #expect(error?.refusals.first?.property == "on")
        #expect(error?.refusals.first?.reason == .booleanCombinationsExhausted(constraint: ["on"], total: 2, free: 1, needed: 2), "\(String(describing: error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == before)
        // The one combination left is still free.
        #expect(try store.seed(model: flags, options: SeedOptions(rows: 1)).rows["Switch"] == 1)
    }

    @Test func aStoreAtAnotherVersionIsRefused() throws {
        let (store, _, directory) = try Self.makeStore("instar")
        defer { try? FileManager.default.removeItem(at: directory) }
        let other = try model("name: Other\nentities:\n  Thing:\n    attributes:\n      name: string\n", name: "Other")
        let error = #expect(throws: SeedError.self) { try store.seed(model: other, options: SeedOptions(rows: 1)) }
        guard case .storeNotAtVersion(let version, _) = error?.refusals.first?.reason else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(version == "Other")
    }

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

    /// The formatter-free date text (seeding and the Instar layout's defaults) agrees with Foundation's.
    @Test func datesMatchFoundationsISOText() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for seconds: Double in [0, -978_307_200, -3_155_673_600, 3_124_137_600, 123_456_789.25] {
            let ms = Int64(seconds * 1000)
            let expected = formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds))
            #expect(ISODateText.text(millisecondsSinceReferenceDate: ms) == expected)
        }
    }
}
