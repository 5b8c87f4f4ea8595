import Foundation
import GRDB
import InstarMapping
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore
import Testing
@_spi(Layouts) import InstarLayouts
import InstarCompiler

/// Mapping steps run: Core Data's semantics (instances per entity mapping, filters, one source feeding
/// two destinations, relationships through the instance map, removed entities) in each layout, hooks
/// required before anything is written, failures rolling the whole step back, and resume.
@Suite struct MappingStepTests {
    static let layouts: [any StoreLayout] = [InstarLayout(), CoreDataLayout(), PlainSQLLayout()]
    static let layoutNames = ["instar", "coredata", "sql"]

    static func layout(_ name: String) -> any StoreLayout { Layouts.named(name)! }

    @Test(arguments: layoutNames) func runsEntityMappingsWithCoreDataSemantics(layoutName: String) throws {
        let f = try MappingFixture(layout: Self.layout(layoutName))
        defer { f.remove() }
        try f.fill()
        let migrator = Migrator(plan: try f.plan())
        #expect(try migrator.migrate(storeAt: f.path) == .finished(steps: 1))

        // Expressions: a copy, a to-one key path through a LEFT JOIN, arithmetic. The filter drops Atlantis.
        #expect(try f.values("Country", "name") == [1: "France".databaseValue, 3: "Japan".databaseValue, 4: "Nowhere".databaseValue])
        #expect(try f.values("Country", "continentName") == [1: "Europe".databaseValue, 3: "Asia".databaseValue, 4: .null])
        #expect(try f.values("Country", "minutes") == [1: 5.databaseValue, 3: .null, 4: 1.databaseValue])
        #expect(try f.values("Note", "minutes") == [1: 120.databaseValue, 2: 180.databaseValue, 3: .null])
        // One source entity feeds two destinations; the attachment keeps its note's key (one feeding mapping).
        #expect(try f.values("Attachment", "image") == [1: Data([1, 2]).databaseValue, 3: Data([3]).databaseValue])
        // To-one both ways through the instance map, and the many-to-many from either side.
        #expect(try f.values("Attachment", "note") == [1: 1.databaseValue, 3: 3.databaseValue])
        #expect(try f.values("Note", "attachment") == [1: 1.databaseValue, 2: .null, 3: 3.databaseValue])
        #expect(try f.links("Note", "tags") == [[1, 1], [1, 2], [3, 2]])
        // The removed entity's table is gone, and nothing of the step is left behind.
        let tables = try f.tables()
        #expect(!tables.contains { $0.hasPrefix("_instar_source_") })
        let continent = try f.layout.storageMap(for: f.versions[0]).table(of: "Continent")!
        #expect(!tables.contains(continent))
        let store = try SQLiteStore.open(at: f.path, layout: f.layout, readOnly: true)
        defer { try? store.close() }
        #expect(try store.detectVersion(among: f.versions).version?.name == "V2")
    }

    @Test func coreDataBookkeepingFollowsTheDestination() throws {
        let f = try MappingFixture(layout: CoreDataLayout())
        defer { f.remove() }
        try f.fill()
        try f.execute("UPDATE ZNOTE SET Z_OPT = 4 WHERE Z_PK = 1")
        try Migrator(plan: try f.plan()).migrate(storeAt: f.path)
        let numbers = try f.read { db in
            try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map {
                "\($0[0] as Int)|\($0[1] as String)|\($0[2] as Int)"
            }
        }
        #expect(numbers == ["1|Attachment|3", "2|Country|4", "3|Note|3", "4|Tag|2"])
        #expect(try f.read { db in try Int.fetchAll(db, sql: "SELECT DISTINCT Z_ENT FROM ZNOTE") } == [3])
        #expect(try f.read { db in try Int.fetchOne(db, sql: "SELECT Z_OPT FROM ZNOTE WHERE Z_PK = 1") } == 4)
    }

    /// A destination table fed by two entity mappings gets new keys after its highest one.
    @Test(arguments: layoutNames) func twoMappingsIntoOneTableAllocateKeys(layoutName: String) throws {
        let f = try MappingFixture(layout: Self.layout(layoutName))
        defer { f.remove() }
        try f.fill()
        var mapping = try MappingFixture.mapping()
        // Tags also become notes: Note is now fed by NoteToNote and TagToNote.
        mapping.entityMappings.append(
            EntityMapping(
                name: "TagToNote", kind: .undefined, sourceEntity: "Tag", destinationEntity: "Note",
                attributeMappings: [
                    PropertyMapping(
                        name: "title", valueExpression: try ExpressionParser.parseExpression("$source.label"), origin: .written,
                        location: SourceLocation(file: "m"))
                ], mappingNumber: 6, location: SourceLocation(file: "m")))
        try Migrator(plan: try f.plan(mapping: mapping)).migrate(storeAt: f.path)
        let titles = try f.values("Note", "title")
        #expect(titles.count == 5)
        #expect(Set(titles.values) == Set(["a", "b", "c", "x", "y"].map(\.databaseValue)))
        #expect(Set(titles.keys) == [1, 2, 3, 4, 5])
    }

