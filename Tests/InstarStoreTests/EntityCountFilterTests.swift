import Foundation
import GRDB
import InstarCompiler
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import InstarTestSupport
import Testing

/// A step counts every surviving entity's rows before and after it. Core Data keeps `Z_ENT` in every
/// table, so the count filtered on it read the whole table even where the table holds one entity;
/// there the count is now unfiltered (``StorageMap/countFilter(of:)``), and SQLite answers it from
/// the smallest index. Entities that share a table with others are still counted by their `Z_ENT`.
@Suite struct EntityCountFilterTests {
    static let v1 = """
        name: Count 1
        entities:
          Product:
            indexes:
              byName: [name]
            attributes:
              name: string
              stock: int16
          Vehicle:
            abstract: true
            attributes:
              plate: string
          Car:
            parent: Vehicle
            attributes:
              seats: int16
          Truck:
            parent: Vehicle
        """
    /// `stock` and `seats` become doubles: both tables are rebuilt, so both are counted.
    static let v2 = v1.replacingOccurrences(of: "Count 1", with: "Count 2")
        .replacingOccurrences(of: "stock: int16", with: "stock: double")
        .replacingOccurrences(of: "seats: int16", with: "seats: double")

    func models() throws -> (Model, Model) {
        (try ModelFileReader.parse(Self.v1, file: "v1.yaml"), try ModelFileReader.parse(Self.v2, file: "v2.yaml"))
    }

    @Test func onlyATableHoldingOneEntityIsCountedWithoutItsEntityColumn() throws {
        let map = try CoreDataLayout().storageMap(for: try models().0)
        #expect(map.countFilter(of: "Product") == nil)
        #expect(map.countFilter(of: "Car")?.column == "Z_ENT")
        #expect(map.countFilter(of: "Truck")?.column == "Z_ENT")
        #expect(map.countFilter(of: "Vehicle")?.column == "Z_ENT")
        #expect(map.countFilter(of: "Car")?.value != map.countFilter(of: "Truck")?.value)
        #expect(map.countFilter(of: "Nothing") == nil)
    }

    @Test func theStepCountsALoneEntityWholeAndAHierarchyByEntity() throws {
        let (v1, v2) = try models()
        let plan = try TransactionPlan.make(versions: [v1, v2], hooks: [:], layout: CoreDataLayout(), fuse: true)
        guard case .steps(let unit)? = plan.parts.first else {
            Issue.record("no step")
            return
        }
        let surviving = Dictionary(uniqueKeysWithValues: unit.program.survivingEntities.map { ($0.sourceEntity, $0) })
        let product = try #require(surviving["Product"])
        #expect(product.sourceDiscriminator == nil && product.destinationDiscriminator == nil)
        let car = try #require(surviving["Car"])
        #expect(car.sourceDiscriminator?.column == "Z_ENT" && car.destinationDiscriminator?.column == "Z_ENT")
    }

    @Test func aCoreDataStoreMigratesWithEveryEntitysRowsKept() throws {
        let (v1, v2) = try models()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Store.sqlite").path
        let store = try SQLiteStore.create(at: path, model: v1, layout: CoreDataLayout())
        defer { try? store.close() }
        let map = try CoreDataLayout().storageMap(for: v1)
        let product = try #require(map.entities["Product"]?.discriminatorValue?.databaseValue)
        let car = try #require(map.entities["Car"]?.discriminatorValue?.databaseValue)
        let truck = try #require(map.entities["Truck"]?.discriminatorValue?.databaseValue)
        try store.withDatabase { db in
            for i in 1...50 {
                try db.execute(
                    sql: "INSERT INTO ZPRODUCT (Z_PK, Z_ENT, Z_OPT, ZNAME, ZSTOCK) VALUES (?, ?, 1, ?, ?)",
                    arguments: [i, product, "p\(i)", i])
                try db.execute(
                    sql: "INSERT INTO ZVEHICLE (Z_PK, Z_ENT, Z_OPT, ZPLATE, ZSEATS) VALUES (?, ?, 1, ?, ?)",
                    arguments: [i, i % 3 == 0 ? truck : car, "V\(i)", i % 3 == 0 ? nil : 4])
            }
        }
        try store.migrate(from: v1, to: v2)
        let (products, cars, stock) = try store.withDatabase { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM ZPRODUCT"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM ZVEHICLE WHERE Z_ENT = ?", arguments: [car]),
                try String.fetchOne(db, sql: "SELECT typeof(ZSTOCK) FROM ZPRODUCT LIMIT 1")
            )
        }
        #expect(products == 50 && cars == 34)
        #expect(stock == "real")
    }
}
