import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarSwiftDataTestSupport
import InstarStoreTestSupport
@testable import InstarCLI  // SwiftDataPlan and ErrorHints: the plan `migrate --swiftdata` runs, and its words

/// Pairs of real SwiftData stores (`../shared/corpus/swiftdata`): the store SwiftData wrote at schema N,
/// migrated by `instar migrate --swiftdata` with the app's sources at N+1, equals in schema, metadata and
/// entity numbering the store SwiftData itself wrote at N+1.
///
/// What may differ, and why: the order of columns (a column a step adds comes last, as ALTER TABLE
/// ADD COLUMN puts it; Core Data reads columns by name); `Z_UUID` (each store's own identity, kept by a migration);
/// `NSPersistenceFrameworkVersion` and `NSPersistenceMaximumFrameworkVersion` (the framework build that
/// last wrote the store: a migration keeps the source store's, the real N+1 store has its device's);
/// `Z_PRIMARYKEY.Z_MAX` (the highest key handed out: the stores hold different rows). `Z_MODELCACHE` is
/// compared as an object graph (``ModelCacheArchiveTests/graph(_:)``): Instar writes the next schema's model
/// there as SwiftData does, and it equals the real next store's cache but for the values the app computes at
/// launch (a UUID or date default).
@Suite(.needsCorpus) struct SwiftDataPairCorpusTests {
    static let root = corpusRoot.appendingPathComponent("swiftdata")

    /// One pair: the store at N, the sources at N+1 (with `--to` or `--classes` where needed), the store at N+1.
    struct Pair: CustomStringConvertible {
        let from: String
        let to: String
        let sources: [String]
        var arguments: [String] = []
        /// The attribute the next schema adds as required without a default: the store's rows cannot
        /// take it, so Core Data's inferred migration fails on them and Instar
        /// refuses before writing. The schema and metadata are then compared on the store emptied of rows.
        var refusedWithRows: String? = nil
        var description: String { "\(from) → \(to)" }
    }

    static let freezeRay = "TrinsicVentures__FreezeRay/FreezeRayTestApp"
    static let metaCocktails = "MatthewHunt84__MetaCocktailsSwiftData"
    static let metaCommits = ["@3292fc79", "@7d753343", "@18228b5c", "@f1fca611", "@f6051d07"]

    static func metaStore(_ commit: String) -> String {
        let folder = ["@3292fc79", "@7d753343", "@18228b5c"].contains(commit) ? "" : "Model/Database/"
        return "\(metaCocktails)/\(commit)/MetaCocktailsSwiftData/\(folder)default.store"
    }

    static func pairs() throws -> [Pair] {
        var pairs: [Pair] = []
        // Two copies of FreezeRay's fixtures (framework 1518 and 1448), each migrated within its folder.
        for fixtures in ["\(freezeRay)/FreezeRay/Fixtures", "\(freezeRay)/FreezeRayTestApp/FreezeRay/Fixtures"] {
            pairs.append(Pair(
                from: "\(fixtures)/1.0.0/App-1_0_0.sqlite", to: "\(fixtures)/2.0.0/App-2_0_0.sqlite",
                sources: ["\(freezeRay)/FreezeRayTestApp"], arguments: ["--to", "AppSchemaV2"]))
        }
        // MetaCocktails: unversioned; each commit's store to the next commit's schema. The app builds its
        // Schema at run time (`Schema(types)`), so the next store's entity names choose the classes.
        let facts = try SwiftDataCorpus.stores()
        // `var isCustomCocktail: Bool` (@7d753343) and `var favorite: Bool` (@18228b5c) have no default.
        let refused = ["@7d753343": "Cocktail.isCustomCocktail", "@18228b5c": "Cocktail.favorite"]
        for (from, to) in zip(metaCommits, metaCommits.dropFirst()) {
            let next = try #require(facts.first { $0.path == metaStore(to) })
            pairs.append(Pair(
                from: metaStore(from), to: metaStore(to),
                sources: ["Model", "Views"].map { "\(metaCocktails)/\(to)/MetaCocktailsSwiftData/\($0)" },
                arguments: ["--classes", next.hashes.keys.sorted().joined(separator: ",")], refusedWithRows: refused[to]))
        }
        return pairs
    }

    /// What a store is, for the comparison: tables with their columns, indexes, metadata, entity numbers.
    struct Shape {
        var tables: [String: [String]] = [:]
        var indexes: Set<String> = []
        var metadata: [String: Any] = [:]
        var entities: [String] = []
        var cacheRows = 0
    }

    static let differing: Set<String> = ["NSPersistenceFrameworkVersion", "NSPersistenceMaximumFrameworkVersion"]

