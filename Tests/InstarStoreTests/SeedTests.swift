@_spi(Layouts) import InstarLayouts
import Foundation
import GRDB
import Testing

@_spi(Layouts) @testable import InstarStore
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
import InstarSeeding
import InstarTestSupport
import InstarStoreTestSupport

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
