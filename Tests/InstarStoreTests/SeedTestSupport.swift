import Foundation
import GRDB
import Testing

@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) @testable import InstarStore
@_spi(Layouts) @testable import InstarLayouts

/// Checks of a seeded store, phrased over the layout's ``StorageMap`` so that one check serves every layout.
enum SeedCheck {
    /// `WHERE` clause selecting the rows of `entity` (its own only, or with its descendants').
    static func rowsOf(_ map: StorageMap, _ entity: String, exactly: Bool, alias: String = "") -> String {
        let storage = map.entities[entity]!
        guard let discriminator = map.entityTables[storage.table]!.discriminator else { return "1" }
        let kinds = exactly ? [entity] : storage.kinds
        let values = kinds.compactMap { map.entities[$0]?.discriminatorValue?.literal }.joined(separator: ", ")
        return "\(alias)\(SQLIdentifier.quoted(discriminator)) IN (\(values))"
    }

    static func count(_ db: Database, _ map: StorageMap, _ entity: String, exactly: Bool) throws -> Int {
        let table = SQLIdentifier.quoted(map.entities[entity]!.table)
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(rowsOf(map, entity, exactly: exactly))") ?? -1
    }

    /// Every required attribute and required to-one of every concrete entity is set on its rows.
    static func requiredValuesPresent(_ db: Database, _ map: StorageMap, _ model: Model, layout: String) throws {
        for entity in model.entities where !entity.isAbstract {
            let storage = map.entities[entity.name]!
            for resolved in model.properties(of: entity.name) {
                let required: Bool
                switch resolved.property {
                case .attribute(let a): required = !a.isOptional && !a.isTransient
                case .relationship(let r): required = r.isToOne && !r.isOptional
                }
                guard required, let column = storage.columns[resolved.name] else { continue }
                let nulls = try Int.fetchOne(
                    db,
                    sql: "SELECT count(*) FROM \(SQLIdentifier.quoted(storage.table)) WHERE "
                        + "\(rowsOf(map, entity.name, exactly: true)) AND \(SQLIdentifier.quoted(column)) IS NULL")
                #expect(nulls == 0, "\(layout): \(entity.name).\(resolved.name) is NULL in \(nulls ?? -1) rows")
            }
        }
    }

