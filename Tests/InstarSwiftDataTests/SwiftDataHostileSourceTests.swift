import Foundation
@_spi(Layouts) import InstarModel
import InstarSwiftData
import Testing

/// Sources that once crashed or stalled the reader (an independent fuzz of `model swiftdata`,
/// `plan --swiftdata` and `lint --swiftdata`): each is now a located error. Timing is Scripts/fuzz's
/// business; these tests check what is reported and where.
@Suite struct SwiftDataHostileSourceTests {
    func read(_ text: String, path: String = "Deep.swift") -> SwiftDataSources {
        SwiftDataReader().read(files: [(path: path, text: text)])
    }

    static let model = "@Model final class Item { var name: String = \"\" }\nlet s = Schema([Item.self])\n"

    /// Types nested thousands deep overflowed swift-syntax's stack: refused at the brace that crosses the
    /// limit, and the other files are still read.
    @Test func deeplyNestedTypesAreRefusedAtTheLimit() throws {
        let depth = 5_000
        let deep = String(repeating: "struct S {\n", count: depth) + String(repeating: "}\n", count: depth)
        let sources = SwiftDataReader().read(files: [(path: "Deep.swift", text: deep), (path: "Model.swift", text: Self.model)])
        let error = try #require(sources.errors.first)
        #expect(error.location.file == "Deep.swift" && error.location.line == 65 && error.location.column == 10)
        #expect(error.message.contains("nest deeper than 64"))
        #expect(sources.schemas.count == 1)
    }

    /// `[[[[…Int…]]]]` took time doubling per level: refused at the ninth `[`, in a type and in an
    /// unclosed array literal alike.
    @Test func nestedSquareBracketsAreRefusedAtTheLimit() throws {
        let type = "@Model final class Item { var grid: " + String(repeating: "[", count: 22) + "Int" + String(repeating: "]", count: 22) + " }"
        let typeError = try #require(read(type).errors.first)
        #expect(typeError.location.line == 1 && typeError.location.column == 37 + 8)
        #expect(typeError.message.contains("square brackets nest deeper than 8"))
        let unclosed = read("let x = " + String(repeating: "[", count: 30))
        #expect(unclosed.errors.first?.location.column == 9 + 8)
        // Brackets in comments and strings do not count; nine levels inside an interpolation do.
        let quoted = read("// " + String(repeating: "[", count: 40) + "\nlet s = \"" + String(repeating: "[", count: 40) + "\"\n" + Self.model)
        #expect(quoted.errors.isEmpty && quoted.schemas.count == 1, "\(quoted.errors)")
        let interpolated = read("let s = \"\\(" + String(repeating: "[", count: 9) + "1" + String(repeating: "]", count: 9) + ")\"")
        #expect(interpolated.errors.first?.message.contains("square brackets") == true)
    }

    @Test func nestedConditionalCompilationIsRefusedAtTheLimit() throws {
        let text = String(repeating: "#if A\n", count: 5_000) + Self.model + String(repeating: "#endif\n", count: 5_000)
        let error = try #require(read(text).errors.first)
        #expect(error.location.line == 17 && error.location.column == 1 && error.message.contains("`#if` blocks nest deeper than 16"))
    }

    /// Long postfix chains build deep trees without brackets: refused after parsing, before any walk.
    @Test func deepSyntaxTreesWithoutBracketsAreRefused() throws {
        let chain = "let x = a" + String(repeating: ".b", count: 3_000) + "\n" + Self.model
        let sources = read(chain)
        #expect(sources.errors.first?.message.contains("deeper than 1000 syntax levels") == true, "\(sources.errors)")
        #expect(sources.errors.first?.location.line == 1)
    }

    func plan(_ stages: String) -> SwiftDataSources {
        read("""
            enum V1: VersionedSchema {
                static var versionIdentifier = Schema.Version(1, 0, 0)
                static var models: [any PersistentModel.Type] { [Item.self] }
                @Model final class Item { var a: String = "" }
            }
            enum V2: VersionedSchema {
                static var versionIdentifier = Schema.Version(2, 0, 0)
                static var models: [any PersistentModel.Type] { [Item.self] }
                @Model final class Item { var a: String = ""; var b: Int = 0 }
            }
            enum Plan: SchemaMigrationPlan {
                static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self] }
                static var stages: [MigrationStage] { [\(stages)] }
            }
            """, path: "Plan.swift")
    }

    /// Stages to themselves, backwards, or forming a cycle passed `plan` and `lint`: refused at the stage.
    @Test func stagesToThemselvesBackwardsOrInACycleAreRefused() throws {
        let forward = ".lightweight(fromVersion: V1.self, toVersion: V2.self)"
        #expect(plan(forward).plans.count == 1)
        let itself = plan(".lightweight(fromVersion: V1.self, toVersion: V1.self)")
        #expect(itself.plans.isEmpty)
        #expect(itself.errors.contains { $0.location.line == 13 && $0.message.contains("from V1 to itself") }, "\(itself.errors)")
        let cycle = plan(forward + ", .lightweight(fromVersion: V2.self, toVersion: V1.self)")
        #expect(cycle.plans.isEmpty)
        let backwards = try #require(cycle.errors.first { $0.message.contains("goes backwards") })
        #expect(backwards.location.line == 13 && (backwards.location.column ?? 0) > 90)
        #expect(backwards.message.contains("from V2 (schema 2 of `schemas`) to V1 (schema 1)"))
    }
}
