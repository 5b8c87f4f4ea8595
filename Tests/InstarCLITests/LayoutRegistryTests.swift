import Foundation
@_spi(Layouts) import Instar
import Testing
import InstarTestSupport
import InstarRuntimeTestSupport
@testable import InstarCLI

/// A third-party layout as an app would write one, against the one protocol the registry hands out:
/// the plain SQL layout's tables, plus a bookkeeping table of its own that says "this store is mine" and
/// records the version.
struct LedgerLayout: StoreLayout {
    static let versionTable = "ledger_version"
    let name: String
    private let tables = PlainSQLLayout()

    func storageMap(for model: Model) throws(LayoutError) -> StorageMap { try tables.storageMap(for: model) }
    func isBookkeepingTable(_ name: String) -> Bool { name == Self.versionTable || tables.isBookkeepingTable(name) }
    func convert(_ value: ColumnValueExpression, from: Attribute, to: Attribute) -> ColumnValueExpression {
        tables.convert(value, from: from, to: to)
    }
    func storedDefault(of attribute: Attribute) -> SQLValue? { tables.storedDefault(of: attribute) }
    var valueEncoding: ValueEncoding { tables.valueEncoding }
    var toleratesExtraIndexes: Bool { false }

    func recognizes(_ db: Database) throws -> Bool { try db.tableExists(Self.versionTable) }
    func createBookkeeping(_ db: Database, model: Model) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(Self.versionTable) (version TEXT NOT NULL)")
    }
    func readMetadata(_ db: Database) throws -> StoreMetadata? {
        guard try recognizes(db), let version = try String.fetchOne(db, sql: "SELECT version FROM \(Self.versionTable)") else {
            return nil
        }
        return StoreMetadata(layout: name, versionName: version, entityHashes: [:], versionChecksum: nil)
    }
    func writeMetadata(_ db: Database, model: Model) throws {
        try createBookkeeping(db, model: model)
        try db.execute(sql: "DELETE FROM \(Self.versionTable)")
        try db.execute(sql: "INSERT INTO \(Self.versionTable) (version) VALUES (?)", arguments: [model.name])
    }
}

/// Each test of a suite with this trait runs in a layout registry of its own
/// (`LayoutRegistry.withScope`): what it registers is seen by it alone and ends with it, so tests running
/// beside it (which list the layout names or detect stores' layouts) never see it.
struct LayoutRegistryOfItsOwn: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? { testCase == nil ? nil : self }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await LayoutRegistry.withScope { try await function() }
    }
}

extension Trait where Self == LayoutRegistryOfItsOwn {
    /// Each test registers layouts in a registry of its own (``LayoutRegistryOfItsOwn``).
    static var layoutRegistryOfItsOwn: Self { Self() }
}

/// The layout registry is open (a plug-in layout registers its name), the one list of names, and strict
/// (a name that is neither built in nor registered is an error at every entry point, never the Instar
/// layout in disguise). Every test registers in a registry of its own, so all use the one name `ledger`
/// and see exactly the names they registered.
@Suite(.layoutRegistryOfItsOwn) struct LayoutRegistryTests {
    static let versions = [
        "name: V1\nentities: {Item: {attributes: {n: int32?}}}\n",
        "name: V2\nentities: {Item: {attributes: {n: int32?, note: string?}}}\n",
    ]

    static let builtIn = ["instar", "coredata", "sql"]

    /// A registration inside a test is seen in that test (and the tasks it starts, and a migration's own
    /// thread), not outside it; one in a nested scope ends with that scope.
    @Test func aRegistrationIsSeenOnlyInItsScope() async throws {
        #expect(LayoutRegistry.names == Self.builtIn, "nothing registered here yet")
        LayoutRegistry.register("ledger") { LedgerLayout(name: "ledger") }
        #expect(LayoutRegistry.names == Self.builtIn + ["ledger"])
        #expect(await Task { LayoutRegistry.isKnown("ledger") }.value, "a task this test starts sees it")
        let outside = await Task.detached { LayoutRegistry.registeredNames }.value
        #expect(outside == [], "no test's registration is seen outside it (the process-wide registry has none)")
        LayoutRegistry.withScope {
            LayoutRegistry.register("journal") { LedgerLayout(name: "journal") }
            LayoutRegistry.unregister("ledger")
            #expect(LayoutRegistry.registeredNames == ["journal"])
        }
        #expect(LayoutRegistry.registeredNames == ["ledger"], "the nested scope's changes end with it")
    }

    @Test func builtInNamesResolveAndMisspellingsAreErrors() throws {
        #expect(LayoutRegistry.named("coredata:637") is CoreDataLayout)
        #expect(LayoutRegistry.isKnown("sql"))
        #expect(!LayoutRegistry.isKnown("coredta"))
        #expect(LayoutRegistry.named("coredta") == nil)
        let error = #expect(throws: StoreError.self) { try LayoutRegistry.resolve("coredta", path: "store.sqlite") }
        #expect(error?.kind == .unknownLayout)
        #expect(error?.path == "store.sqlite")
        let unknown = try #require(error?.underlying as? UnknownLayoutError)
        #expect(unknown.name == "coredta")
        #expect(unknown.suggestion == "coredata")
        #expect(Array(unknown.known.prefix(3)) == ["instar", "coredata", "sql"])
    }

