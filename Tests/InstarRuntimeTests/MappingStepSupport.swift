import Foundation
import GRDB
import InstarMapping
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts
import InstarTestSupport

/// A two- or three-version history with a mapping model between the first two, in any layout, with
/// helpers that write and read rows through the layout's storage map (so one test covers all layouts).
final class MappingFixture {
    static let v1 = """
        entities:
          Continent:
            attributes:
              name: string?
            relationships:
              countries: Country[] inverse continent
          Country:
            attributes:
              name: string?
              minutes: int64?
            relationships:
              continent: Continent? inverse countries
          Note:
            attributes:
              title: string?
              hours: int64?
              image: binary?
            relationships:
              tags: Tag[] inverse notes
          Tag:
            attributes:
              label: string?
            relationships:
              notes: Note[] inverse tags
        """

    static let v2 = """
        entities:
          Attachment:
            attributes:
              image: binary?
            relationships:
              note: Note? inverse attachment
          Country:
            attributes:
              name: string?
              continentName: string?
              minutes: int64?
          Note:
            attributes:
              title: string?
              minutes: int64?
            relationships:
              tags: Tag[] inverse notes
              attachment: Attachment? inverse note
          Tag:
            attributes:
              label: string?
            relationships:
              notes: Note[] inverse tags
        """

    /// V2 plus an optional attribute: a lightweight step after the mapping step.
    static let v3 = v2.replacingOccurrences(of: "      minutes: int64?\n    relationships:\n      tags", with: "      minutes: int64?\n      done: bool?\n    relationships:\n      tags")

    let directory: URL
    let path: String
    let layout: any StoreLayout
    let versions: [Model]
    var hooks: [String: HookDefinition] = [:]
    var stages: [CustomStage] = []

