import Foundation
import Testing
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarStore
import InstarSwiftData
import InstarTestSupport
import InstarSwiftDataTestSupport
@testable import InstarCLI

/// The words of refusals and notes that other suites used to find by searching a command's captured
/// output, pinned here as transcripts instead (`Tests/Fixtures/Golden/cli/<case>.txt`,
/// made as ``CLIGoldenTests`` makes its own). Those suites now check exit statuses and values (decoded
/// JSON, the library's results and errors); the golden file is where a change of wording shows, in
/// one reviewed diff.
///
/// Only commands that stop before `migrate` starts a run are here: `migrate` installs signal
/// handlers once it runs a plan, which a test process must not do.
///
/// Regenerate after a deliberate change: `INSTAR_UPDATE_GOLDEN=1 swift test --filter Golden`, then
/// review `git diff Tests/Fixtures/Golden`.
@Suite struct CLIWordsGoldenTests {
    @Test(arguments: CLIGoldenCase.words)
    func transcriptMatchesItsGoldenFile(_ golden: CLIGoldenCase) throws {
        try CLIGoldenTests.check(golden)
    }
}

extension CLIGoldenCase {
    static let words: [CLIGoldenCase] = [
        // An unversioned SwiftData app: the one step SwiftData infers, from the store's own model
        // (SwiftDataMigrateTests checks the step in JSON), and versioned schemas without a plan.
        CLIGoldenCase(name: "swiftdata-inferred", setUp: { s in
            typealias T = SwiftDataStores
            try s.sources("app", T.unversioned("var name: String; var note: String?;"))
            try T.swiftDataStore(try T.schema(T.unversioned("var name: String;"), "1.0.0"), at: s.path("app/default.store"), cache: try T.cache())
            let versioned = T.versioned.components(separatedBy: "enum Plan:")[0]
            try s.sources("versioned", versioned)
            try T.swiftDataStore(try T.schema(versioned, "1.0.0"), at: s.path("versioned/default.store"), cache: try T.cache())
        }) { s in
            [["plan", "--swiftdata", s.path("app"), "--store", s.path("app/default.store")],
             ["plan", "--swiftdata", s.path("versioned"), "--store", s.path("versioned/default.store")]]
        },
        // A change SwiftData cannot infer, named at the property: refused by plan, migrate and lint, the
        // VersionedSchemas scaffold offered (and never overwritten), and the current schema alone.
        CLIGoldenCase(name: "swiftdata-not-inferable", setUp: { s in
            typealias T = SwiftDataStores
            try s.sources("app", T.unversioned("var name: Int;"))
            try s.sources("shipped", T.unversioned("var name: String;"))
            try T.swiftDataStore(try T.schema(T.unversioned("var name: String;"), "1.0.0"), at: s.path("app/default.store"), cache: try T.cache())
        }, varies: [
            // Foundation's words for the file that exists, which differ between platforms and releases.
            (#"(nothing is overwritten\)): .*"#, "$1: <the system's reason>"),
        ]) { s in
            let store = ["--store", s.path("app/default.store")]
            return [
                ["plan", "--swiftdata", s.path("app")] + store,
                ["migrate", "--swiftdata", s.path("app")] + store,
                ["plan", "--swiftdata", s.path("app")] + store + ["--scaffold", s.path("scaffold")],
                ["plan", "--swiftdata", s.path("app")] + store + ["--scaffold", s.path("scaffold")],
                ["plan", "--swiftdata", s.path("app")],
                ["lint", "--swiftdata", s.path("app")] + store,
                ["lint", "--swiftdata", s.path("app"), "--from-swiftdata", s.path("shipped")],
            ]
        },
        // Sources the reader cannot settle alone, a store without its model, and a custom stage's closure
        // not given as SQL.
        CLIGoldenCase(name: "swiftdata-sources", setUp: { s in
            typealias T = SwiftDataMigrateTests
            let perModel = """
                import SwiftData
                enum CardSchemaV1: VersionedSchema {
                    static var versionIdentifier = Schema.Version(1, 0, 0)
                    static var models: [any PersistentModel.Type] { [Card.self] }
                    @Model final class Card { var title: String = ""; init() {} }
                }
                enum TagSchemaV1: VersionedSchema {
                    static var versionIdentifier = Schema.Version(1, 0, 0)
                    static var models: [any PersistentModel.Type] { [Tag.self] }
                    @Model final class Tag { var name: String = ""; init() {} }
                }
                """
            try s.sources("per-model", perModel)
            try s.sources("per-model-app", perModel)
            try "let container = try! ModelContainer(for: CardSchemaV1.Card.self, TagSchemaV1.Tag.self)\n"
                .write(toFile: s.path("per-model-app/App.swift"), atomically: true, encoding: .utf8)
            try s.sources("shipped", SwiftDataStores.unversioned("var name: String;"))
            try s.sources("current", SwiftDataStores.unversioned("var name: String; var note: String?; var rating: Int?;"))
            try SwiftDataStores.swiftDataStore(try SwiftDataStores.schema(SwiftDataStores.unversioned("var name: String;"), "1.0.0"), at: s.path("current/default.store"))
            try s.sources("custom", T.custom)
        }) { s in
            let store = ["--store", s.path("current/default.store")]
            return [
                ["plan", "--swiftdata", s.path("per-model")],
                ["plan", "--swiftdata", s.path("per-model-app")],
                ["migrate", "--swiftdata", s.path("current")] + store,
                ["migrate", "--swiftdata", s.path("current"), "--from-swiftdata", s.path("current")] + store,
                ["plan", "--swiftdata", s.path("current"), "--from-swiftdata", s.path("shipped")] + store,
                ["plan", "--swiftdata", s.path("custom")],
                ["test", "--swiftdata", s.path("custom"), "--rows", "5"],
            ]
        },
        // A store written by a schema edited after it shipped: SwiftData's 134504, the closest schema and the edit.
        CLIGoldenCase(name: "swiftdata-edited-schema", setUp: { s in
            typealias T = SwiftDataPlanTests
            let text = "import SwiftData\n"
                + [T.schema("V1", "1.0.0", "var name: String = \"\""), T.schema("V2", "2.0.0", "var name: String = \"\"; var note: String?")]
                .joined(separator: "\n") + """

                enum Plan: SchemaMigrationPlan {
                    static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self] }
                    static var stages: [MigrationStage] { [.lightweight(fromVersion: V1.self, toVersion: V2.self)] }
                }
                """
            try s.sources("app", text)
            let shipped = T.schema("V1", "1.0.0", "var name: String = \"\"; var price: Double = 0")
            let read = SwiftDataReader().read(files: [(path: "Shipped.swift", text: "import SwiftData\n" + shipped)])
            guard let model = read.schemas.first?.model else { throw GoldenSetUpError("the shipped schema did not read") }
            try SQLiteStore.create(at: s.path("shipped.store"), model: model, layout: CoreDataLayout()).close()
        }) { s in
            [["plan", "--swiftdata", s.path("app"), "--store", s.path("shipped.store")]]
        },
        // Options `migrate` refuses while parsing its arguments, and a target none of the versions has.
        CLIGoldenCase(name: "migrate-refusals", setUp: { try $0.garageStore() }) { s in
            ["--time-budget=nan", "--time-budget=-1", "--wait=nan", "--wait=-2"].map { ["migrate", garage, "--store", s.store, $0] }
                + [["migrate", "--store", s.store] + garageModels.flatMap { ["--model", $0] } + ["--to", "v9"]]
        },
        // What `plan --scaffold` refuses or has nothing to write for.
        CLIGoldenCase(name: "scaffold-refusals", setUp: { try $0.writeNoChainPlan() }) { s in
            [["plan", s.path("plan.yaml"), "--scaffold", s.path("out")], ["plan", s.path("plan.yaml"), "--scaffold", s.path("out")],
             ["plan", garage, "--scaffold", s.path("garage")]]
        },
        // A mapping file matched to a plan's versions by its names, and to versions it does not name.
        CLIGoldenCase(name: "mapping-file") { _ in
            let classes = root("Plans/school-classes")
            return [["mapping", classes + "/v2-to-v3.mapping.yaml", "--plan", classes + "/plan.yaml"],
                    ["mapping", classes + "/v2-to-v3.mapping.yaml", "--model", classes + "/models/v1.yaml"]]
        },
        // `test --fixtures` given a folder without a store in it (HostileFileTests: FIFOs and devices among fixtures).
        CLIGoldenCase(name: "test-fixtures", setUp: { s in
            try FileManager.default.createDirectory(atPath: s.path("fixtures"), withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: s.path("fixtures/a.sqlite"), contents: Data("not a store\n".utf8))
        }) { s in
            [["test", root("Plans/music/plan.yaml"), "--fixtures", s.path("fixtures")]]
        },
        // `store seed` and `test` refusing names that are not in the model or plan.
        CLIGoldenCase(name: "seed-test-refusals", setUp: { try $0.garageStore() }) { s in
            [["store", "seed", s.store, "--rows", "5", "--rows-for", "Nope=2"], ["store", "seed", s.store, "--rows", "2", "--seed", "9"],
             ["test", garage, "--from", "Garage 9"]]
        },
    ]
}

extension Scratch {
    /// `text` as `Models.swift` in the folder `name`.
    func sources(_ name: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: path(name), withIntermediateDirectories: true)
        try text.write(toFile: path(name + "/Models.swift"), atomically: true, encoding: .utf8)
    }
}