    /// One list: the built-in layouts' own names are the registry's first names, and `Layouts.all`
    /// holds exactly one layout per name, in the same order.
    @Test func oneListOfNames() {
        let builtIn = [InstarLayout().name, CoreDataLayout().name, PlainSQLLayout().name]
        #expect(Array(LayoutRegistry.names.prefix(3)) == builtIn)
        #expect(LayoutName.builtIn.map(\.description) == builtIn)
        LayoutRegistry.register("ledger") { LedgerLayout(name: "ledger") }
        #expect(LayoutRegistry.names == builtIn + ["ledger"])
        #expect(LayoutRegistry.all.map(\.name) == builtIn + ["ledger"])
    }

    @Test func aBuiltInNameCannotBeTaken() {
        #expect(!LayoutRegistry.register("coredata") { PlainSQLLayout() })
        #expect(!LayoutRegistry.register("coredata:637") { PlainSQLLayout() })
        #expect(!LayoutRegistry.register("") { PlainSQLLayout() })
        #expect(LayoutRegistry.named("coredata") is CoreDataLayout)
        #expect(LayoutRegistry.names == Self.builtIn)
    }

    @Test func aRegisteredPlugInResolvesUntilUnregistered() throws {
        let name = "ledger"
        #expect(LayoutRegistry.register(name) { LedgerLayout(name: name) })
        #expect(LayoutRegistry.isKnown(name))
        #expect(try LayoutRegistry.resolve(name, path: "s").name == name)
        LayoutRegistry.unregister(name)
        #expect(!LayoutRegistry.isKnown(name))
        let error = #expect(throws: StoreError.self) { try LayoutRegistry.resolve(name, path: "s") }
        #expect((error?.underlying as? UnknownLayoutError)?.known.contains(name) == false)
    }

    /// A store written by a registered third-party layout is detected as that layout's when it is opened
    /// without one (its own bookkeeping table says so); once the layout is unregistered nothing claims it.
    @Test func aRegisteredThirdPartyLayoutIsDetected() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = "ledger"
        LayoutRegistry.register(name) { LedgerLayout(name: name) }
        let v1 = try model(Self.versions[0])
        let path = dir.appendingPathComponent("ledger.sqlite").path
        try SQLiteStore.create(at: path, model: v1, layout: LedgerLayout(name: name)).close()

        let opened = try SQLiteStore.open(at: path, readOnly: true)
        #expect(opened.layout.name == name)
        #expect(try opened.withDatabase { db in try opened.layout.readMetadata(db) }?.versionName == "V1")
        try opened.close()

