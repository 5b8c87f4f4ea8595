import Foundation
import GRDB
import InstarInference
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport

/// One test per kind of inferred change, each asserting the data as well as the schema, and that the
/// executor chose in-place alteration or a rebuild as documented.
@Suite struct StoreStepTests {
    let v1 = """
        entities:
          Owner:
            attributes:
              name: string
              phone: string?
            relationships:
              cars: Car[] inverse owner
          Car:
            attributes:
              plate: string
              color: string?
              year: int16?
              price: double?
            relationships:
              owner: Owner? inverse cars
        """

    func filled(_ yaml: String) throws -> StoreFixture {
        let f = try StoreFixture(try model(yaml, name: "V1"))
        try f.execute("INSERT INTO Owner (_pk, name, phone) VALUES (1, 'Ann', NULL), (2, 'Bob', '555')")
        try f.execute(
            "INSERT INTO Car (_pk, plate, color, year, price, owner) VALUES (1, 'A-1', 'red', 1999, 1500.75, 1), (2, 'B-2', NULL, NULL, -2.5, 2), (3, 'C-3', 'blue', 2020, NULL, NULL)"
        )
        return f
    }

    func migrate(_ f: StoreFixture, from old: String, to new: String) throws -> StepOutcome {
        let outcome = try f.store.migrate(from: try model(old, name: "V1"), to: try model(new, name: "V2"))
        // Whatever the change, the schema afterwards is exactly the layout's for the new version.
        let expected = try InstarLayout().storageMap(for: try model(new, name: "V2")).schema
        #expect(SchemaComparison.differences(expected: expected, actual: try f.schema()).isEmpty)
        #expect(try f.store.metadata()?.versionName == "V2")
        return outcome
    }

    func edit(_ yaml: String, _ replacements: [(String, String)]) -> String {
        replacements.reduce(yaml) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }

    @Test func addOptionalAttributeIsAnAddColumnWithNulls() throws {
        let f = try filled(v1)
        let new = edit(v1, [("      price: double?\n", "      price: double?\n      vin: string?\n")])
        let outcome = try migrate(f, from: v1, to: new)
        #expect(outcome.plan.tables["Car"] == .altered(["ADD COLUMN"]))
        #expect(try f.column("Car", "vin") == [.null, .null, .null])
        #expect(try f.column("Car", "plate") == [.text("A-1"), .text("B-2"), .text("C-3")])
    }

    @Test func addRequiredAttributeWithDefaultFillsExistingRows() throws {
        let f = try filled(v1)
        let outcome = try migrate(f, from: v1, to: edit(v1, [("      price: double?\n", "      price: double?\n      doors: int16 = 4\n")]))
        #expect(outcome.plan.rebuiltTables.isEmpty)
        #expect(try f.column("Car", "doors") == [.int(4), .int(4), .int(4)])
    }

    @Test func removeAttributeDropsOnlyThatColumn() throws {
        let f = try filled(v1)
        let outcome = try migrate(f, from: v1, to: edit(v1, [("      color: string?\n", "")]))
        #expect(outcome.plan.tables["Car"] == .altered(["DROP COLUMN"]))
        let rows = try f.rows("Car")
        #expect(rows.allSatisfy { $0["color"] == nil })
        #expect(rows.map { $0["price"]! } == [.real(1500.75), .real(-2.5), .null])
    }

    @Test func renameAttributeThroughIdentifierKeepsValues() throws {
        let f = try filled(v1)
        let outcome = try migrate(f, from: v1, to: edit(v1, [("      color: string?", "      paint: {type: string, optional: true, renamedFrom: color}")]))
        #expect(outcome.plan.tables["Car"] == .altered(["RENAME COLUMN"]))
        #expect(try f.column("Car", "paint") == [.text("red"), .null, .text("blue")])
    }

