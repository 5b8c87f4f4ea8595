import Foundation
import Testing

@_spi(Layouts) @testable import InstarModel
@testable import InstarModelIO
@testable import InstarPlanner
@_spi(Layouts) @testable import InstarStore
import InstarRuntime
import InstarTestSupport

/// A plan-less migration from a compiled `.momd` with `.neededByStore` decodes only the store's version
/// and the target (found by the hashes in `VersionInfo.plist`), and plans the same chain as a read of
/// every version. The bundles are built from the corpus's real `.mom` files (CoreDataPlus's SampleModel3),
/// since nothing here writes a `.mom`.
@Suite(.needsCorpus) struct LaunchReadingTests {
    static let fixtures = corpusRoot.appendingPathComponent("alemar11__CoreDataPlus/Tests/Resources")
    static let sample3 = fixtures.appendingPathComponent("SampleModel3/Fixtures")

    /// A `.momd` of `middle + 2` versions named `App 1` … : the first is SampleModel3 (the version of the
    /// corpus store), the last SampleModel3_v3 (current), and `middle` copies of SampleModel3_v2
    /// between, with VersionInfo.plist's hashes carried over under the new names. More versions than
    /// the planner searches for lossless chains (64) makes its chain the direct step whatever it drops.
    static func bundle(middle: Int, in folder: URL) throws -> URL {
        let source = sample3.appendingPathComponent("SampleModel3.momd")
        let momd = folder.appendingPathComponent("App.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        let info = try #require(
            PropertyListSerialization.propertyList(
                from: Data(contentsOf: source.appendingPathComponent("VersionInfo.plist")), format: nil) as? [String: Any])
        let sourceHashes = try #require(info["NSManagedObjectModel_VersionHashes"] as? [String: Any])
        let originals = ["SampleModel3"] + Array(repeating: "SampleModel3_v2", count: middle) + ["SampleModel3_v3"]
        var hashes: [String: Any] = [:]
        for (index, original) in originals.enumerated() {
            let name = "App \(index + 1)"
            try FileManager.default.copyItem(
                at: source.appendingPathComponent(original + ".mom"), to: momd.appendingPathComponent(name + ".mom"))
            hashes[name] = sourceHashes[original]
        }
        let written: [String: Any] = [
            "NSManagedObjectModel_CurrentVersionName": "App \(originals.count)",
            "NSManagedObjectModel_VersionHashes": hashes,
        ]
        try PropertyListSerialization.data(fromPropertyList: written, format: .xml, options: 0)
            .write(to: momd.appendingPathComponent("VersionInfo.plist"))
        return momd
    }

    /// The corpus store at SampleModel3, copied into `folder`.
    static func store(in folder: URL) throws -> URL {
        let store = folder.appendingPathComponent("App.sqlite")
        try FileManager.default.copyItem(at: sample3.appendingPathComponent("SampleModel3_V1.sqlite"), to: store)
        return store
    }

    /// The chain a plan gives from the store's version, as words that name every step and why it was chosen.
    static func chain(_ plan: Plan, from: String) throws -> [String] {
        let chain = try ChainFinder(graph: VersionGraph(plan: plan)).cheapestChain(from: from, to: try #require(plan.targetVersion))
        return chain.steps.map { "\($0.from)→\($0.to) \($0.kind) \(String(describing: $0.choice))" }
    }

    @Test func aCorruptVersionTheChainDoesNotTouchNoLongerStopsTheMigration() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let momd = try Self.bundle(middle: 70, in: folder)
        let store = try Self.store(in: folder)
        try Data("not a model".utf8).write(to: momd.appendingPathComponent("App 30.mom"))
        #expect(throws: ModelError.self) { try ImpliedPlan(models: [momd], store: store) }
        let implied = try ImpliedPlan(models: [momd], store: store, reading: .neededByStore)
        #expect(implied.plan.versions.map(\.name) == ["App 1", "App 72"])
        #expect(implied.plan.targetVersion == "App 72")
        _ = try Migrator(plan: implied.plan).migrate(storeAt: store.path)
        let migrated = try SQLiteStore.open(at: store.path, readOnly: true)
        defer { try? migrated.close() }
        let target = try #require(implied.plan.versions.last)
        #expect(try migrated.metadata()?.entityHashes == VersionHashes(model: target).entityHashes)
    }

