import Foundation
import InstarInference
@_spi(Layouts) import InstarModel
import InstarSwiftData
import Testing
import InstarTestSupport

/// The SwiftData reader on small inline sources: each construct, each option, and errors with positions.
@Suite struct SwiftDataReaderTests {
    func read(_ text: String, path: String = "Schema.swift") -> SwiftDataSources {
        SwiftDataReader().read(files: [(path: path, text: text)])
    }

    func onlySchema(_ sources: SwiftDataSources) throws -> SwiftDataSchema {
        #expect(sources.errors.isEmpty, "\(sources.errors)")
        return try #require(sources.schemas.first)
    }

    @Test func versionedSchemaWithNestedModelsScalarsAndOptionals() throws {
        let sources = read("""
            import SwiftData
            enum LibraryV1: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, 2, 3)
                static var models: [any PersistentModel.Type] { [Book.self] }
                @Model final class Book {
                    var title: String
                    var subtitle: String?
                    var pages: Int = 0
                    var price: Decimal?
                    var rating: Double
                    var isbn: UUID
                    var published: Date?
                    var inPrint: Bool = true
                    var pageCount: Int { pages }
                    static var shelf = "A"
                    @Transient var cached: String = ""
                    var observed: String = "" { didSet { } }
                    let added = Date()
                    init() { title = ""; rating = 0; isbn = UUID() }
                }
            }
            """)
        let schema = try onlySchema(sources)
        #expect(schema.name == "LibraryV1" && schema.versionIdentifier == "1.2.3" && schema.isVersioned)
        #expect(schema.modelClasses == ["LibraryV1.Book"])
        let book = try #require(schema.model.entity(named: "Book"))
        let types = Dictionary(uniqueKeysWithValues: book.attributes.map { ($0.name, $0.type) })
        #expect(types == [
            "title": .string, "subtitle": .string, "pages": .integer64, "price": .decimal, "rating": .double,
            "isbn": .uuid, "published": .date, "inPrint": .boolean, "observed": .string, "added": .date,
        ])
        #expect(book.attribute(named: "subtitle")?.isOptional == true)
        #expect(book.attribute(named: "title")?.isOptional == false)
        #expect(book.attribute(named: "pages")?.defaultValue == "0")
        #expect(book.attribute(named: "inPrint")?.defaultValue == "YES")
        // `Date()` is evaluated by the app: a warning at the property, no default.
        #expect(book.attribute(named: "added")?.defaultValue == nil)
        #expect(sources.diagnostics.contains { $0.severity == .warning && $0.location.line == 18 && $0.finding == .defaultNotLiteral(expression: "Date()") })
    }

    /// Version hashes from source equal those of the same model built by hand, and every hashed option
    /// changes them.
    @Test func hashesMatchHandBuiltModelAndHashedOptionsChangeThem() throws {
        let source = { (options: String) in
            """
            @Model class Note {
                \(options) var body: String?
                var created: Date
            }
            let schema = Schema([Note.self])
            """
        }
        let plain = try onlySchema(read(source("")))
        #expect(plain.versionIdentifier == "1.0.0" && !plain.isVersioned)
        let byHand = try Model(name: "hand", entities: [Entity(name: "Note", attributes: [
            Attribute(name: "body", type: .string, isOptional: true),
            Attribute(name: "created", type: .date, isOptional: false),
        ])])
        #expect(plain.model.versionHashes.entityHashes == byHand.versionHashes.entityHashes)
        let renamed = try onlySchema(read(source("@Attribute(originalName: \"text\")")))
        #expect(renamed.model.entity(named: "Note")?.attribute(named: "body")?.renamingIdentifier == "text")
        #expect(renamed.model.versionHashes.entityHashes == plain.model.versionHashes.entityHashes)
        for hashed in ["@Attribute(hashModifier: \"v2\")", "@Attribute(.externalStorage)", "@Attribute(.unique)",
                       "@Attribute(.transformable(by: NoteTransformer.self))", "@Attribute(.preserveValueOnDeletion)"] {
            let changed = try onlySchema(read(source(hashed)))
            #expect(changed.model.versionHashes.entityHashes != plain.model.versionHashes.entityHashes, "\(hashed)")
        }
        let unique = try onlySchema(read(source("@Attribute(.unique, .externalStorage)")))
        let note = try #require(unique.model.entity(named: "Note"))
        #expect(note.uniquenessConstraints == [["body"]])
        #expect(note.attribute(named: "body")?.allowsExternalBinaryDataStorage == true)
        let transformed = try onlySchema(read(source("@Attribute(.transformable(by: NoteTransformer.self))")))
        let body = try #require(transformed.model.entity(named: "Note")?.attribute(named: "body"))
        #expect(body.type == .transformable && body.userInfo["valueTransformerName"] == "NoteTransformer")
    }

    @Test func relationshipsOptionsAndInverses() throws {
        let sources = read("""
            @Model class Shelf {
                @Relationship(deleteRule: .cascade, inverse: \\Book.shelf, minimumModelCount: 1, maximumModelCount: 9)
                var books: [Book]
                var owner: Person?
            }
            @Model class Book {
                var shelf: Shelf?
                var author: Person
            }
            @Model class Person {
                var shelves: [Shelf]? = []
            }
            let schema = Schema([Shelf.self, Book.self, Person.self])
            """)
        let model = try onlySchema(sources).model
        let books = try #require(model.entity(named: "Shelf")?.relationship(named: "books"))
        #expect(books.isToMany && books.deleteRule == .cascade && books.inverse == "shelf")
        #expect(books.minCount == 1 && books.maxCount == 9 && !books.isOptional)
        let shelf = try #require(model.entity(named: "Book")?.relationship(named: "shelf"))
        #expect(!shelf.isToMany && shelf.inverse == "books" && shelf.isOptional && shelf.maxCount == 1 && shelf.deleteRule == .nullify)
        // Inferred: the only relationship each way between Shelf and Person.
        #expect(model.entity(named: "Shelf")?.relationship(named: "owner")?.inverse == "shelves")
        #expect(model.entity(named: "Person")?.relationship(named: "shelves")?.inverse == "owner")
        // One-sided: Person has nothing back to Book.
        let author = try #require(model.entity(named: "Book")?.relationship(named: "author"))
        #expect(author.inverse == nil && !author.isOptional)
    }

    /// `Schema([Trip.self])` also takes the models Trip reaches; `\V1.Stop.trip` is a qualified root.
    @Test func reachableModelsJoinTheSchemaAndQualifiedKeyPathsResolve() throws {
        let sources = read("""
            enum V1 {
                @Model class Trip {
                    @Relationship(deleteRule: .cascade, inverse: \\V1.Stop.trip) var stops = [V1.Stop]()
                }
                @Model class Stop { var trip: Trip? }
            }
            let schema = Schema([V1.Trip.self])
            """)
        let schema = try onlySchema(sources)
        #expect(schema.modelClasses == ["V1.Trip", "V1.Stop"])
        #expect(schema.model.entity(named: "Trip")?.relationship(named: "stops")?.inverse == "trip")
        #expect(sources.diagnostics.contains { $0.severity == .warning && $0.finding == .reachableModelAdded(model: "V1.Stop", property: "stops") })
    }

    @Test func ambiguousInverseIsAnErrorAtTheProperty() {
        let sources = read("""
            @Model class Person {
                var home: City?
                var work: City?
            }
            @Model class City {
                var people: [Person] = []
            }
            let schema = Schema([Person.self, City.self])
            """, path: "People.swift")
        #expect(sources.schemas.isEmpty)
        let error = sources.errors.first {
            guard case .ambiguousInverse(let relationship, let destination, _)? = $0.finding else { return false }
            return relationship == "home" && destination == "City"
        }
        #expect(error?.location == SourceLocation(file: "People.swift", line: 2, column: 9), "\(sources.errors)")
    }

    @Test func uniqueAndIndexMacros() throws {
        let schema = try onlySchema(read("""
            @Model class Trip {
                #Unique<Trip>([\\.name, \\.start], [\\.code])
                #Index<Trip>([\\.name], [\\.name, \\.start])
                var name: String
                var start: Date
                var code: String
            }
            let schema = Schema([Trip.self])
            """))
        let trip = try #require(schema.model.entity(named: "Trip"))
        #expect(trip.uniquenessConstraints == [["name", "start"], ["code"]])
        #expect(trip.indexes.map(\.name) == ["SwiftDataIndexOnBinaryname", "SwiftDataIndexOnBinarynamestart"])
    }

    @Test func enumsAndStructsAreCompositeAttributes() throws {
        let schema = try onlySchema(read("""
            enum Mood: String, Codable { case happy, sad }
            enum Level: Int, Codable { case low, high }
            enum Weather: Codable { case sunny, rainy }
            struct Place: Codable {
                var city: String
                var visits: [Date]
                var lat: Double?
                var code: String { city }
            }
            @Model class Day {
                var mood: Mood
                var level: Level?
                var weather: Weather?
                var place: Place
                var tags: [String]?
            }
            let schema = Schema([Day.self])
            """))
        let day = try #require(schema.model.entity(named: "Day"))
        let mood = try #require(day.attribute(named: "mood"))
        #expect(mood.type == .composite && !mood.isOptional)
        #expect(mood.elements.map { "\($0.name):\($0.type.xcodeName):\($0.isOptional)" } == ["mood:String:true"])
        #expect(day.attribute(named: "level")?.elements.map(\.type) == [.integer64])
        #expect(day.attribute(named: "weather")?.elements.map(\.name) == ["sunny", "rainy"])
        let place = try #require(day.attribute(named: "place"))
        #expect(place.elements.map { "\($0.name):\($0.type.xcodeName):\($0.isOptional)" }
            == ["city:String:false", "visits:Binary:false", "lat:Double:true"])
        #expect(day.attribute(named: "tags")?.type == .transformable)
    }

    /// The composite rule: only the elements (sorted by name) enter the hash, not the composite's own
    /// name or optionality. Vector: MetaCocktails @f6051d07 `default.store`, entity Ingredient, whose
    /// `unit` is a String-backed enum.
    @Test func compositeHashMatchesRealStoreVector() throws {
        var unit = Attribute(name: "unit", type: .composite, isOptional: false)
        unit.elements = [Attribute(name: "unit", type: .string, isOptional: true)]
        let ingredient = Entity(
            name: "Ingredient",
            attributes: [Attribute(name: "id", type: .uuid, isOptional: false), unit,
                         Attribute(name: "value", type: .double, isOptional: false)],
            relationships: [Relationship(name: "ingredientBase", destination: "IngredientBase", isOptional: false)])
        let base = Entity(name: "IngredientBase", attributes: [Attribute(name: "name", type: .string)])
        let model = try Model(name: "vector", entities: [ingredient, base])
        #expect(model.versionHashes.entityHashes["Ingredient"]?.base64EncodedString() == "SjufMt9CruGesYa2rQOtV8ls0/tFMmcaQGPaIALPxho=")
        var optionalUnit = unit
        optionalUnit.isOptional = true
        var swapped = unit
        swapped.elements[0].type = .integer64
        let hashes = { (attribute: Attribute) throws -> Data? in
            var changed = ingredient
            changed.attributes[1] = attribute
            return try Model(name: "v", entities: [changed, base]).versionHashes.entityHashes["Ingredient"]
        }
        #expect(try hashes(swapped) != model.versionHashes.entityHashes["Ingredient"])
        // The composite's own optional flag is not hashed (the store's `unit` is required, its element optional).
        #expect(try hashes(optionalUnit) == model.versionHashes.entityHashes["Ingredient"])
    }

    @Test func migrationPlanStagesAsValues() throws {
        let sources = read("""
            enum V1: VersionedSchema {
                static let versionIdentifier = Schema.Version(1, 0, 0)
                static var models: [any PersistentModel.Type] { [Item.self] }
                @Model class Item { var name: String = "" }
            }
            enum V2: VersionedSchema {
                static let versionIdentifier = Schema.Version(2, 0, 0)
                static var models: [any PersistentModel.Type] { return [Item.self] }
                @Model class Item { var name: String = ""; var count: Int = 0 }
            }
            enum V3: VersionedSchema {
                static let versionIdentifier = Schema.Version(3, 0, 0)
                static let models: [any PersistentModel.Type] = [V2.Item.self]
            }
            let toV2 = MigrationStage.lightweight(fromVersion: V1.self, toVersion: V2.self)
            enum Plan: SchemaMigrationPlan {
                static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self, V3.self] }
                static var stages: [MigrationStage] { [toV2, Self.toV3] }
                static let toV3 = MigrationStage.custom(fromVersion: V2.self, toVersion: V3.self, willMigrate: prepare) { context in }
                static func prepare(_ context: ModelContext) throws {}
            }
            """)
        #expect(sources.errors.isEmpty, "\(sources.errors)")
        #expect(sources.schemas.map(\.versionIdentifier) == ["1.0.0", "2.0.0", "3.0.0"])
        #expect(sources.schemas[2].modelClasses == ["V2.Item"])
        #expect(sources.schemas[1].model.versionHashes.entityHashes == sources.schemas[2].model.versionHashes.entityHashes)
        #expect(sources.schemas[0].model.versionHashes.entityHashes != sources.schemas[1].model.versionHashes.entityHashes)
        let plan = try #require(sources.plans.first)
        #expect(plan.name == "Plan" && plan.schemas == ["V1", "V2", "V3"])
        #expect(plan.stages.map(\.kind) == [.lightweight, .custom])
        #expect(plan.stages[0].fromVersion == "V1" && plan.stages[0].toVersion == "V2")
        #expect(plan.stages[1].willMigrate == "prepare" && plan.stages[1].didMigrate == "inline")
        #expect(plan.stages[0].location.line == 15)
    }

    @Test func launchDefaultsAreOneValueForEveryExistingRowAsSwiftDataGivesThem() throws {
        // myhome V9 → V10 adds `var syncID: UUID = UUID()`: SwiftData evaluates it once, so the step
        // is lightweight and every existing row gets that one value (the app backfills in didMigrate).
        let sources = read("""
            enum V1: VersionedSchema {
                static let versionIdentifier = Schema.Version(1, 0, 0)
                static let models: [any PersistentModel.Type] = [Note.self]
                @Model class Note { var body: String = "" }
            }
            enum V2: VersionedSchema {
                static let versionIdentifier = Schema.Version(2, 0, 0)
                static let models: [any PersistentModel.Type] = [Note.self]
                @Model class Note {
                    var body: String = ""
                    var syncID: UUID = UUID()
                    var stamped: Date = .now
                    var label: String = Note.defaultLabel
                }
            }
            """)
        let v1 = try #require(sources.schemas.first { $0.name == "V1" }).model
        let v2 = try #require(sources.schemas.first { $0.name == "V2" }).model
        let conditional = ModelDiff(from: v1, to: v2).changes.filter { $0.verdict.condition != nil }.map(\.property)
        #expect(Set(conditional) == ["syncID", "stamped", "label"])
        let now = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let evaluated = try LaunchDefaults.evaluated(v2, now: now)
        let note = try #require(evaluated.entity(named: "Note"))
        #expect(UUID(uuidString: note.attribute(named: "syncID")?.defaultValue ?? "") != nil)
        #expect(note.attribute(named: "stamped")?.defaultValue == "700000000.0")
        #expect(note.attribute(named: "label")?.defaultValue == nil)  // a constant only the app knows
        #expect(evaluated.versionHashes == v2.versionHashes)
        let left = ModelDiff(from: v1, to: evaluated).changes.filter { $0.verdict.condition != nil }.map(\.property)
        #expect(left == ["label"])
    }

    @Test func unresolvableDeclarationsAreErrorsWithPositions() {
        let cases: [(String, String, Int, Int)] = [
            ("@Model class A { var size: CGSize }", "`CGSize` is a standard type, but no SwiftData store", 1, 22),
            ("@Model class A { var letter: Character }", "`Character` is a standard type, but no SwiftData store", 1, 22),
            ("@Model class A { var tint: Tint }", "unknown type `Tint`: it is not declared in these sources", 1, 22),
            ("struct In: Codable { var a: Int }\nstruct Out: Codable { var inner: In }\n@Model class A { var o: Out }", "no store shows how SwiftData nests that", 3, 22),
            ("enum E: Codable { case a(Int, String) }\n@Model class A { var e: E }", "associated values the reader cannot map", 2, 22),
            ("@Model class A { var value = compute() }", "no type annotation", 1, 22),
            ("@Model class A { @Relationship(deleteRule: .cascade) var x: Int }", "not a @Model class", 1, 58),
        ]
        for (body, needle, line, column) in cases {
            let sources = read(body + "\nlet schema = Schema([A.self])", path: "Bad.swift")
            #expect(sources.schemas.isEmpty, "\(body)")
            let error = sources.errors.first { $0.message.contains(needle) }
            #expect(error != nil, "\(body): \(sources.errors)")
            #expect(error?.location == SourceLocation(file: "Bad.swift", line: line, column: column), "\(body): \(String(describing: error))")
        }
    }

    @Test func versionedSchemaErrorsAndClassesDeclaredTwice() throws {
        let badVersion = read("""
            enum S: VersionedSchema {
                static var versionIdentifier = Schema.Version(major, 0, 0)
                static var models: [any PersistentModel.Type] { [] }
            }
            """)
        #expect(badVersion.errors.first?.location.line == 2)
        let twice = SwiftDataReader().read(files: [
            (path: "App/Item.swift", text: "@Model class Item { var a: Int = 0 }"),
            (path: "Tool/Item.swift", text: "@Model class Item { var b: Int = 0 }"),
        ])
        #expect(throws: SwiftDataReadError.self) { try twice.schema(ofModelClasses: ["Item"]) }
        let one = SwiftDataReader().read(files: [(path: "App/Item.swift", text: "@Model class Item { var a: Int = 0 }")])
        #expect(try one.schema(ofModelClasses: ["Item"]).model.entity(named: "Item")?.attributes.count == 1)
    }

    @Test func readsFoldersAndReportsMissingPaths() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Models"), withIntermediateDirectories: true)
        try "@Model class Tag { var name: String = \"\" }".write(
            to: folder.appendingPathComponent("Models/Tag.swift"), atomically: true, encoding: .utf8)
        try "enum S: VersionedSchema { static let versionIdentifier = Schema.Version(1, 0, 0); static let models: [any PersistentModel.Type] = [Tag.self] }"
            .write(to: folder.appendingPathComponent("S.swift"), atomically: true, encoding: .utf8)
        let sources = try SwiftDataReader().read(paths: [folder.path])
        #expect(sources.files.count == 2)
        #expect(sources.schemas.first?.model.entity(named: "Tag") != nil)
        #expect(throws: SwiftDataReadError.self) { try SwiftDataReader().read(paths: [folder.appendingPathComponent("nope").path]) }
    }
}

/// `instar model swiftdata`: hashes on stdout, positioned diagnostics on stderr, exit 65 on errors.
@Suite struct SwiftDataCommandTests {
}