    @Test func renameEntityRenamesTableAndFollowsForeignKeys() throws {
        let f = try filled(v1)
        let new = edit(v1, [("  Car:\n", "  Automobile:\n    renamedFrom: Car\n"), ("Car[]", "Automobile[]")])
        let outcome = try migrate(f, from: v1, to: new)
        #expect(outcome.plan.rebuiltTables.isEmpty)
        #expect(try f.column("Automobile", "owner") == [.int(1), .int(2), .null])
        let reference = try f.schema().table(named: "Automobile")?.column(named: "owner")?.references
        #expect(reference?.table == "Owner")
    }

    @Test func swappingTwoColumnNamesGoesThroughTemporaryNames() throws {
        let old = "entities:\n  E:\n    attributes:\n      a: string?\n      b: string?\n"
        let new = "entities:\n  E:\n    attributes:\n      b: {type: string, optional: true, renamedFrom: a}\n      a: {type: string, optional: true, renamedFrom: b}\n"
        let f = try StoreFixture(try model(old, name: "V1"))
        try f.execute("INSERT INTO E (_pk, a, b) VALUES (1, 'was a', 'was b')")
        _ = try migrate(f, from: old, to: new)
        #expect(try f.rows("E")[0]["b"] == .text("was a"))
        #expect(try f.rows("E")[0]["a"] == .text("was b"))
    }

    @Test func addAndRemoveEntities() throws {
        let f = try filled(v1)
        let added = v1 + "\n  Garage:\n    attributes:\n      city: string?\n"
        _ = try migrate(f, from: v1, to: added)
        #expect(try f.rows("Garage").isEmpty)
        try f.execute("INSERT INTO Garage (_pk, city) VALUES (1, 'Oslo')")
        _ = try f.store.migrate(from: try model(added, name: "V2"), to: try model(v1, name: "V3"))
        #expect(try f.schema().table(named: "Garage") == nil)
        #expect(try f.rows("Car").count == 3)
    }

    @Test func optionalToRequiredWithDefaultRebuildsAndFillsNulls() throws {
        let f = try filled(v1)
        let outcome = try migrate(f, from: v1, to: edit(v1, [("      color: string?", "      color: string = grey")]))
        #expect(outcome.plan.rebuiltTables == ["Car"])
        #expect(try f.column("Car", "color") == [.text("red"), .text("grey"), .text("blue")])
        #expect(try f.schema().table(named: "Car")?.column(named: "color")?.notNull == true)
        // The other table and the links are untouched.
        #expect(try f.column("Car", "owner") == [.int(1), .int(2), .null])
    }

    @Test func requiredToOptionalEditsTheTableTextAndKeepsValues() throws {
        let f = try filled(v1)
        let outcome = try migrate(f, from: v1, to: edit(v1, [("      plate: string\n", "      plate: string?\n")]))
        #expect(outcome.plan.tables["Car"] == .altered(["DROP NOT NULL"]))
        #expect(try f.schema().table(named: "Car")?.column(named: "plate")?.notNull == false)
        #expect(try f.column("Car", "plate") == [.text("A-1"), .text("B-2"), .text("C-3")])
    }

    @Test func numericConversionsTruncateAndBooleansNormalise() throws {
        let old = "entities:\n  M:\n    attributes:\n      d: double?\n      i: int32?\n      s: int64?\n"
        let new = "entities:\n  M:\n    attributes:\n      d: int64?\n      i: bool?\n      s: int16?\n"
        let f = try StoreFixture(try model(old, name: "V1"))
        try f.execute("INSERT INTO M (_pk, d, i, s) VALUES (1, 2.9, 7, 3), (2, -2.5, 0, -4), (3, NULL, NULL, NULL)")
        _ = try migrate(f, from: old, to: new)
        #expect(try f.column("M", "d") == [.int(2), .int(-2), .null])
        #expect(try f.column("M", "i") == [.int(1), .int(0), .null])
        #expect(try f.column("M", "s") == [.int(3), .int(-4), .null])
    }