    @Test func theNeededVersionsPlanTheChainEveryVersionPlans() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let momd = try Self.bundle(middle: 70, in: folder)
        let store = try Self.store(in: folder)
        let every = try ImpliedPlan(models: [momd], store: store)
        let needed = try ImpliedPlan(models: [momd], store: store, reading: .neededByStore)
        #expect(every.plan.versions.count == 72)
        #expect(needed.plan.versions.count == 2)
        #expect(needed.plan.layout == every.plan.layout)
        #expect(try Self.chain(needed.plan, from: "App 1") == Self.chain(every.plan, from: "App 1"))
    }

    /// Below the planner's search limit a lossy direct step could go through other versions, so every
    /// version is read, and a corrupt one still stops the plan.
    @Test func aSmallBundleWhoseDirectStepDropsDataReadsEveryVersion() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let momd = try Self.bundle(middle: 3, in: folder)
        let store = try Self.store(in: folder)
        let needed = try ImpliedPlan(models: [momd], store: store, reading: .neededByStore)
        #expect(needed.plan.versions.count == 5)
        try Data("not a model".utf8).write(to: momd.appendingPathComponent("App 3.mom"))
        #expect(throws: ModelError.self) { try ImpliedPlan(models: [momd], store: store, reading: .neededByStore) }
    }

    /// A mapping model near the bundle may name any version, so every version is read.
    @Test func aMappingModelNearTheBundleReadsEveryVersion() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let momd = try Self.bundle(middle: 70, in: folder)
        let store = try Self.store(in: folder)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("App 1 to App 72.xcmappingmodel"), withIntermediateDirectories: true)
        let needed = try ImpliedPlan(models: [momd], store: store, reading: .neededByStore)
        #expect(needed.plan.versions.count == 72)
    }

    /// The store's version is decoded and checked against VersionInfo.plist as in a full read: a `.mom`
    /// that hashes otherwise than recorded is refused.
    @Test func theStoresVersionIsStillCheckedAgainstItsRecordedHashes() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let momd = try Self.bundle(middle: 70, in: folder)
        let store = try Self.store(in: folder)
        let first = momd.appendingPathComponent("App 1.mom")
        try FileManager.default.removeItem(at: first)
        try FileManager.default.copyItem(at: momd.appendingPathComponent("App 2.mom"), to: first)
        let error = try #require(#expect(throws: ModelError.self) {
            try ImpliedPlan(models: [momd], store: store, reading: .neededByStore)
        })
        #expect(error.description.contains("App 1"), "\(error)")
    }

    /// On the corpus's own compiled bundles and stores the plan's chain is the full read's.
    @Test(arguments: [
        ("SampleModel/Fixtures/SampleModel.momd", "SampleModel/Fixtures/SampleModel_V1.sqlite", "SampleModel3"),
        ("SampleModel/Fixtures/SampleModel.momd", "SampleModel/Fixtures/SampleModel_V2.sqlite", "SampleModel3"),
        ("SampleModel3/Fixtures/SampleModel3.momd", "SampleModel3/Fixtures/SampleModel3_V1.sqlite", "SampleModel3_v3"),
    ])
    func corpusBundlesPlanAlike(_ entry: (momd: String, store: String, target: String)) throws {
        let momd = Self.fixtures.appendingPathComponent(entry.momd)
        let store = Self.fixtures.appendingPathComponent(entry.store)
        let every = try ImpliedPlan(models: [momd], store: store, target: entry.target)
        let needed = try ImpliedPlan(models: [momd], store: store, target: entry.target, reading: .neededByStore)
        let opened = try SQLiteStore.open(at: store.path, readOnly: true)
        defer { try? opened.close() }
        let recorded = try opened.metadata()?.entityHashes
        let from = try #require(every.plan.versions.first { VersionHashes(model: $0).entityHashes == recorded })
        #expect(try Self.chain(needed.plan, from: from.name) == Self.chain(every.plan, from: from.name))
    }
}
