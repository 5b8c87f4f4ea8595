// swift-tools-version: 6.0
//
// Instar: progressive, multi-step schema migrations of SQLite stores.
//
// Modules import in one direction only, by concept; GRDB only where SQLite is touched. As imported
// (checked against the sources' `import` lines):
//   InstarSQL (quoting, value encodings, SQL type names): no dependencies;
//   InstarModel (entities, hashes; validation checks the values layouts write as SQL words) ← InstarSQL;
//   InstarModelIO (model files, Xcode and compiled models) ← InstarModel;
//   InstarInference (diffs, Core Data's rules) ← InstarModel;
//   InstarSwiftData (SwiftData sources, swift-syntax) ← InstarModel;
//   InstarMapping (mapping models, expressions) ← InstarModel, InstarModelIO, InstarSQL;
//   InstarLayouts (pure: schemas, storage maps, the layouts, the built-in layout names) ← InstarModel, InstarSQL;
//   InstarCompiler (pure: step compiler, fusion, step SQL, mapping compiler) ← InstarModel, InstarInference,
//     InstarMapping, InstarSQL, InstarLayouts;
//   InstarPlanner (plans, plan files, the version graph, chains, cost model) ← the pure modules above, never
//     the store;
//   InstarStore (GRDB: the layout protocol plug-ins implement and the registry handing it out, reading schemas,
//     bookkeeping, executing compiled steps, the model cache) ← the pure
//     modules but the planner, and CZlib;
//   InstarSwiftDataCheck (SwiftData's plan rules, typed findings) ← InstarSwiftData, the planner and the store;
//   InstarRuntime (executor, journal, lease, hooks, progress, dry run, implied plans, export) ← planner and store;
//   Instar (umbrella) ← the runtime and what it re-exports; InstarCLI ← Instar, InstarAdoption, InstarSeeding,
//     InstarSwiftData, InstarSwiftDataCheck, InstarTesting;
//   InstarSeeding and InstarAdoption (on the store), InstarTesting (on the runtime and seeding): for the
//     CLI and tests only; InstarTesting is its own product and the umbrella re-exports none of them.
// `Instar` is the umbrella library product that re-exports the layers an app needs.
import PackageDescription