    // MARK: Hooks

    /// An expression SQL cannot compute needs a hook; without one the run is refused before the store
    /// is touched, naming the hook, its entity mapping and property.
    @Test(arguments: layoutNames) func missingHookIsRefusedBeforeAnythingIsWritten(layoutName: String) throws {
        let f = try MappingFixture(layout: Self.layout(layoutName))
        defer { f.remove() }
        try f.fill()
        let before = try f.bytes()
        let mapping = try MappingFixture.mapping(extra: ["title": "FUNCTION($entityPolicy, \"shout:\", $source.title)"])
        let error = #expect(throws: HookError.self) { try Migrator(plan: try f.plan(mapping: mapping)).migrate(storeAt: f.path) }
        #expect(error?.kind == .notDefined)
        #expect(error?.missing.map(\.hook) == ["M.NoteToNote.title"])
        // Which hook, where in the mapping model, and why it is missing, as values; that nothing was
        // changed is the file's bytes below.
        guard case .mapping(let requirement, let gap) = error?.missing.first?.reason else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(requirement.mappingModel == "M" && requirement.entityMapping == "NoteToNote" && requirement.property == "title")
        #expect(gap == .notProvided)
        #expect(try f.bytes() == before)
        #expect(!FileManager.default.fileExists(atPath: f.path + "-journal"))
    }

    /// A declared SQL hook runs inside the step at the point the mapping computes the property.
    @Test(arguments: layoutNames) func declaredSQLHookComputesTheProperty(layoutName: String) throws {
        var f = try MappingFixture(layout: Self.layout(layoutName))
        defer { f.remove() }
        try f.fill()
        let map = try f.layout.storageMap(for: f.versions[1])
        let oldMap = try f.layout.storageMap(for: f.versions[0])
        let table = SQLIdentifier.quoted(map.table(of: "Note")!)
        let pk = SQLIdentifier.quoted(map.entityTables[map.table(of: "Note")!]!.primaryKey)
        let title = SQLIdentifier.quoted(map.entities["Note"]!.columns["title"]!)
        let source = SQLIdentifier.quoted(MappingProgram.asideName(oldMap.table(of: "Note")!))
        let oldPK = SQLIdentifier.quoted(oldMap.entityTables[oldMap.table(of: "Note")!]!.primaryKey)
        let oldTitle = SQLIdentifier.quoted(oldMap.entities["Note"]!.columns["title"]!)
        f.hooks["M.NoteToNote.title"] = .sql([
            """
            UPDATE \(table) SET \(title) = (SELECT upper(s.\(oldTitle)) || '!' FROM temp._instar_keymap AS km
              JOIN \(source) AS s ON s.\(oldPK) = km.source_pk WHERE km.mapping = 'NoteToNote' AND km.destination_pk = \(table).\(pk))
            """
        ])
        let mapping = try MappingFixture.mapping(extra: ["title": "FUNCTION($entityPolicy, \"shout:\", $source.title)"])
        try Migrator(plan: try f.plan(mapping: mapping)).migrate(storeAt: f.path)
        #expect(try f.values("Note", "title") == [1: "A!".databaseValue, 2: "B!".databaseValue, 3: "C!".databaseValue])
    }

    /// A Swift hook registered under the hook's name runs in the step's transaction too.
    @Test func registeredSwiftHookRunsInTheTransaction() throws {
        let f = try MappingFixture(layout: InstarLayout())
        defer { f.remove() }
        try f.fill()
        let mapping = try MappingFixture.mapping(extra: ["title": "FUNCTION($entityPolicy, \"shout:\", $source.title)"])
        let migrator = Migrator(plan: try f.plan(mapping: mapping))
        var seen: [String] = []
        migrator.register(mappingHook: "M.NoteToNote.title") { context in
            seen.append("\(context.hook.entityMapping).\(context.hook.property ?? "")@\(context.hook.point.rawValue)")
            try context.db.execute(sql: "UPDATE \"Note\" SET \"title\" = 'swift'")
        }
        try migrator.migrate(storeAt: f.path)
        #expect(seen == ["NoteToNote.title@attribute"])
        #expect(Set(try f.values("Note", "title").values) == ["swift".databaseValue])
    }