    static func shape(_ path: String) throws -> Shape {
        let store = try SQLiteStore.open(at: path, readOnly: true)
        defer { try? store.close() }
        var shape = Shape()
        let schema = try store.schema()
        for table in schema.tables where !table.name.hasPrefix("_instar") {
            shape.tables[table.name] = table.columns.map { "\($0.name) \($0.declaredType)" }
        }
        shape.indexes = Set(schema.indexes.map {
            "\($0.isUnique ? "UNIQUE " : "")\($0.name) ON \($0.table) (\($0.elements.map(\.column).joined(separator: ", ")))"
        })
        try store.withDatabase { db in
            shape.metadata = try #require(try CoreDataMetadata.read(db)).dictionary
            shape.entities = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").map {
                "\($0["Z_ENT"] as Int64) \($0["Z_NAME"] as String) \($0["Z_SUPER"] as Int64)"
            }
            shape.cacheRows = try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_MODELCACHE") ?? 0
        }
        return shape
    }

    /// What the library throws for the plan `instar migrate` makes from `arguments` (its `--swiftdata` options).
    static func refusal(_ arguments: [String], store: String) throws -> StoreError {
        let command = try #require(try InstarCommand.parseAsRoot(arguments) as? MigrateCommand)
        var checked = try SwiftDataPlan.make(
            sources: command.swiftdata, planName: command.migrationPlan, hooksFile: command.hooks, store: store,
            classes: command.classes.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } },
            earlier: command.fromSwiftdata)
        if !checked.isInferred { try checked.matchStore(store) }
        return try #require(#expect(throws: StoreError.self) { try Migrator(plan: checked.plan).migrate(storeAt: store) })
    }

    /// Empties the model's tables (entities and join tables), keeping Core Data's own and the history.
    static func removeRows(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%'")
            for table in tables where !CoreDataLayout().isBookkeepingTable(table) {
                try db.execute(sql: "DELETE FROM \"\(table)\"")
            }
        }
        try queue.close()
    }

    @Test func everyRealStoreMigratedToTheNextSchemaEqualsTheRealNextStore() throws {
        let pairs = try Self.pairs()
        #expect(pairs.count == 6)
        var equal: [String] = []
        for pair in pairs {
            let copy = try SwiftDataCorpus.copyOfStore(pair.from)
            defer { try? FileManager.default.removeItem(at: copy.directory) }
            var sources = pair.sources.map { Self.root.appendingPathComponent($0).path }
            if pair.from.hasPrefix(Self.metaCocktails) {
                // As SwiftDataCorpusTests: the corpus lacks the file declaring MeasurementUnit (raw type String,
                // read off the stores' `unit` element); one declaration stands in for it.
                let supplied = copy.directory.appendingPathComponent("MeasurementUnit.swift")
                try "enum MeasurementUnit: String, Codable { case fluidOunces }\n".write(to: supplied, atomically: true, encoding: .utf8)
                sources.append(supplied.path)
            }
            let arguments = ["migrate", "--store", copy.path] + sources.flatMap { ["--swiftdata", $0] } + pair.arguments + ["--progress", "none"]
            var result = try runInstar(arguments)
            if let attribute = pair.refusedWithRows {
                #expect(result.status == 1, "\(pair): \(result.stdout)")
                // The library's refusal of the same plan (a required '\(attribute)' added, rows present), as the CLI words it.
                let refusal = try Self.refusal(arguments, store: copy.path)
                #expect(refusal.kind == .dataCondition && (refusal.violations ?? 0) > 0, "\(pair) \(attribute): \(refusal)")
                #expect(result.stderr.components(separatedBy: "instar: ").last == ErrorHints.text(refusal) + "\n", "\(pair): \(result.stderr)")
                try Self.removeRows(copy.path)
                result = try runInstar(arguments)
            }
            #expect(result.status == 0, "\(pair): \(result.stdout)\n\(result.stderr)")
            guard result.status == 0 else { continue }
            let migrated = try Self.shape(copy.path)
            let real = try Self.shape(Self.root.appendingPathComponent(pair.to).path)
            #expect(migrated.tables.keys.sorted() == real.tables.keys.sorted(), "\(pair)")
            // Columns by name and declared type. Their order may differ: a column a step adds is appended
            // (ALTER TABLE ADD COLUMN), where a store created at N+1 has it in Core Data's column order;
            // Core Data addresses columns by name, never by position.
            var reordered: [String] = []
            for (table, columns) in real.tables.sorted(by: { $0.key < $1.key }) {
                #expect(migrated.tables[table].map { Set($0) } == Set(columns), "\(pair) \(table)")
                if let mine = migrated.tables[table], mine != columns, Set(mine) == Set(columns) { reordered.append(table) }
            }
            #expect(migrated.indexes == real.indexes, "\(pair): \(migrated.indexes.symmetricDifference(real.indexes).sorted())")
            var compared: [String] = []
            for key in Set(migrated.metadata.keys).union(real.metadata.keys).sorted() where !Self.differing.contains(key) {
                let same = SwiftDataStores.canonical(migrated.metadata[key]) == SwiftDataStores.canonical(real.metadata[key])
                #expect(same, "\(pair) \(key): \(migrated.metadata[key] ?? "none") vs \(real.metadata[key] ?? "none")")
                if same { compared.append(key) }
            }
            #expect(migrated.entities == real.entities, "\(pair)")
            // The store's own model, as SwiftData keeps it: written after the migration (kept when there was
            // nothing to migrate: @f1fca611 → @f6051d07, stores of one schema).
            #expect(migrated.cacheRows == 1 && real.cacheRows == 1, "\(pair): one Z_MODELCACHE row each")
            let cacheGraphs = try [copy.path, Self.root.appendingPathComponent(pair.to).path].map { path in
                let opened = try SQLiteStore.open(at: path, readOnly: true)
                defer { try? opened.close() }
                return try ModelCacheGraph.graph(try opened.cachedModel().archive)
            }
            #expect(cacheGraphs[0] == cacheGraphs[1], "\(pair): \(ModelCacheGraph.firstDifference(cacheGraphs[0], cacheGraphs[1]))")
            if migrated.tables.mapValues(Set.init) == real.tables.mapValues(Set.init) && migrated.indexes == real.indexes
                && cacheGraphs[0] == cacheGraphs[1]
                && migrated.entities == real.entities
                && compared.count == Set(real.metadata.keys).subtracting(Self.differing).count
            {
                equal.append(
                    "\(pair): \(real.tables.count) tables, \(real.indexes.count) indexes, metadata keys \(compared.count) equal, Z_MODELCACHE equal as a graph"
                        + (reordered.isEmpty ? "" : "; added columns last in \(reordered.joined(separator: ", "))"))
            }
        }
        print("SwiftData pairs migrated and equal to the real next store (\(equal.count)/\(pairs.count)):\n  " + equal.joined(separator: "\n  "))
        #expect(equal.count == pairs.count)
    }
}