    @Test func toOneBecomingToManyMovesLinksIntoAJoinTable() throws {
        let f = try filled(v1)
        // Car.owner becomes Car.owners (to-many) and Owner.cars stays to-many: a many-to-many.
        let new = edit(v1, [("      owner: Owner? inverse cars", "      owner: Owner[] inverse cars"), ("      cars: Car[] inverse owner", "      cars: Car[] inverse owner")])
        let outcome = try migrate(f, from: v1, to: new)
        #expect(outcome.plan.tables["Car_owner"] == .created)
        let links = try f.store.withDatabase { db in
            try Row.fetchAll(db, sql: "SELECT cars, owner FROM Car_owner ORDER BY cars").map { [$0[0] as Int64, $0[1] as Int64] }
        }
        // The join table holds (car, owner) pairs from the old foreign key; the NULL one made no row.
        #expect(links == [[1, 1], [2, 2]])
        #expect(try f.rows("Car").allSatisfy { $0["owner"] == nil })
    }

    @Test func unorderedToOrderedNumbersLinksInKeyOrder() throws {
        let f = try filled(v1)
        try f.execute("INSERT INTO Car (_pk, plate, owner) VALUES (4, 'D-4', 1), (5, 'E-5', 1)")
        let ordered = edit(v1, [("cars: Car[] inverse owner", "cars: Car[] ordered inverse owner")])
        let outcome = try migrate(f, from: v1, to: ordered)
        #expect(outcome.plan.rebuiltTables == ["Car"])
        #expect(try f.column("Car", "owner_position") == [.int(1), .int(1), .null, .int(2), .int(3)])
        // And back: positions are dropped, links kept.
        _ = try f.store.migrate(from: try model(ordered, name: "V2"), to: try model(v1, name: "V3"))
        #expect(try f.column("Car", "owner") == [.int(1), .int(2), .null, .int(1), .int(1)])
        #expect(try f.rows("Car").allSatisfy { $0["owner_position"] == nil })
    }

    let hierarchy = """
        entities:
          Vehicle:
            abstract: true
            attributes:
              wheels: int16?
          Car:
            parent: Vehicle
            attributes:
              seats: int16?
          Bike:
            parent: Vehicle
            attributes:
              bell: bool?
        """

    @Test func entityMovingOutOfItsHierarchyTakesItsRowsAlong() throws {
        let f = try StoreFixture(try model(hierarchy, name: "V1"))
        try f.execute(
            "INSERT INTO Vehicle (_pk, _entity, wheels, seats, bell) VALUES (1, 'Car', 4, 5, NULL), (2, 'Bike', 2, NULL, 1), (3, 'Car', 4, 2, NULL)")
        let new = """
            entities:
              Vehicle:
                abstract: true
                attributes:
                  wheels: int16?
              Car:
                parent: Vehicle
                attributes:
                  seats: int16?
              Bike:
                attributes:
                  bell: bool?
                  wheels: int16?
            """
        _ = try migrate(f, from: hierarchy, to: new)
        let bikes = try f.rows("Bike")
        #expect(bikes.count == 1)
        #expect(bikes[0]["_pk"] == .int(2) && bikes[0]["bell"] == .int(1) && bikes[0]["wheels"] == .int(2))
        #expect(try f.column("Vehicle", "seats") == [.int(5), .int(2)])
        #expect(try f.column("Vehicle", "_entity") == [.text("Car"), .text("Car")])
    }

    @Test func propertyMovingUpTheHierarchyKeepsValues() throws {
        let f = try StoreFixture(try model(hierarchy, name: "V1"))
        try f.execute("INSERT INTO Vehicle (_pk, _entity, wheels, seats, bell) VALUES (1, 'Car', 4, 5, NULL), (2, 'Bike', 2, NULL, 1)")
        let new = edit(hierarchy, [("      wheels: int16?\n", "      wheels: int16?\n      seats: int16?\n"), ("    attributes:\n      seats: int16?\n", "")])
        _ = try migrate(f, from: hierarchy, to: new)
        #expect(try f.column("Vehicle", "seats") == [.int(5), .null])
    }