    init(layout: any StoreLayout, threeVersions: Bool = false) throws {
        self.layout = layout
        directory = try temporaryDirectory()
        path = directory.appendingPathComponent("store.sqlite").path
        var versions = [try model(Self.v1, name: "V1"), try model(Self.v2, name: "V2")]
        if threeVersions { versions.append(try model(Self.v3, name: "V3")) }
        self.versions = versions
        let store = try SQLiteStore.create(at: path, model: versions[0], layout: layout)
        try store.close()
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// The mapping model V1 → V2, as Xcode's editor would make it for UnCloudNotes-like changes.
    static func mapping(extra: [String: String] = [:]) throws -> MappingModel {
        let location = SourceLocation(file: "M.xcmappingmodel/xcmapping.xml")
        func property(_ name: String, _ text: String) throws -> PropertyMapping {
            PropertyMapping(
                name: name, valueExpression: try ExpressionParser.parseExpression(text), origin: .written, location: location)
        }
        func lookup(_ mapping: String, _ path: String) -> String {
            "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"\(mapping)\", \(path))"
        }
        let country = EntityMapping(
            name: "CountryToCountry", kind: .undefined, sourceEntity: "Country", destinationEntity: "Country",
            filter: try ExpressionParser.parsePredicate("name != \"Atlantis\""), filterText: "name != \"Atlantis\"",
            attributeMappings: [
                try property("name", "$source.name"), try property("continentName", extra["continentName"] ?? "$source.continent.name"),
                try property("minutes", "$source.minutes"),
            ], mappingNumber: 1, location: location)
        let continent = EntityMapping(
            name: "ContinentToNothing", kind: .remove, sourceEntity: "Continent", destinationEntity: nil, mappingNumber: 2,
            location: location)
        let note = EntityMapping(
            name: "NoteToNote", kind: .undefined, sourceEntity: "Note", destinationEntity: "Note",
            attributeMappings: [try property("title", extra["title"] ?? "$source.title"), try property("minutes", "$source.hours * 60")],
            relationshipMappings: [
                try property("tags", lookup("TagToTag", "$source.tags")), try property("attachment", lookup("NoteToAttachment", "$source")),
            ], mappingNumber: 3, location: location)
        let attachment = EntityMapping(
            name: "NoteToAttachment", kind: .undefined, sourceEntity: "Note", destinationEntity: "Attachment",
            filter: try ExpressionParser.parsePredicate("image != nil"), filterText: "image != nil",
            attributeMappings: [try property("image", "$source.image")],
            relationshipMappings: [try property("note", lookup("NoteToNote", "$source"))], mappingNumber: 4, location: location)
        let tag = EntityMapping(
            name: "TagToTag", kind: .undefined, sourceEntity: "Tag", destinationEntity: "Tag",
            attributeMappings: [try property("label", "$source.label")],
            relationshipMappings: [try property("notes", lookup("NoteToNote", "$source.notes"))], mappingNumber: 5,
            location: location)
        return MappingModel(
            file: location.file, name: "M", source: ModelReference(path: "V1.xcdatamodel"),
            destination: ModelReference(path: "V2.xcdatamodel"), entityMappings: [country, continent, note, attachment, tag])
    }

    func plan(mapping: MappingModel? = nil) throws -> Plan {
        var plan = Plan(name: "p", file: directory.appendingPathComponent("plan.yaml").path, layout: layout.name, versions: versions)
        plan.hooks = hooks
        plan.stages = stages
        let model = try mapping ?? Self.mapping()
        plan.mappings = [PlannedMapping(from: "V1", to: "V2", model: model.resolved(source: versions[0], destination: versions[1]))]
        return plan
    }

    // MARK: Rows through the storage map

    /// Inserts a row of `entity` (at V1) with the given attribute values and to-one keys; returns its key.
    @discardableResult
    func insert(_ entity: String, _ values: [String: DatabaseValueConvertible?], key: Int64) throws -> Int64 {
        let map = try layout.storageMap(for: versions[0])
        let storage = map.entities[entity]!
        let info = map.entityTables[storage.table]!
        var columns = [info.primaryKey]
        var arguments: [DatabaseValue] = [key.databaseValue]
        if let discriminator = info.discriminator, let value = storage.discriminatorValue {
            columns.append(discriminator)
            arguments.append(value.databaseValue)
        }
        for (name, value) in values {
            columns.append(storage.columns[name]!)
            arguments.append(value?.databaseValue ?? .null)
        }
        let marks = columns.map { _ in "?" }.joined(separator: ", ")
        try execute(
            "INSERT INTO \(SQLIdentifier.quoted(storage.table)) (\(SQLIdentifier.list(columns))) VALUES (\(marks))",
            StatementArguments(arguments))
        return key
    }

    /// Links two rows through a many-to-many relationship at V1.
    func link(_ entity: String, _ relationship: String, _ owner: Int64, _ target: Int64) throws {
        let map = try layout.storageMap(for: versions[0])
        guard case .joinTable(let name, let ownerColumn, let targetColumn, _)? = map.relationships[RelationshipKey(entity: entity, name: relationship)]
        else { throw Unexpected(what: "\(entity).\(relationship) is not a join table") }
        try execute(
            "INSERT INTO \(SQLIdentifier.quoted(name)) (\(SQLIdentifier.list([ownerColumn, targetColumn]))) VALUES (?, ?)", [owner, target])
    }

    /// `key → value` of a property of `entity` at `version` (a to-one gives the linked key).
    func values(_ entity: String, _ property: String, at version: Int = 1) throws -> [Int64: DatabaseValue] {
        let map = try layout.storageMap(for: versions[version])
        let storage = map.entities[entity]!
        let info = map.entityTables[storage.table]!
        let pk = SQLIdentifier.quoted(info.primaryKey)
        return try read { db in
            var result: [Int64: DatabaseValue] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT \(pk) AS k, \(SQLIdentifier.quoted(storage.columns[property]!)) AS v FROM \(SQLIdentifier.quoted(storage.table))")
            {
                result[row["k"]] = row["v"] as DatabaseValue
            }
            return result
        }
    }

    /// Pairs (owner, target) of a many-to-many relationship at `version`.
    func links(_ entity: String, _ relationship: String, at version: Int = 1) throws -> Set<[Int64]> {
        let map = try layout.storageMap(for: versions[version])
        guard case .joinTable(let name, let ownerColumn, let targetColumn, _)? = map.relationships[RelationshipKey(entity: entity, name: relationship)]
        else { throw Unexpected(what: "\(entity).\(relationship) is not a join table") }
        return try read { db in
            Set(try Row.fetchAll(db, sql: "SELECT \(SQLIdentifier.list([ownerColumn, targetColumn])) FROM \(SQLIdentifier.quoted(name))")
                .map { [$0[0] as Int64, $0[1] as Int64] })
        }
    }

    func execute(_ sql: String, _ arguments: StatementArguments = []) throws {
        let store = try SQLiteStore.open(at: path, layout: layout)
        defer { try? store.close() }
        try store.withDatabase { db in try db.execute(sql: sql, arguments: arguments) }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        let store = try SQLiteStore.open(at: path, layout: layout, readOnly: true)
        defer { try? store.close() }
        return try store.withDatabase(body)
    }

    func tables() throws -> Set<String> {
        try read { db in Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")) }
    }

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// The standard rows: two continents, three countries (one filtered out), three notes (two with an
    /// image), two tags linked to notes.
    func fill() throws {
        try insert("Continent", ["name": "Europe"], key: 1)
        try insert("Continent", ["name": "Asia"], key: 2)
        try insert("Country", ["name": "France", "minutes": 5, "continent": 1], key: 1)
        try insert("Country", ["name": "Atlantis", "minutes": 7, "continent": 1], key: 2)
        try insert("Country", ["name": "Japan", "minutes": nil, "continent": 2], key: 3)
        try insert("Country", ["name": "Nowhere", "minutes": 1], key: 4)
        try insert("Note", ["title": "a", "hours": 2, "image": Data([1, 2])], key: 1)
        try insert("Note", ["title": "b", "hours": 3], key: 2)
        try insert("Note", ["title": "c", "hours": nil, "image": Data([3])], key: 3)
        try insert("Tag", ["label": "x"], key: 1)
        try insert("Tag", ["label": "y"], key: 2)
        try link("Note", "tags", 1, 1)
        try link("Note", "tags", 1, 2)
        try link("Note", "tags", 3, 2)
    }

    struct Unexpected: Error { var what: String }
}