/// What an app bundles to migrate at launch without swift-syntax: each schema read from the corpus's
/// sources, written as an Instar YAML model and read back, keeps its entity hashes and version
/// identifiers, so the migrator writes the same metadata from the files as from the sources.
@Suite(.needsCorpus) struct SwiftDataModelFilesCorpusTests {
    @Test func everyCorpusSchemaSurvivesModelYAML() throws {
        var kept: [String] = []
        let stores = try SwiftDataCorpus.stores()
        for store in stores {
            let model = try SwiftDataCorpus.schema(for: store).model
            let yaml = ModelFileWriter.yaml(model)
            let read = try ModelFileReader.parse(yaml, file: "\(model.name).yaml")
            #expect(VersionHashes(model: read) == VersionHashes(model: model), "\(store.path)")
            #expect(read.versionIdentifiers == model.versionIdentifiers, "\(store.path)")
            let layout = CoreDataLayout()
            #expect(try layout.storageMap(for: read).schema == layout.storageMap(for: model).schema, "\(store.path)")
            if VersionHashes(model: read) == VersionHashes(model: model) { kept.append(store.path) }
        }
        print("SwiftData schemas whose hashes survive model YAML: \(kept.count)/\(stores.count)")
        #expect(kept.count == stores.count)
    }

    /// FreezeRay's 1.0.0 store migrated as an app would at launch: `import Instar` alone, the plan's
    /// models from YAML files, no sources. Its metadata equals the real 2.0.0 store's.
    @Test func anAppMigratesARealStoreFromModelFiles() throws {
        let stores = try SwiftDataCorpus.stores()
        let fixtures = "TrinsicVentures__FreezeRay/FreezeRayTestApp/FreezeRay/Fixtures"
        let v1 = try #require(stores.first { $0.path == "\(fixtures)/1.0.0/App-1_0_0.sqlite" })
        let v2 = try #require(stores.first { $0.path == "\(fixtures)/2.0.0/App-2_0_0.sqlite" })
        let versions = try [v1, v2].map { store in
            let model = try SwiftDataCorpus.schema(for: store).model
            return try ModelFileReader.parse(ModelFileWriter.yaml(model), file: "\(model.name).yaml")
        }
        let copy = try SwiftDataCorpus.copyOfStore(v1.path)
        defer { try? FileManager.default.removeItem(at: copy.directory) }
        let plan = Plan(name: "AppMigrations", file: "plan.yaml", layout: "coredata", versions: versions, pinned: versions.map(\.name))
        _ = try Migrator(plan: plan).migrate(storeAt: copy.path)
        let migrated = try SwiftDataPairCorpusTests.shape(copy.path)
        let real = try SwiftDataPairCorpusTests.shape(SwiftDataPairCorpusTests.root.appendingPathComponent(v2.path).path)
        for key in Set(real.metadata.keys).union(migrated.metadata.keys).subtracting(SwiftDataPairCorpusTests.differing) {
            #expect(SwiftDataStores.canonical(migrated.metadata[key]) == SwiftDataStores.canonical(real.metadata[key]), "\(key)")
        }
        #expect(migrated.tables.mapValues(Set.init) == real.tables.mapValues(Set.init))
    }
}
