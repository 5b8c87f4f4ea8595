import Foundation
@_spi(Layouts) import InstarModel
import InstarSwiftData
import Testing

/// Names as the compiler looks them up: nested types, extensions of schema enums in other files,
/// qualified names, type aliases at any level, and a stored property's type taken from its initializer
/// where the compiler can tell it. Each source is small and inline; each construct once.
@Suite struct SwiftDataScopeTests {
    func read(_ files: [(String, String)]) -> SwiftDataSources {
        SwiftDataReader().read(files: files.map { (path: $0.0, text: $0.1) })
    }

    func schema(_ sources: SwiftDataSources, _ name: String) throws -> SwiftDataSchema {
        try #require(sources.schemas.first { $0.name == name }, "\(sources.errors)")
    }

    /// Models declared in extensions of the schema enums, in several files; `[Item.self]` inside
    /// `SchemaV1` means `SchemaV1.Item` although a top-level alias `Item` names `SchemaV2.Item`, which
    /// the unversioned model uses.
    @Test func extensionsAcrossFilesAndNestedNamesBeforeTopLevelAlias() throws {
        let sources = read([
            ("Schemas.swift", """
                enum SchemaV1: VersionedSchema {
                    static var versionIdentifier = Schema.Version(1, 0, 0)
                    static var models: [any PersistentModel.Type] { [Item.self, Tag.self] }
                }
                enum SchemaV2: VersionedSchema {
                    static var versionIdentifier = Schema.Version(2, 0, 0)
                    static var models: [any PersistentModel.Type] { [Item.self, Tag.self] }
                }
                typealias Item = SchemaV2.Item
                typealias Tag = SchemaV2.Tag
                """),
            ("V1Item.swift", "extension SchemaV1 { @Model final class Item { var title: String = \"\"; var tags: [Tag] = [] } }"),
            ("V1Tag.swift", "extension SchemaV1 { @Model final class Tag { var name: String = \"\" } }"),
            ("V2Item.swift", "extension SchemaV2 { @Model final class Item { var title: String = \"\"; var done: Bool = false; var tags: [Tag] = [] } }"),
            ("V2Tag.swift", "extension SchemaV2 { @Model final class Tag { var name: String = \"\" } }"),
            ("Loose.swift", """
                @Model final class Note { var item: Item? }
                let container = Schema([Note.self, Item.self, Tag.self])
                """),
        ])
        #expect(sources.errors.isEmpty, "\(sources.errors)")
        let v1 = try schema(sources, "SchemaV1")
        #expect(v1.modelClasses == ["SchemaV1.Item", "SchemaV1.Tag"])
        #expect(v1.model.entity(named: "Item")?.attribute(named: "done") == nil)
        #expect(v1.model.entity(named: "Item")?.relationships.first?.destination == "Tag")
        let v2 = try schema(sources, "SchemaV2")
        #expect(v2.model.entity(named: "Item")?.attribute(named: "done") != nil)
        let loose = try #require(sources.schemas.first { !$0.isVersioned })
        #expect(loose.modelClasses == ["Note", "SchemaV2.Item", "SchemaV2.Tag"])
        #expect(loose.model.entity(named: "Note")?.relationships.first?.destination == "Item")
    }

    /// A schema that takes an unchanged class from the previous version through a type alias, while
    /// that class's relationship names the previous version's class of another entity the schema
    /// redeclares (fit-iq's SchemaV4): SwiftData links relationships by entity name, so the relationship
    /// leads to this schema's own class; no second entity of that name.
    @Test func aliasedClassFromAnEarlierVersionLinksByEntityName() throws {
        let sources = read([("S.swift", """
            enum SchemaV1: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, 0, 0)
                static var models: [any PersistentModel.Type] { [Item.self, Tag.self] }
                @Model final class Item { var title: String = ""; @Relationship(inverse: \\Tag.item) var tags: [Tag] = [] }
                @Model final class Tag { var name: String = ""; var item: Item? }
            }
            enum SchemaV2: VersionedSchema {
                static var versionIdentifier = Schema.Version(2, 0, 0)
                static var models: [any PersistentModel.Type] { [Item.self, Tag.self] }
                typealias Tag = SchemaV1.Tag
                @Model final class Item { var title: String = ""; var done = false; @Relationship(inverse: \\Tag.item) var tags: [Tag] = [] }
            }
            """)])
        #expect(sources.errors.isEmpty, "\(sources.errors)")
        let v2 = try schema(sources, "SchemaV2")
        #expect(v2.modelClasses == ["SchemaV2.Item", "SchemaV1.Tag"])
        #expect(v2.model.entities.map(\.name).sorted() == ["Item", "Tag"])
        #expect(v2.model.entity(named: "Item")?.attribute(named: "done") != nil)
        #expect(v2.model.entity(named: "Tag")?.relationships.first?.inverse == "tags")
        #expect(sources.diagnostics.contains { $0.severity == .warning && $0.location.line == 5 && $0.message.contains("links relationships by entity name") })
    }