        LayoutRegistry.unregister(name)
        let unclaimed = try SQLiteStore.open(at: path, readOnly: true)
        #expect(unclaimed.layout.name == "instar", "no layout recognises it: the documented default")
        try unclaimed.close()
    }

    /// A plan naming a registered layout migrates a store of it through the one protocol: the plug-in's
    /// tables are changed and its bookkeeping records the new version. The async API, which migrates on
    /// a thread of its own, sees the layouts its caller sees.
    @Test(arguments: [false, true]) func aPlanNamingARegisteredLayoutMigratesThroughIt(async: Bool) async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = "ledger"
        LayoutRegistry.register(name) { LedgerLayout(name: name) }
        let planPath = try Self.writePlan(layout: name, in: dir)
        let plan = try PlanFileReader.read(path: planPath)
        let store = dir.appendingPathComponent("ledger.sqlite").path
        try SQLiteStore.create(at: store, model: plan.versions[0], layout: LedgerLayout(name: name)).close()

        if async {
            _ = try await Migrator(plan: plan).migrate(store: URL(fileURLWithPath: store))
        } else {
            _ = try Migrator(plan: plan).migrate(storeAt: store)
        }
        let opened = try SQLiteStore.open(at: store, readOnly: true)
        defer { try? opened.close() }
        #expect(opened.layout.name == name)
        #expect(try opened.withDatabase { db in try String.fetchOne(db, sql: "SELECT version FROM ledger_version") } == "V2")
        #expect(try opened.withDatabase { db in try db.columns(in: "Item").map(\.name) }.contains("note"))
    }

    static func writePlan(layout: String, in dir: URL) throws -> String {
        for (index, text) in versions.enumerated() {
            try text.write(to: dir.appendingPathComponent("v\(index + 1).yaml"), atomically: true, encoding: .utf8)
        }
        let planPath = dir.appendingPathComponent("plan.yaml").path
        try "name: items\nlayout: \(layout)\nversions: [v1.yaml, v2.yaml]\n".write(toFile: planPath, atomically: true, encoding: .utf8)
        return planPath
    }

    /// A plan file with a misspelt layout: the API (migrator, pending work, dry run, export) refuses it
    /// at the file's `layout` key with the known names, and so does every command that reads the plan;
    /// the store is untouched. The same file is accepted once the name is registered.
    @Test func aMisspeltLayoutInAPlanFileIsRefusedAtEveryEntryPoint() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = "ledger"
        let planPath = try Self.writePlan(layout: name, in: dir)
        let plan = try PlanFileReader.read(path: planPath)
        let store = dir.appendingPathComponent("items.sqlite").path
        try SQLiteStore.create(at: store, model: plan.versions[0]).close()
        let before = try Data(contentsOf: URL(fileURLWithPath: store))

        func expectUnknown(_ error: StoreError?, _ entry: String) {
            #expect(error?.kind == .unknownLayout, "\(entry)")
            let unknown = error?.underlying as? UnknownLayoutError
            #expect(unknown?.name == name, "\(entry)")
            #expect(unknown?.location?.file == planPath && unknown?.location?.line == 2, "\(entry): at the plan's layout key")
            #expect(unknown?.known == Self.builtIn, "\(entry)")
        }
        expectUnknown(#expect(throws: StoreError.self) { try Migrator(plan: plan).layout }, "Migrator.layout")
        expectUnknown(#expect(throws: StoreError.self) { try Migrator(plan: plan).migrate(storeAt: store) }, "migrate")
        expectUnknown(#expect(throws: StoreError.self) { try Migrator(plan: plan).pendingWork(storeAt: store) }, "pendingWork")
        expectUnknown(#expect(throws: StoreError.self) { try DryRun.report(plan: plan, storePath: store) }, "DryRun")
        let export = #expect(throws: PlanExportError.self) { try PlanExport.write(plan, to: dir.appendingPathComponent("export")) }
        if case .unknownLayout(let unknown)? = export?.kind { #expect(unknown.name == name) } else { Issue.record("export: \(String(describing: export))") }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("export").path))

        for arguments in [["plan", planPath], ["graph", planPath], ["lint", planPath], ["plan", planPath, "--store", store]] {
            // The library's refusal, which points at the layout key (checked above), as it is.
            let refusal = "instar: \(try #require(plan.unknownLayout))\n"
            let result = try runInstar(arguments)
            #expect(result.status == 65, "\(arguments): \(result.stderr)")
            guard arguments[0] != "lint" else { continue }  // lint reports it as a finding: below
            #expect(result.stderr == refusal && result.stdout.isEmpty, "\(arguments): \(result.stdout)\(result.stderr)")
        }
        let lint = try runInstar(["lint", planPath, "--format", "json"])
        let findings = try lint.decoded(LintReport.self).findings
        #expect(lint.status == 65 && findings.map(\.file) == [planPath] && findings.map(\.line) == [2], "at the layout key: \(lint.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)

        LayoutRegistry.register(name) { LedgerLayout(name: name) }
        #expect(try Migrator(plan: plan).layout.name == name)
    }

    /// A plan built in code with a misspelt layout: a dry run and a run refuse it before touching the
    /// store (before, both silently used the Instar layout).
    @Test func aRunAndADryRunRefuseAnUnknownLayout() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (plan, storePath) = try pinnedItemsPlan(Self.versions, in: dir, insert: "INSERT INTO \"Item\" (\"n\") VALUES (1)")
        var misspelt = plan
        misspelt.layout = "instr"
        let before = try Data(contentsOf: URL(fileURLWithPath: storePath))

        let dryRun = #expect(throws: StoreError.self) { try DryRun.report(plan: misspelt, storePath: storePath) }
        #expect(dryRun?.kind == .unknownLayout)
        #expect((dryRun?.underlying as? UnknownLayoutError)?.suggestion == "instar")
        let pending = #expect(throws: StoreError.self) { try Migrator(plan: misspelt).pendingWork(storeAt: storePath) }
        #expect(pending?.kind == .unknownLayout)
        let layout = #expect(throws: StoreError.self) { try Migrator(plan: misspelt).layout }
        #expect(layout?.kind == .unknownLayout, "the migrator's layout is the plan's or an error, never the Instar layout")
        #expect(try Data(contentsOf: URL(fileURLWithPath: storePath)) == before)
    }

    /// `--layout` with a misspelt name: a usage error naming the known layouts, in every command that takes it.
    @Test func aMisspeltLayoutOptionIsRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let modelPath = dir.appendingPathComponent("v1.yaml").path
        try Self.versions[0].write(toFile: modelPath, atomically: true, encoding: .utf8)
        let store = dir.appendingPathComponent("items.sqlite").path
        let create = try runInstar(["store", "create", modelPath, "--store", store, "--layout", "sqll"])
        #expect(create.status == 64, "\(create.stderr)")  // its words, naming 'sql': golden cli/refusals.txt
        #expect(!FileManager.default.fileExists(atPath: store))
        try SQLiteStore.create(at: store, model: try model(Self.versions[0])).close()
        for arguments in [["inspect", "--store", store, "--layout", "sqll"], ["store", "seed", store, "--rows", "1", "--layout", "sqll"]] {
            let result = try runInstar(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")  // naming the layouts: golden cli/refusals.txt
        }
    }
}
