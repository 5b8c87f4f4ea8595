import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarPlanner
@_spi(Layouts) import InstarStore
import InstarTesting
import Testing
import InstarTestSupport
@testable import InstarCLI

/// A bundle has no order but its current version: an app whose oldest versions are named
/// `AppPartner…` and whose later ones `AppFolio v…` must plan, migrate, test and lint from every
/// version, whatever the names' order says.
@Suite struct BundleOrderTests {
    /// DuckDuckGo's BookmarksModel bundle (versions 1–6, real stores of 1–5), with its versions renamed
    /// so that the oldest sort last: `AppPartner`, `AppPartner 2`, `AppPartner 3` for 1–3, then
    /// `AppFolio v1.4`, `AppFolio v2.0`, `AppFolio v2.7.0` (current) for 4–6.
    static let renamed = [
        "BookmarksModel": "AppPartner", "BookmarksModel 2": "AppPartner 2", "BookmarksModel 3": "AppPartner 3",
        "BookmarksModel 4": "AppFolio v1.4", "BookmarksModel 5": "AppFolio v2.0", "BookmarksModel 6": "AppFolio v2.7.0",
    ]
    static let ddg = corpusRoot.appendingPathComponent("duckduckgo__BrowserServicesKit")

    /// The renamed bundle in `directory`.
    func renamedBundle(in directory: URL) throws -> URL {
        let original = Self.ddg.appendingPathComponent("Sources/Bookmarks/BookmarksModel.xcdatamodeld")
        let bundle = directory.appendingPathComponent("App.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        for (old, new) in Self.renamed {
            try FileManager.default.copyItem(
                at: original.appendingPathComponent("\(old).xcdatamodel"), to: bundle.appendingPathComponent("\(new).xcdatamodel"))
        }
        let current = try String(contentsOf: original.appendingPathComponent(".xccurrentversion"), encoding: .utf8)
            .replacingOccurrences(of: "BookmarksModel 6.xcdatamodel", with: "AppFolio v2.7.0.xcdatamodel")
        try current.write(to: bundle.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
        return bundle
    }

    @Test(.needsCorpus) func theNamesSortTheOldestVersionsLast() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try ModelBundle.read(xcdatamodeld: try renamedBundle(in: directory))
        #expect(bundle.versions.map(\.name).last == "AppPartner 3")
        #expect(bundle.currentVersionName == "AppFolio v2.7.0")
    }

    @Test(.needsCorpus) func planGoesFromAVersionNamedAfterTheTargetStraightToIt() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try renamedBundle(in: directory).path
        let result = try runInstar(["plan", "--model", bundle, "--from", "AppPartner", "--format", "json"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(!result.stderr.contains("forward only"))
        let steps = (result.json?["steps"] as? [[String: Any]]) ?? []
        #expect(steps.map { "\($0["from"] ?? "?") → \($0["to"] ?? "?")" } == ["AppPartner → AppFolio v2.7.0"])
    }

    @Test(.needsCorpus) func everyRealStoreMigratesToTheCurrentVersion() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundlePath = try renamedBundle(in: directory).path
        let bundle = try ModelBundle.read(xcdatamodeld: URL(fileURLWithPath: bundlePath))
        for n in 1...5 {
            let store = directory.appendingPathComponent("Bookmarks_V\(n).sqlite")
            for suffix in ["", "-wal", "-shm"] {
                let source = Self.ddg.appendingPathComponent("Tests/BookmarksTests/Resources/Bookmarks_V\(n).sqlite\(suffix)")
                if FileManager.default.fileExists(atPath: source.path) {
                    try FileManager.default.copyItem(at: source, to: URL(fileURLWithPath: store.path + suffix))
                }
            }
            let rowsBefore = try rows(store.path)
            let result = try runInstar(["migrate", "--store", store.path, "--model", bundlePath])
            #expect(result.status == 0, "V\(n): \(result.stdout)\n\(result.stderr)")
            let opened = try SQLiteStore.open(at: store.path, readOnly: true)
            let detection = try opened.detectVersion(among: bundle.versions)
            try opened.close()
            #expect(detection.version?.name == "AppFolio v2.7.0" && detection.isExactMatch, "V\(n): \(detection)")
            #expect(try rows(store.path) == rowsBefore, "V\(n)")
        }
    }