    /// `extension Current { @Model ... }` with `typealias Current = SchemaV2`: the class is SchemaV2's;
    /// `Current.Item` names it.
    @Test func extensionOfAnAliasAndQualifiedNameThroughAlias() throws {
        let sources = read([
            ("A.swift", """
                enum SchemaV2: VersionedSchema {
                    static var versionIdentifier = Schema.Version(2, 0, 0)
                    static var models: [any PersistentModel.Type] { [Item.self] }
                }
                typealias Current = SchemaV2
                """),
            ("B.swift", "extension Current { @Model final class Item { var title: String = \"\" } }"),
            ("C.swift", "@Model final class Box { var item: Current.Item? }\nlet s = Schema([Box.self, Current.Item.self])"),
        ])
        #expect(sources.errors.isEmpty, "\(sources.errors)")
        #expect(try schema(sources, "SchemaV2").modelClasses == ["SchemaV2.Item"])
        let loose = try #require(sources.schemas.first { !$0.isVersioned })
        #expect(loose.modelClasses == ["Box", "SchemaV2.Item"])
    }

    /// `typealias ChannelID = String` at the top level of another file: a String attribute; an alias
    /// declared inside the schema enum and one to an optional work the same way.
    @Test func typeAliasesToScalarsInAnyScopeAndFile() throws {
        let sources = read([
            ("IDs.swift", "typealias ChannelID = String\ntypealias Stamp = Date?"),
            ("Schema.swift", """
                enum SchemaV1: VersionedSchema {
                    static var versionIdentifier = Schema.Version(1, 0, 0)
                    static var models: [any PersistentModel.Type] { [Channel.self] }
                    typealias Count = Int
                    @Model final class Channel {
                        var id: ChannelID
                        var members: Count = 0
                        var seen: Stamp
                        init(id: ChannelID) { self.id = id }
                    }
                }
                """),
        ])
        let channel = try #require(try schema(sources, "SchemaV1").model.entity(named: "Channel"))
        #expect(channel.attribute(named: "id")?.type == .string)
        #expect(channel.attribute(named: "members")?.type == .integer64)
        #expect(channel.attribute(named: "seen")?.type == .date)
        #expect(channel.attribute(named: "seen")?.isOptional == true)
        // Same hashes as the model written with the aliased types.
        let plain = read([("P.swift", """
            enum SchemaV1: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, 0, 0)
                static var models: [any PersistentModel.Type] { [Channel.self] }
                @Model final class Channel { var id: String; var members: Int = 0; var seen: Date? }
            }
            """)])
        #expect(try schema(plain, "SchemaV1").model.versionHashes.entityHashes
            == schema(sources, "SchemaV1").model.versionHashes.entityHashes)
    }

    /// A cycle of aliases is an error at the alias, naming the cycle, not a recursion.
    @Test func cyclicTypeAliasIsALocatedError() throws {
        let sources = read([
            ("Aliases.swift", "typealias A = B\ntypealias B = C\ntypealias C = A\ntypealias Me = Me"),
            ("Model.swift", "@Model final class Thing { var a: A; var me: Me? }\nlet s = Schema([Thing.self])"),
        ])
        #expect(sources.schemas.isEmpty)
        let error = try #require(sources.errors.first { $0.message.contains("refers to itself") })
        #expect(error.location.file == "Model.swift" && error.location.line == 1)
        #expect(error.message.contains("A → B → C → A") && error.message.contains("Aliases.swift:1:1"))
        #expect(sources.errors.contains { $0.message.contains("`Me` refers to itself (Me → Me)") })
    }

    /// `var placement = Placement.standard`: the type is the enum that has that case; a static member
    /// of the type's own type works too; a member of another type, or one the sources do not declare,
    /// stays an error at the property.
    @Test func typeFromEnumCaseOrStaticMemberInitializer() throws {
        let sources = read([("S.swift", """
            enum Placement: String, Codable { case standard, pinned }
            struct Size: Codable {
                var width: Double
                static let regular = Size(width: 1)
                static let count = 3
            }
            @Model final class Card {
                var placement = Placement.standard
                var size = Size.regular
                init() {}
            }
            let s = Schema([Card.self])
            """)])
        let cardSchema = try #require(sources.schemas.first, "\(sources.errors)")
        let card = try #require(cardSchema.model.entity(named: "Card"))
        #expect(card.attribute(named: "placement")?.type == .composite)
        #expect(card.attribute(named: "placement")?.userInfo["EnumType"] == "true")
        #expect(card.attribute(named: "size")?.elements.map(\.name) == ["width"])

        let refused = read([("S.swift", """
            enum Placement: String, Codable { case standard }
            struct Size: Codable { var width: Double; static let count = 3 }
            @Model final class Card {
                var count = Size.count
                var other = Placement.missing
                var far = Elsewhere.value
            }
            let s = Schema([Card.self])
            """)])
        #expect(refused.schemas.isEmpty)
        for (line, text) in [(4, "Size.count"), (5, "Placement.missing"), (6, "Elsewhere.value")] {
            #expect(refused.errors.contains { $0.location.line == line && $0.message.contains("`\(text)` is not a case or static member") },
                    "\(refused.errors)")
        }
    }

    /// Literals and constructor calls give their types; an enum inside a composite struct stays refused,
    /// named.
    @Test func literalAndConstructorInitializersAndCompositeInComposite() throws {
        let sources = read([("S.swift", """
            struct Point: Codable { var x: Double; var y: Double }
            @Model final class Shape {
                var name = "square"
                var corners = 4
                var scale = 1.5
                var visible = true
                var origin = Point(x: 0, y: 0)
                var id = UUID()
                init() {}
            }
            let s = Schema([Shape.self])
            """)])
        let shapeSchema = try #require(sources.schemas.first, "\(sources.errors)")
        let shape = try #require(shapeSchema.model.entity(named: "Shape"))
        let types = Dictionary(uniqueKeysWithValues: shape.attributes.map { ($0.name, $0.type) })
        #expect(types == ["name": .string, "corners": .integer64, "scale": .double, "visible": .boolean, "origin": .composite, "id": .uuid])

        let nested = read([("S.swift", """
            enum Kind: String, Codable { case a, b }
            struct Tagging: Codable { var kind: Kind; var label: String }
            @Model final class Item { var tagging: Tagging? }
            let s = Schema([Item.self])
            """)])
        // No store shows an enum inside a Codable struct: its raw value's type is assumed, at the member.
        let tagging = try #require(nested.schemas.first?.model.entity(named: "Item")?.attribute(named: "tagging"), "\(nested.errors)")
        #expect(tagging.elements.map(\.type) == [.string, .string])
        #expect(tagging.userInfo[SwiftDataUserInfo.assumedMapping] == "Tagging.kind: Kind → String element")
        #expect(nested.diagnostics.contains { $0.severity == .warning && $0.location.line == 2 && $0.message.contains("Tagging.kind: Kind") },
                "\(nested.diagnostics)")
    }
    /// An unversioned app's schema is the list its container is made with, in any of the forms the
    /// compiler accepts: `ModelContainer(for:)`'s variadic list (qualified names looked up from the call's
    /// scope), SwiftUI's `.modelContainer(for:)` with one type or an array; an in-memory container or one
    /// made for a preview never opens a shipped store and is not the app's schema.
    @Test func containerCallsListTheUnversionedSchema() throws {
        let models = """
            enum CardSchemaV1 { @Model final class Card { var title: String = ""; init() {} } }
            enum TagSchemaV1 { @Model final class Tag { var name: String = ""; init() {} } }
            """
        let variadic = read([("Models.swift", models), ("App.swift", """
            struct MyApp: App {
                let container: ModelContainer
                init() {
                    container = try! ModelContainer(for:
                        CardSchemaV1.Card.self,
                        TagSchemaV1.Tag.self,
                        migrationPlan: nil)
                }
            }
            #Preview { ContentView().modelContainer(for: CardSchemaV1.Card.self, inMemory: true) }
            struct Previews: PreviewProvider {
                static var previews: some View { ContentView().modelContainer(for: [TagSchemaV1.Tag.self]) }
            }
            """)])
        #expect(variadic.errors.isEmpty, "\(variadic.errors)")
        #expect(variadic.schemas.map(\.modelClasses) == [["CardSchemaV1.Card", "TagSchemaV1.Tag"]])
        #expect(variadic.schemas.first?.location.file == "App.swift" && variadic.schemas.first?.location.line == 4)
        #expect(variadic.schemas.first?.versionIdentifier == "1.0.0" && variadic.schemas.first?.isVersioned == false)

        let modifier = read([("Models.swift", models), ("App.swift", """
            struct MyApp: App {
                var body: some Scene { WindowGroup { ContentView() }.modelContainer(for: [CardSchemaV1.Card.self, TagSchemaV1.Tag.self]) }
            }
            struct Other: App {
                var body: some Scene { WindowGroup { ContentView() }.modelContainer(for: CardSchemaV1.Card.self) }
            }
            """)])
        #expect(modifier.schemas.map(\.modelClasses) == [["CardSchemaV1.Card", "TagSchemaV1.Tag"], ["CardSchemaV1.Card"]])

        // A container made from a value, or of something that is not a model type, lists nothing.
        let value = read([("Models.swift", models), ("App.swift", """
            let schema = Schema(versionedSchema: V1.self)
            let a = try ModelContainer(for: schema, configurations: [config])
            """)])
        #expect(value.schemas.isEmpty && value.errors.isEmpty, "\(value.errors)")

        let unknown = read([("Models.swift", models), ("App.swift", "let a = try ModelContainer(for: Card.self)")])
        #expect(unknown.errors.contains { $0.location.file == "App.swift" && $0.message.contains("`Card` is not a @Model class") },
                "\(unknown.errors)")
    }
}