    @Test func removingASubentityDeletesItsRows() throws {
        let f = try StoreFixture(try model(hierarchy, name: "V1"))
        try f.execute("INSERT INTO Vehicle (_pk, _entity, wheels, seats, bell) VALUES (1, 'Car', 4, 5, NULL), (2, 'Bike', 2, NULL, 1)")
        let new = "entities:\n  Vehicle:\n    abstract: true\n    attributes:\n      wheels: int16?\n  Car:\n    parent: Vehicle\n    attributes:\n      seats: int16?\n"
        _ = try migrate(f, from: hierarchy, to: new)
        #expect(try f.rows("Vehicle").map { $0["_pk"]! } == [.int(1)])
    }

    @Test func newParentEntityAdoptsARootsRows() throws {
        let old = "entities:\n  Car:\n    attributes:\n      seats: int16?\n"
        let new = "entities:\n  Vehicle:\n    attributes:\n      wheels: int16?\n  Car:\n    parent: Vehicle\n    attributes:\n      seats: int16?\n"
        let f = try StoreFixture(try model(old, name: "V1"))
        try f.execute("INSERT INTO Car (_pk, seats) VALUES (1, 5), (2, 2)")
        _ = try migrate(f, from: old, to: new)
        let rows = try f.rows("Vehicle")
        #expect(rows.map { $0["_entity"]! } == [.text("Car"), .text("Car")])
        #expect(rows.map { $0["seats"]! } == [.int(5), .int(2)])
    }

    @Test func manyToManyFollowsAnEntityRename() throws {
        let old = "entities:\n  Track:\n    relationships:\n      tags: Tag[] inverse tracks\n  Tag:\n    attributes:\n      name: string?\n    relationships:\n      tracks: Track[] inverse tags\n"
        let new = "entities:\n  Song:\n    renamedFrom: Track\n    relationships:\n      tags: Tag[] inverse songs\n  Tag:\n    attributes:\n      name: string?\n    relationships:\n      songs: {to: Song, toMany: true, inverse: tags, renamedFrom: tracks}\n"
        let f = try StoreFixture(try model(old, name: "V1"))
        try f.execute("INSERT INTO Track (_pk) VALUES (1), (2); INSERT INTO Tag (_pk, name) VALUES (1, 'rock'), (2, 'jazz')")
        let join = try f.schema().tables.map(\.name).first { $0 != "Track" && $0 != "Tag" }!
        try f.execute("INSERT INTO \(SQLIdentifier.quoted(join)) (tracks, tags) VALUES (1, 1), (1, 2), (2, 2)")
        _ = try migrate(f, from: old, to: new)
        let newJoin = try f.schema().tables.map(\.name).first { $0 != "Song" && $0 != "Tag" }!
        let count = try f.store.withDatabase { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(SQLIdentifier.quoted(newJoin))") }
        #expect(count == 3)
    }

    @Test func toManyWithoutInverseGainingAToOneInverseKeepsItsLinks() throws {
        let old = "entities:\n  Album:\n    relationships:\n      tracks: Track[]\n  Track:\n    attributes:\n      title: string?\n"
        let new = "entities:\n  Album:\n    relationships:\n      tracks: Track[] inverse album\n  Track:\n    attributes:\n      title: string?\n    relationships:\n      album: Album? inverse tracks\n"
        let f = try StoreFixture(try model(old, name: "V1"))
        try f.execute("INSERT INTO Album (_pk) VALUES (1), (2); INSERT INTO Track (_pk, title) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        try f.execute("INSERT INTO Album_tracks (_owner, tracks) VALUES (1, 1), (2, 2)")
        _ = try migrate(f, from: old, to: new)
        #expect(try f.column("Track", "album") == [.int(1), .int(2), .null])
    }
}