let package = Package(
    name: "Instar",
    // Apple platforms at the versions matching macOS 13, the oldest the code is written for (GRDB 7 and
    // swift-crypto allow older ones). Only Linux builds are compiled and tested here; command hooks and
    // signal handling exist only where processes and signals do (`#if os(macOS) || os(Linux)`).
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Instar", targets: ["Instar"]),
        // The migration test harness (MigrationTester): its own product, so an app that does not test links none of it.
        .library(name: "InstarTesting", targets: ["InstarTesting"]),
        // SwiftData's launch checks on an app's sources (SwiftDataPlanCheck): its own product, so that an app
        // that migrates without reading Swift sources links no swift-syntax.
        .library(name: "InstarSwiftDataCheck", targets: ["InstarSwiftDataCheck"]),
        .executable(name: "instar", targets: ["InstarCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // Documentation only: `swift package generate-documentation --target Instar` (see docs/building-docs.md).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // SwiftData schema sources (InstarSwiftData): the parser only, not the macro/compiler-plugin products.
        .package(url: "https://github.com/swiftlang/swift-syntax.git", from: "602.0.0"),
    ],
    targets: [
        // Identifier quoting, SQL literals, how layouts encode dates and UUIDs, SQL type names: no dependencies.
        .target(name: "InstarSQL"),
        // Entities, attributes, relationships; validation; Core Data-exact version hashes.
        .target(
            name: "InstarModel",
            // InstarSQL: validation checks the values a layout writes into DDL as SQL words (declared types, actions).
            dependencies: ["InstarSQL", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Reading models: Instar's YAML/JSON files and Xcode .xcdatamodel(d) bundles.
        .target(
            name: "InstarModelIO",
            dependencies: ["InstarModel", .product(name: "Yams", package: "Yams")]
        ),
        // SwiftData schema sources (@Model classes, VersionedSchema, SchemaMigrationPlan) → Instar models.
        .target(
            name: "InstarSwiftData",
            dependencies: [
                "InstarModel",
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
            ]
        ),
        // Diff of two model versions and Core Data's lightweight-inference rules, with reasons.
        .target(
            name: "InstarInference",
            dependencies: ["InstarModel"]
        ),
        // Core Data mapping models (.xcmappingmodel, Instar's .mapping.yaml): reading, matching to versions, expressions → SQL.
        .target(
            name: "InstarMapping",
            // Yams: Instar's own mapping files are read with InstarModelIO's positioned YAML walker.
            dependencies: ["InstarModel", "InstarModelIO", "InstarSQL", .product(name: "Yams", package: "Yams")]
        ),
        // Plan files, the version graph, cheapest chains, synthesized decompositions.
        .target(
            name: "InstarPlanner",
            dependencies: [
                "InstarModel", "InstarModelIO", "InstarInference", "InstarMapping", "InstarSQL", "InstarLayouts",
                "InstarCompiler", .product(name: "Yams", package: "Yams"),
            ]
        ),
        // How layouts store model versions, without a database: schema types and their comparison, storage
        // maps, the Instar, Core Data and plain SQL layouts' naming and storage builders, layout names,
        // CREATE TABLE text and SQL tokens. Pure, so that the planner and the compiler use it directly.
        .target(
            name: "InstarLayouts",
            dependencies: ["InstarModel", "InstarSQL"]
        ),
        // The step compiler (a diff → table transformations → SQL statements with values), fusion of
        // consecutive steps, and the mapping compiler: pure, arguments as values (SQLValue).
        .target(
            name: "InstarCompiler",
            dependencies: ["InstarModel", "InstarInference", "InstarMapping", "InstarSQL", "InstarLayouts"]
        ),
        // zlib's C API (raw DEFLATE of a store's cached model, Z_MODELCACHE): the SDK's libz on Apple
        // platforms, Debian's zlib1g-dev here.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // SQLite stores through GRDB: reading schemas and layouts' bookkeeping, executing compiled steps in
        // one schema transaction, the cached model, version detection, interruption.
        .target(
            name: "InstarStore",
            dependencies: [
                "InstarModel", "InstarModelIO", "InstarInference", "InstarMapping", "InstarSQL", "InstarLayouts",
                "InstarCompiler", "CZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the authorizer that tells what a hook's SQL reads and writes.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // Synthetic rows for a store of any layout (`instar store seed`, the migration tester).
        .target(
            name: "InstarSeeding",
            dependencies: [
                "InstarModel", "InstarSQL", "InstarLayouts", "InstarStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // Adoption: an Instar model from any SQLite schema (`instar model import`).
        .target(
            name: "InstarAdoption",
            dependencies: [
                "InstarModel", "InstarSQL", "InstarLayouts", "InstarStore", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Running chains: hooks, the migrator, dry-run reports.
        .target(
            name: "InstarRuntime",
            dependencies: [
                "InstarModel", "InstarInference", "InstarMapping", "InstarPlanner", "InstarSQL", "InstarLayouts",
                "InstarCompiler", "InstarStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                // sqlite3_db_filename: the lease finds its store's lock file from the connection it was read on.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // SwiftData's plan rules on an app's sources, as typed findings: the plan a SchemaMigrationPlan (or an
        // unversioned app's inferred step) makes, duplicate checksums, inferable stages, reachability, a store
        // matched to a schema. Above the planner and the store; the CLI only renders what it finds.
        .target(
            name: "InstarSwiftDataCheck",
            dependencies: ["InstarModel", "InstarSwiftData", "InstarInference", "InstarLayouts", "InstarPlanner", "InstarStore"]
        ),
        // The migration test harness behind `instar test`: seeds stores, migrates them, compares rows.
        .target(
            name: "InstarTesting",
            dependencies: [
                "InstarModel", "InstarInference", "InstarMapping", "InstarPlanner", "InstarSQL", "InstarLayouts",
                "InstarStore", "InstarSeeding", "InstarRuntime",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Umbrella library.
        .target(
            name: "Instar",
            dependencies: [
                "InstarModel", "InstarModelIO", "InstarInference", "InstarMapping", "InstarPlanner", "InstarSQL",
                "InstarLayouts", "InstarCompiler", "InstarStore", "InstarRuntime",
                // Re-exported: GRDB's `Database` and `Configuration` appear in the API.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "InstarCLI",
            dependencies: [
                "Instar", "InstarSwiftData", "InstarSwiftDataCheck", "InstarSeeding", "InstarAdoption", "InstarTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The in-process chaos harness behind Scripts/chaos (not a product: nothing ships it).
        .executableTarget(
            name: "InstarChaos",
            dependencies: [
                "Instar",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Tests by layer: each test target sees only the modules of its layer (and their `package` symbols), so a
        // test of a pure layer cannot lean on the store or the CLI, and only InstarCLITests links the CLI. Each
        // runs alone (`swift test --filter InstarStoreTests`); `swift test` runs them all. Tests/Fixtures (SQL
        // schemas of hand-written databases, reported problems, the CLI's golden files) is in no target: tests
        // and Scripts/check-adopt read it by path.
        //
        // Support libraries, one per layer, each depending on that layer only: InstarTestSupport (the package
        // and corpus paths, inline models, archives) ← the model layers; InstarStoreTestSupport (store
        // fixtures, `instar` as a process, store digests) ← the store; InstarRuntimeTestSupport (a plan
        // whose stage runs the hooks under test) ← the runtime; InstarSwiftDataTestSupport (SwiftData
        // stores, the corpus's SwiftData sources) ← SwiftData's reader and the store.
        .target(
            name: "InstarTestSupport",
            dependencies: ["InstarModel", "InstarModelIO", "InstarMapping"],
            path: "Tests/InstarTestSupport"
        ),
        .target(
            name: "InstarStoreTestSupport",
            dependencies: [
                "InstarTestSupport", "InstarModel", "InstarModelIO", "InstarSQL", "InstarLayouts", "InstarStore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/InstarStoreTestSupport"
        ),
        .target(
            name: "InstarRuntimeTestSupport",
            dependencies: [
                "InstarTestSupport", "InstarStoreTestSupport", "InstarModel", "InstarModelIO", "InstarPlanner", "InstarStore",
                "InstarRuntime", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/InstarRuntimeTestSupport"
        ),
        .target(
            name: "InstarSwiftDataTestSupport",
            dependencies: [
                "InstarTestSupport", "InstarModel", "InstarModelIO", "InstarLayouts", "InstarStore", "InstarSwiftData",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/InstarSwiftDataTestSupport"
        ),
        // Models: reading model files, Xcode and compiled models, mapping models, diffs and inference, hashes.
        .testTarget(
            name: "InstarModelTests",
            dependencies: ["InstarTestSupport", "InstarModel", "InstarModelIO", "InstarInference", "InstarMapping"]
        ),
        // The planner: plan files, the version graph, chains, the cost model.
        .testTarget(
            name: "InstarPlannerTests",
            dependencies: [
                "InstarTestSupport", "InstarModel", "InstarModelIO", "InstarInference", "InstarPlanner", "InstarMapping",
                "InstarLayouts",
            ]
        ),
        // The layouts without a database: naming and storage maps.
        .testTarget(
            name: "InstarLayoutsTests",
            dependencies: ["InstarTestSupport", "InstarModel", "InstarSQL", "InstarLayouts"]
        ),
        // The step compiler without a database: programs, their SQL, fusion.
        .testTarget(
            name: "InstarCompilerTests",
            dependencies: [
                "InstarTestSupport", "InstarModel", "InstarSQL", "InstarInference", "InstarLayouts", "InstarCompiler",
            ]
        ),
        // The store through GRDB: reading schemas, executing compiled steps, the model cache, quoting in SQLite,
        // seeding and adoption (the modules on the store).
        .testTarget(
            name: "InstarStoreTests",
            dependencies: [
                "InstarTestSupport", "InstarStoreTestSupport", "InstarModel", "InstarModelIO", "InstarSQL", "InstarInference",
                "InstarMapping", "InstarLayouts", "InstarCompiler", "InstarStore", "InstarSeeding", "InstarAdoption",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The runtime: the migrator, journal, lease, hooks, dry runs, exactly-once runs (killed runs are `instar`
        // processes, started by path), slicing, export, the app's API through the umbrella; and what needs the
        // planner and SQLite together (its value converters evaluated, a Core Data plan on a real store).
        .testTarget(
            name: "InstarRuntimeTests",
            dependencies: [
                "InstarTestSupport", "InstarStoreTestSupport", "InstarRuntimeTestSupport", "Instar", "InstarModel",
                "InstarModelIO", "InstarSQL", "InstarInference", "InstarMapping", "InstarLayouts", "InstarCompiler",
                "InstarPlanner", "InstarStore", "InstarRuntime", "InstarSeeding", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // SwiftData: reading app sources, SwiftData's layout and cached model, its plan checks.
        .testTarget(
            name: "InstarSwiftDataTests",
            dependencies: [
                "InstarTestSupport", "InstarStoreTestSupport", "InstarSwiftDataTestSupport", "Instar", "InstarModel",
                "InstarModelIO", "InstarInference", "InstarLayouts", "InstarPlanner", "InstarStore", "InstarRuntime",
                "InstarSwiftData", "InstarSwiftDataCheck", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SwiftParser", package: "swift-syntax"), .product(name: "SwiftSyntax", package: "swift-syntax"),
            ]
        ),
        // Everything that runs `instar`: commands end to end, golden output, example plans and scenarios, the
        // migration tester and release checks, the runtime and SwiftData through the CLI.
        .testTarget(
            name: "InstarCLITests",
            dependencies: [
                "InstarTestSupport", "InstarStoreTestSupport", "InstarRuntimeTestSupport", "InstarSwiftDataTestSupport",
                "Instar", "InstarCLI", "InstarMapping", "InstarSwiftData", "InstarSwiftDataCheck", "InstarSeeding",
                "InstarAdoption", "InstarTesting",
            ]
        ),
    ]
)
