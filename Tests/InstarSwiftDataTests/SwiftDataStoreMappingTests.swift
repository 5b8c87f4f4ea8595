import Foundation
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarSwiftData
import Testing
import InstarSwiftDataTestSupport
@testable import InstarModelIO

/// The mappings the PegaseUIData, ChefTime and Retroview stores show (docs/swiftdata.md), one small source
/// each: what the reader builds, what the layout stores and what the model cache writer archives.
@Suite struct SwiftDataStoreMappingTests {
    func schema(_ text: String) throws -> SwiftDataSchema {
        let read = SwiftDataReader().read(files: [(path: "M.swift", text: "import SwiftData\n" + text)])
        #expect(read.errors.isEmpty, "\(read.errors)")
        return try #require(read.schemas.first, "\(read.diagnostics)")
    }

    func attribute(_ schema: SwiftDataSchema, _ entity: String, _ name: String) throws -> Attribute {
        try #require(schema.model.entity(named: entity)?.attribute(named: name), "\(entity).\(name)")
    }

    func graph(_ model: Model, configurations: ModelCacheArchive.Configurations = .default) throws -> String {
        try ModelCacheGraph.graph(ModelCacheArchive.archive(model, configurations: configurations))
    }

    /// `Int16` → Integer 16 with its literal default, no warning (PegaseUIData EntitySchedule.frequence).
    @Test func int16IsInteger16WithoutAnAssumption() throws {
        let read = SwiftDataReader().read(files: [(path: "M.swift", text: """
            @Model final class Plan { var frequence: Int16 = 0; init() {} }
            let schema = Schema([Plan.self])
            """)])
        let plan = try #require(read.schemas.first).model
        let frequence = try #require(plan.entity(named: "Plan")?.attribute(named: "frequence"))
        #expect(frequence.type == .integer16 && frequence.defaultValue == "0" && !frequence.isOptional)
        #expect(read.diagnostics.allSatisfy { $0.severity != .warning || !$0.message.contains("assumed") }, "\(read.diagnostics)")
        let text = try graph(plan)
        #expect(text.contains("NSAttributeType: 100") && text.contains("NSDefaultValue: 0,"), "\(text)")
    }

    /// `@Attribute(.externalStorage) var pdf: Data?` → Binary with external storage: it enters the hash
    /// (one byte more than a plain `Data?`), and the cache says NSFlagsKey 4 where a plain one says 0.
    @Test func externalStorageIsHashedAndFlagged() throws {
        let stored = try schema("""
            @Model final class Statement { @Attribute(.externalStorage) var pdfDoc: Data?; var scan: Data?; init() {} }
            let schema = Schema([Statement.self])
            """)
        let plain = try schema("""
            @Model final class Statement { var pdfDoc: Data?; var scan: Data?; init() {} }
            let schema = Schema([Statement.self])
            """)
        let pdf = try attribute(stored, "Statement", "pdfDoc")
        #expect(pdf.type == .binary && pdf.isOptional && pdf.allowsExternalBinaryDataStorage)
        #expect(try !attribute(stored, "Statement", "scan").allowsExternalBinaryDataStorage)
        #expect(VersionHashes(model: stored.model) != VersionHashes(model: plain.model))
        let text = try graph(stored.model)
        #expect(text.contains("NSFlagsKey: 4") && text.contains("NSFlagsKey: 0"), "\(text)")
        let table = try #require(try CoreDataLayout().storageMap(for: stored.model).schema.table(named: "ZSTATEMENT"))
        #expect(table.columns.map { "\($0.name) \($0.declaredType)" }.contains("ZPDFDOC BLOB"))
    }

    /// `.transformable(by: ColorTransformer.self) var color: NSColor` → Transformable, transformer named
    /// bare, value class the property's type (PegaseUIData EntityRubric.color), no default.
    @Test func transformableByRecordsTransformerAndValueClass() throws {
        let read = try schema("""
            @Model final class Rubric {
                @Attribute(.transformable(by: ColorTransformer.self)) var color: NSColor
                init(color: NSColor) { self.color = color }
            }
            let schema = Schema([Rubric.self])
            """)
        let color = try attribute(read, "Rubric", "color")
        #expect(color.type == .transformable && !color.isOptional)
        #expect(color.userInfo["valueTransformerName"] == "ColorTransformer")
        #expect(color.userInfo[SwiftDataUserInfo.valueClass] == "NSColor")
        let text = try graph(read.model)
        #expect(text.contains("NSValueTransformerName: \"ColorTransformer\"") && text.contains("NSAttributeValueClassName: \"NSColor\""), "\(text)")
    }