    /// To-ones point at rows of their destination (and Core Data's entity columns say which), one-to-ones
    /// agree from both ends, a self-inverse many-to-many is symmetric, ordered links have positions.
    static func linksPointAtRightRows(_ db: Database, _ map: StorageMap, _ model: Model, layout: String) throws {
        for entity in model.entities {
            for relationship in entity.relationships where relationship.isToOne {
                let key = RelationshipKey(entity: entity.name, name: relationship.name)
                guard case .foreignKey(let table, let column)? = map.relationships[key] else { continue }
                let destination = map.entities[relationship.destination]!
                let pk = SQLIdentifier.quoted(map.entityTables[destination.table]!.primaryKey)
                let dangling = try Int.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) FROM \(SQLIdentifier.quoted(table)) s WHERE s.\(SQLIdentifier.quoted(column)) IS NOT NULL
                        AND NOT EXISTS (SELECT 1 FROM \(SQLIdentifier.quoted(destination.table)) d
                          WHERE d.\(pk) = s.\(SQLIdentifier.quoted(column)) AND \(rowsOf(map, relationship.destination, exactly: false, alias: "d.")))
                        """)
                #expect(dangling == 0, "\(layout): \(key) points at \(dangling ?? -1) wrong rows")
                let linked = try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM \(SQLIdentifier.quoted(table)) WHERE \(SQLIdentifier.quoted(column)) IS NOT NULL")
                #expect((linked ?? 0) > 0, "\(layout): \(key) never linked")
            }
        }
        // Core Data's `Z<n>_<REL>` columns hold the entity of the row the key points to (Item, in ZITEM, is the
        // only destination with sub-entities in the test model).
        for (table, info) in map.entityTables {
            for case (let column, .entityOf(let foreignKey)) in info.bookkeeping {
                let wrong = try Int.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) FROM \(SQLIdentifier.quoted(table)) s WHERE s.\(SQLIdentifier.quoted(column)) IS NOT
                          (SELECT d.Z_ENT FROM ZITEM d WHERE d.Z_PK = s.\(SQLIdentifier.quoted(foreignKey)))
                        """)
                #expect(wrong == 0, "\(layout): \(table).\(column) disagrees with the entity of \(foreignKey)")
                let set = try Int.fetchOne(db, sql: "SELECT count(\(SQLIdentifier.quoted(column))) FROM \(SQLIdentifier.quoted(table))")
                #expect((set ?? 0) > 0)
            }
        }
        if layout == "coredata" {
            #expect(map.entityTables.values.contains { $0.bookkeeping.values.contains { if case .entityOf = $0 { true } else { false } } })
        }
        // Badge.holder ↔ Person.badge: the same pairs from both ends.
        let person = map.entities["Person"]!, badge = map.entities["Badge"]!
        let (ppk, bpk) = (map.entityTables[person.table]!.primaryKey, map.entityTables[badge.table]!.primaryKey)
        let disagreeing = try Int.fetchOne(
            db,
            sql: """
                SELECT count(*) FROM \(SQLIdentifier.quoted(badge.table)) b JOIN \(SQLIdentifier.quoted(person.table)) p
                  ON p.\(SQLIdentifier.quoted(ppk)) = b.\(SQLIdentifier.quoted(badge.columns["holder"]!))
                WHERE p.\(SQLIdentifier.quoted(person.columns["badge"]!)) IS NOT b.\(SQLIdentifier.quoted(bpk))
                """)
        #expect(disagreeing == 0, "\(layout): one-to-one sides disagree")
        // Person.friends is its own inverse: every link is stored from both ends.
        guard case .joinTable(let name, let owner, let destination, _)? = map.relationships[RelationshipKey(entity: "Person", name: "friends")]
        else { Issue.record("friends has no join table"); return }
        let (t, o, d) = (SQLIdentifier.quoted(name), SQLIdentifier.quoted(owner), SQLIdentifier.quoted(destination))
        let oneSided = try Int.fetchOne(
            db, sql: "SELECT count(*) FROM \(t) a WHERE NOT EXISTS (SELECT 1 FROM \(t) b WHERE b.\(o) = a.\(d) AND b.\(d) = a.\(o))")
        #expect(oneSided == 0, "\(layout): friends links stored from one end only")
        let selfLinks = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(t) WHERE \(o) = \(d)")
        #expect(selfLinks == 0)
        // Ordered: Person.items keeps positions beside Item.owner; Tag.items in its join table.
        if case .inverseForeignKey(_, let position?)? = map.relationships[RelationshipKey(entity: "Person", name: "items")] {
            let item = map.entities["Item"]!
            let missing = try Int.fetchOne(
                db,
                sql: "SELECT count(*) FROM \(SQLIdentifier.quoted(item.table)) WHERE \(SQLIdentifier.quoted(item.columns["owner"]!)) IS NOT NULL AND \(SQLIdentifier.quoted(position)) IS NULL")
            #expect(missing == 0)
        } else {
            Issue.record("\(layout): Person.items has no position column")
        }
        if case .joinTable(let name, _, _, let position?)? = map.relationships[RelationshipKey(entity: "Tag", name: "items")] {
            let positions = try Int.fetchOne(db, sql: "SELECT count(\(SQLIdentifier.quoted(position))) FROM \(SQLIdentifier.quoted(name))")
            #expect((positions ?? 0) > 0)
        } else {
            Issue.record("\(layout): Tag.items has no ordered join table")
        }
    }

    /// `Z_MAX` of each root is its table's highest `Z_PK`, sub-entities' are 0, and each row's `Z_ENT`
    /// is its entity's number.
    static func coreDataBookkeeping(_ db: Database, _ map: StorageMap, _ model: Model) throws {
        for (number, name, parent) in CoreDataLayout().entityNumbers(for: model) {
            let recorded = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [number])
            let table = map.entities[name]!.table
            if parent == 0 {
                let highest = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(SQLIdentifier.quoted(table))")
                #expect(recorded == highest, "Z_MAX of \(name)")
            } else {
                #expect(recorded == 0, "Z_MAX of sub-entity \(name)")
            }
            let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(SQLIdentifier.quoted(table)) WHERE Z_ENT = ?", arguments: [number])
            let abstract = model.entity(named: name)!.isAbstract
            #expect(abstract ? rows == 0 : rows! > 0, "Z_ENT \(number) (\(name))")
        }
        for table in Set(map.entities.values.map(\.table)) {
            let numbers = Set(map.entities.values.filter { $0.table == table }.compactMap { $0.discriminatorValue?.literal })
            let stored = try String.fetchAll(db, sql: "SELECT DISTINCT CAST(Z_ENT AS TEXT) FROM \(SQLIdentifier.quoted(table))")
            #expect(Set(stored).isSubset(of: numbers), "Z_ENT values of \(table)")
        }
    }

    /// Every table's rows, in order, as text: equal dumps mean equal contents.
    static func dump(_ store: SQLiteStore) throws -> String {
        let tables = try store.schema().tables
        return try store.withDatabase { db in
            var text = ""
            for table in tables {
                text += "## \(table.name)\n"
                let order = (1...table.columns.count).map(String.init).joined(separator: ", ")
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(SQLIdentifier.quoted(table.name)) ORDER BY \(order)") {
                    text += row.databaseValues.map { "\($0)" }.joined(separator: "|") + "\n"
                }
            }
            return text
        }
    }
}