    @Test(.needsCorpus) func testCoversEveryVersionButTheCurrentOne() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try renamedBundle(in: directory).path
        // isFavorite goes in version 3 (favourites are a relationship), as Scripts/check-corpus accepts.
        let result = try runInstar([
            "test", "--model", bundle, "--rows", "4", "--format", "json", "--accept-drop", "BookmarkEntity.isFavorite",
        ])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let runs = (result.json?["runs"] as? [[String: Any]]) ?? []
        #expect(Set(runs.compactMap { $0["fromVersion"] as? String }) == Set(Self.renamed.values).subtracting(["AppFolio v2.7.0"]))
        #expect((result.json?["skipped"] as? [Any])?.isEmpty == true)
    }

    @Test(.needsCorpus) func cloudKitStepRulesCompareEveryVersionWithTheCurrentOne() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try renamedBundle(in: directory).path
        let result = try runInstar(["lint", "--model", bundle, "--cloudkit", "--released", "AppPartner 3", "--format", "json"])
        let findings = (result.json?["findings"] as? [[String: Any]]) ?? []
        let cloudKit = findings.filter { ($0["check"] as? String)?.hasPrefix("cloudKit") == true }
        let steps = cloudKit.compactMap { $0["message"] as? String }.filter { $0.contains(" → ") }
        // Version 3 → 6 removes no attribute but turns `favoriteFolder` into `favoriteFolders`; no step
        // goes backwards from a later version to an earlier one.
        #expect(!steps.isEmpty)
        #expect(steps.allSatisfy { $0.hasPrefix("AppPartner 3 → AppFolio v2.7.0") }, "\(steps)")
        // Lint's own step warnings read the steps stores take: each version straight to the current one.
        let renames = findings.filter { $0["check"] as? String == "probableRename" }.compactMap { $0["message"] as? String }
        #expect(Set(renames.map { String($0.prefix { $0 != ":" }) }) == ["AppPartner → AppFolio v2.7.0", "AppPartner 2 → AppFolio v2.7.0"])
    }

    /// The plan file keeps its declared order: a version after the target is skipped by `instar test`,
    /// and the report says so.
    @Test func testSaysWhichVersionsOfAPlanItSkippedAndWhy() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, attributes) in [("v1", "a: string?"), ("v2", "a: string?\n      b: string?"), ("v3", "a: string?\n      b: string?\n      c: string?")] {
            try "name: \(name)\nentities:\n  Item:\n    attributes:\n      \(attributes)\n"
                .write(to: directory.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8)
        }
        let plan = directory.appendingPathComponent("plan.yaml")
        try "name: p\nlayout: instar\nversions:\n  - v1.yaml\n  - v2.yaml\n  - v3.yaml\ntarget: v2\n"
            .write(to: plan, atomically: true, encoding: .utf8)
        let result = try runInstar(["test", plan.path, "--rows", "3", "--format", "json"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let report = try result.decoded(MigrationTestReport.self)
        #expect(report.runs.map(\.fromVersion) == ["v1"] && report.runs.allSatisfy(\.passed))
        #expect(report.skipped.map(\.version) == ["v3"] && report.skipped[0].afterTarget == "v2", "\(report.skipped)")
    }

    /// Rows per table (Core Data's own tables left out), to check that nothing was lost.
    func rows(_ path: String) throws -> [String: Int] {
        let queue = try DatabaseQueue(path: path, configuration: { var c = Configuration(); c.readonly = true; return c }())
        defer { try? queue.close() }
        return try queue.read { db in
            var result: [String: Int] = [:]
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ZBOOKMARK%'") {
                result[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\(table)\"")
            }
            return result
        }
    }
}