    /// `@Attribute(.ephemeral)` → a transient attribute: out of the hash and the table, in the cache with
    /// `_P` 249 (251 optional) and its default (PegaseUIData EntityRubric.total, EntityTransaction.solde).
    @Test func ephemeralIsATransientAttribute() throws {
        let read = try schema("""
            @Model final class Rubric {
                var name: String = ""
                @Attribute(.ephemeral) var total: Double = 0.0
                @Attribute(.ephemeral) var solde: Double? = 0.0
                init() {}
            }
            let schema = Schema([Rubric.self])
            """)
        let without = try schema("""
            @Model final class Rubric { var name: String = ""; init() {} }
            let schema = Schema([Rubric.self])
            """)
        let total = try attribute(read, "Rubric", "total")
        #expect(total.isTransient && total.defaultValue == "0.0" && !total.isOptional)
        #expect(try attribute(read, "Rubric", "solde").isOptional)
        #expect(VersionHashes(model: read.model) == VersionHashes(model: without.model))
        let table = try #require(try CoreDataLayout().storageMap(for: read.model).schema.table(named: "ZRUBRIC"))
        #expect(table.columns.map(\.name) == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME"])
        let text = try graph(read.model)
        #expect(text.contains("_P: 249") && text.contains("_P: 251") && text.contains("NSIsTransient: true"), "\(text)")
    }

    /// `private var _sectionIdentifier: String?` is stored like any property, column `Z_SECTIONIDENTIFIER`.
    @Test func privateUnderscoredPropertyIsAnAttribute() throws {
        let read = try schema("""
            @Model final class Entry { private var _sectionIdentifier: String?; init() {} }
            let schema = Schema([Entry.self])
            """)
        #expect(try attribute(read, "Entry", "_sectionIdentifier").type == .string)
        let table = try #require(try CoreDataLayout().storageMap(for: read.model).schema.table(named: "ZENTRY"))
        #expect(table.columns.map(\.name).contains("Z_SECTIONIDENTIFIER"))
    }

    /// Top-level `[Data] = []` → Transformable `Array<Data>` with NSSecureUnarchiveFromData and an empty-array
    /// default shared by every such attribute (ChefTime SDRecipe.imageData and SDStep.imageData).
    @Test func dataArrayIsTransformableWithAnEmptyArrayDefault() throws {
        let read = try schema("""
            @Model final class Recipe { var imageData: [Data] = []; var cover: Data?; init() {} }
            @Model final class Step { var imageData: [Data] = []; init() {} }
            let schema = Schema([Recipe.self, Step.self])
            """)
        let images = try attribute(read, "Recipe", "imageData")
        #expect(images.type == .transformable && images.userInfo["valueTransformerName"] == "NSSecureUnarchiveFromData")
        #expect(images.userInfo[SwiftDataUserInfo.valueClass] == "Array<Data>")
        #expect(try attribute(read, "Recipe", "cover").type == .binary)
        let text = try graph(read.model)
        #expect(text.contains("NSDefaultValue: NSArray{NS.objects: []}") && text.contains("NSDefaultValue: @NSArray()"), "\(text)")
    }

    /// A Codable enum without raw values → a composite of one optional String per case, with the case list
    /// in its user info (ChefTime SDFolder.folderType, `Folder.FolderType` nested in a struct).
    @Test func enumWithoutRawValuesNestedInAStruct() throws {
        let read = try schema("""
            struct Folder { enum FolderType: Equatable, Codable { case systemAll, user; var isSystem: Bool { self == .systemAll } } }
            @Model final class SDFolder { var folderType: Folder.FolderType; init(t: Folder.FolderType) { folderType = t } }
            let schema = Schema([SDFolder.self])
            """)
        let type = try attribute(read, "SDFolder", "folderType")
        #expect(type.type == .composite && type.elements.map(\.name) == ["systemAll", "user"])
        #expect(type.elements.allSatisfy { $0.type == .string && $0.isOptional })
        #expect(type.userInfo["enum"] == "systemAll,user")
    }

