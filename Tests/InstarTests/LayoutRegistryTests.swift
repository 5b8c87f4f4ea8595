import Foundation
import Instar
import Testing
import InstarTestSupport

/// The layout registry is open (a plug-in layout registers its name) and strict (a name that is neither
/// built in nor registered is an error, never the Instar layout in disguise). Each test uses names of
/// its own: the registry is process-wide and suites run in parallel.
@Suite struct LayoutRegistryTests {
    static let versions = [
        "name: V1\nentities: {Item: {attributes: {n: int32?}}}\n",
        "name: V2\nentities: {Item: {attributes: {n: int32?, note: string?}}}\n",
    ]

    @Test func builtInNamesResolveAndMisspellingsAreErrors() throws {
        #expect(Layouts.named("coredata:637") is CoreDataLayout)
        #expect(LayoutRegistry.isKnown("sql"))
        #expect(!LayoutRegistry.isKnown("coredta"))
        #expect(Layouts.named("coredta") == nil)
        let error = #expect(throws: StoreError.self) { try Layouts.resolve("coredta", path: "store.sqlite") }
        #expect(error?.kind == .unknownLayout)
        #expect(error?.path == "store.sqlite")
    }

    @Test func aBuiltInNameCannotBeTaken() {
        #expect(!LayoutRegistry.register("coredata") { PlainSQLLayout() })
        #expect(!LayoutRegistry.register("") { PlainSQLLayout() })
        #expect(Layouts.named("coredata") is CoreDataLayout)
    }

    @Test func aRegisteredPlugInResolvesUntilUnregistered() throws {
        let name = "registry-test-plugin-\(UUID().uuidString.prefix(8))"
        #expect(LayoutRegistry.register(name) { PlainSQLLayout() })
        #expect(LayoutRegistry.isKnown(name))
        #expect(LayoutRegistry.spellings.contains(name))
        #expect(try Layouts.resolve(name, path: "s") is PlainSQLLayout)
        LayoutRegistry.unregister(name)
        #expect(!LayoutRegistry.isKnown(name))
        #expect(throws: StoreError.self) { try Layouts.resolve(name, path: "s") }
    }

    /// A plan file may name a registered layout; the same file is refused once the name is unknown.
    @Test func thePlanReaderAcceptsRegisteredNamesOnly() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (index, text) in Self.versions.enumerated() {
            try text.write(to: dir.appendingPathComponent("v\(index + 1).yaml"), atomically: true, encoding: .utf8)
        }
        let name = "registry-test-plan-\(UUID().uuidString.prefix(8))"
        let planPath = dir.appendingPathComponent("plan.yaml").path
        try "name: items\nlayout: \(name)\nversions: [v1.yaml, v2.yaml]\n".write(toFile: planPath, atomically: true, encoding: .utf8)

        let refused = #expect(throws: PlanError.self) { try PlanFileReader.read(path: planPath) }
        #expect(refused?.problems.contains { $0.message.contains("unknown layout '\(name)'") } == true)

        LayoutRegistry.register(name) { InstarLayout() }
        defer { LayoutRegistry.unregister(name) }
        #expect(try PlanFileReader.read(path: planPath).layout == name)
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
        let pending = #expect(throws: StoreError.self) { try Migrator(plan: misspelt).pendingWork(storeAt: storePath) }
        #expect(pending?.kind == .unknownLayout)
        let layout = #expect(throws: StoreError.self) { try Migrator(plan: misspelt).layout }
        #expect(layout?.kind == .unknownLayout, "the migrator's layout is the plan's or an error, never the Instar layout")
        #expect(try Data(contentsOf: URL(fileURLWithPath: storePath)) == before)
    }

    /// Detection asks every layout that can read a store, registered plug-ins included, after the
    /// built-in ones.
    @Test func detectionAsksRegisteredStoreLayoutsToo() {
        let name = "registry-test-detect-\(UUID().uuidString.prefix(8))"
        LayoutRegistry.register(name) { PlainSQLLayout() }
        defer { LayoutRegistry.unregister(name) }
        #expect(LayoutRegistry.registeredNames.contains(name))
        #expect(Layouts.all.prefix(3).map(\.name) == ["instar", "coredata", "sql"])
        #expect(Layouts.all.count >= 4, "the registered plug-in is among the layouts detection tries")
        LayoutRegistry.unregister(name)
        #expect(!LayoutRegistry.registeredNames.contains(name))
    }
}