    /// An async mapping hook awaits between its database calls, which run inside the step's
    /// transaction: a failure after a write rolls the write back with the step; a success commits it.
    @Test func asyncMappingHookAwaitsAndWritesInTheTransaction() async throws {
        let f = try MappingFixture(layout: InstarLayout())
        defer { f.remove() }
        try f.fill()
        let mapping = try MappingFixture.mapping(extra: ["title": "FUNCTION($entityPolicy, \"shout:\", $source.title)"])
        let failing = Migrator(plan: try f.plan(mapping: mapping))
        failing.register(mappingHook: "M.NoteToNote.title") { (context: AsyncMappingHookContext) in
            try await context.withDatabase { db in try db.execute(sql: "UPDATE \"Note\" SET \"title\" = 'half'") }
            try await Task.sleep(for: .milliseconds(5))
            struct Offline: Error {}
            throw Offline()
        }
        #expect(throws: HookError.self) { try failing.migrate(storeAt: f.path) }
        #expect(try f.values("Note", "title").values.contains("half".databaseValue) == false)

        let migrator = Migrator(plan: try f.plan(mapping: mapping))
        migrator.register(mappingHook: "M.NoteToNote.title") { (context: AsyncMappingHookContext) in
            let count = try await context.withDatabase { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \"Note\"") ?? 0 }
            try await Task.sleep(for: .milliseconds(5))  // e.g. asking a server
            try await context.withDatabase { db in
                try db.execute(sql: "UPDATE \"Note\" SET \"title\" = ?", arguments: ["of \(count)"])
            }
        }
        try await migrator.migrate(store: URL(fileURLWithPath: f.path))
        #expect(Set(try f.values("Note", "title").values) == ["of 3".databaseValue])
    }

    /// A SQL hook that fails rolls the whole step back: the store is still at V1 with its rows.
    @Test(arguments: layoutNames) func failingHookRollsBackTheWholeStep(layoutName: String) throws {
        var f = try MappingFixture(layout: Self.layout(layoutName))
        defer { f.remove() }
        try f.fill()
        f.hooks["M.NoteToNote.title"] = .sql(["UPDATE \"no such table\" SET x = 1"])
        let mapping = try MappingFixture.mapping(extra: ["title": "FUNCTION($entityPolicy, \"shout:\", $source.title)"])
        let error = #expect(throws: HookError.self) { try Migrator(plan: try f.plan(mapping: mapping)).migrate(storeAt: f.path) }
        #expect(error?.hook == "M.NoteToNote.title")
        // SQLite's failure is a store error about this store's file.
        #expect((error?.underlying as? StoreError)?.path == f.path)
        let store = try SQLiteStore.open(at: f.path, layout: f.layout, readOnly: true)
        defer { try? store.close() }
        #expect(try store.detectVersion(among: f.versions).version?.name == "V1")
        #expect(try f.values("Note", "hours", at: 0) == [1: 2.databaseValue, 2: 3.databaseValue, 3: .null])
        #expect(try f.values("Country", "name", at: 0).count == 4)
        #expect(!(try f.tables()).contains { $0.hasPrefix("_instar_source_") })
    }

    // MARK: Runtime

    /// V1 → V2 (mapping) → V3 (lightweight, with a failing Swift hook after it): the mapping step
    /// commits whole, the run stops at the hook, and the next run resumes after the mapping step
    /// without running it again.
    @Test(arguments: layoutNames) func resumesAfterAFailureBetweenSteps(layoutName: String) throws {
        var f = try MappingFixture(layout: Self.layout(layoutName), threeVersions: true)
        defer { f.remove() }
        try f.fill()
        f.stages = [CustomStage(from: "V2", to: "V3", before: ["flaky"])]
        f.hooks["flaky"] = .swift("flaky")
        let migrator = Migrator(plan: try f.plan())
        migrator.fuse = true
        var calls = 0
        migrator.register(hook: "flaky") { _ in
            calls += 1
            if calls == 1 { throw MappingFixture.Unexpected(what: "first attempt fails") }
        }
        var events: [String] = []
        #expect(throws: HookError.self) {
            try migrator.migrate(storeAt: f.path) { event in
                if case .stepStarted(_, _, let from, let to, let kind, _) = event { events.append("\(from)→\(to) \(kind)") }
            }
        }
        #expect(events == ["V1→V2 mapping", "V2→V3 custom"])
        #expect(try f.values("Note", "minutes") == [1: 120.databaseValue, 2: 180.databaseValue, 3: .null])
        #expect(try migrator.migrate(storeAt: f.path) == .finished(steps: 2))
        #expect(try f.values("Note", "minutes", at: 2) == [1: 120.databaseValue, 2: 180.databaseValue, 3: .null])
        #expect(calls == 2)
        let store = try SQLiteStore.open(at: f.path, layout: f.layout, readOnly: true)
        defer { try? store.close() }
        #expect(try store.detectVersion(among: f.versions).version?.name == "V3")
    }

    /// The dry run names the mapping model, shows its SQL per entity mapping and the hooks it needs,
    /// and keeps the step a transaction of its own.
    @Test func dryRunShowsTheMappingStep() throws {
        let f = try MappingFixture(layout: CoreDataLayout(), threeVersions: true)
        defer { f.remove() }
        let mapping = try MappingFixture.mapping(extra: ["title": "FUNCTION($entityPolicy, \"shout:\", $source.title)"])
        let report = try DryRun.report(plan: try f.plan(mapping: mapping), storePath: f.path)
        let step = try #require(report.steps.first)
        #expect(step.kind == .mapping && step.mappingModel == "M")
        #expect(step.sql.contains { $0.contains("-- entity mapping NoteToAttachment") })
        #expect(step.sql.contains { $0.contains("INSERT INTO \"ZATTACHMENT\"") })
        #expect(step.hooks.map(\.name) == ["M.NoteToNote.title"])
        #expect(report.segments.isEmpty, "a mapping step is never fused with the step after it")
    }
}