    /// Nested `@Model` classes are entities named by the bare inner name; the ones a listed class reaches
    /// are added (ChefTime lists SDFolder and SDRecipe, its store has 7 entities).
    @Test func nestedModelsAreNamedBareAndAddedWhenReached() throws {
        let read = SwiftDataReader().read(files: [(path: "M.swift", text: """
            @Model final class SDRecipe {
                @Relationship(deleteRule: .cascade, inverse: \\SDIngredientSection.parentRecipe)
                var sections: [SDIngredientSection] = []
                init() {}
                @Model final class SDIngredientSection {
                    weak var parentRecipe: SDRecipe?
                    @Relationship(deleteRule: .cascade, inverse: \\SDIngredient.parent) var ingredients: [SDIngredient] = []
                    init() {}
                    @Model final class SDIngredient { weak var parent: SDIngredientSection?; init() {} }
                }
            }
            let container = try ModelContainer(for: SDRecipe.self)
            """)])
        let model = try #require(read.schemas.first, "\(read.errors)").model
        #expect(model.entities.map(\.name).sorted() == ["SDIngredient", "SDIngredientSection", "SDRecipe"])
        #expect(model.entity(named: "SDIngredient")?.relationship(named: "parent")?.inverse == "ingredients")
        #expect(read.diagnostics.contains { if case .reachableModelAdded? = $0.finding { true } else { false } })
    }

    /// A relationship written `@Relationship(...)` without `inverse:` is not paired with the one plain
    /// relationship back (PegaseUIData EntityRubric.categorie / EntityCategory.rubric stay one-sided), and
    /// the plain side says so at its position; two plain ones still pair (ResourcesManager).
    @Test func declaredRelationshipWithoutInverseStaysOneSided() throws {
        let read = SwiftDataReader().read(files: [(path: "M.swift", text: """
            @Model final class Rubric {
                @Relationship(deleteRule: .cascade) var categorie: [Category] = []
                init() {}
            }
            @Model final class Category {
                var rubric: Rubric?
                init() {}
            }
            @Model final class Item { var recipe: Recipe?; init() {} }
            @Model final class Recipe { var produced: Item?; init() {} }
            let schema = Schema([Rubric.self, Category.self, Item.self, Recipe.self])
            """)])
        let model = try #require(read.schemas.first, "\(read.errors)").model
        #expect(model.entity(named: "Rubric")?.relationship(named: "categorie")?.inverse == nil)
        #expect(model.entity(named: "Category")?.relationship(named: "rubric")?.inverse == nil)
        #expect(model.entity(named: "Item")?.relationship(named: "recipe")?.inverse == "produced")
        let warning = try #require(read.diagnostics.first {
            if case .inverseNotInferred? = $0.finding { true } else { false }
        })
        #expect(warning.finding == SwiftDataDiagnostic.Finding.inverseNotInferred(relationship: "rubric", destination: "Rubric", declaredOneSided: "categorie"))
        #expect(warning.location == SourceLocation(file: "M.swift", line: 6, column: 9))
    }

    /// NSConfigurations follow the app's `ModelConfiguration`: `default` when unnamed, its name when named,
    /// none for the framework-1327 store.
    @Test func configurationsAreTheAppsNotTheSchemas() throws {
        let read = try schema("""
            @Model final class Card { var name: String = ""; init() {} }
            let schema = Schema([Card.self])
            """)
        #expect(try graph(read.model).contains("NSConfigurations: NSMutableDictionary{default: NSSet{"))
        #expect(try graph(read.model, configurations: .named("MyStereoviews")).contains("NSConfigurations: NSMutableDictionary{MyStereoviews: NSSet{"))
        #expect(try !graph(read.model, configurations: .absent).contains("NSConfigurations"))
    }
}
