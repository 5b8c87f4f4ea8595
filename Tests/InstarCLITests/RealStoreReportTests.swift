import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import Testing
import InstarTestSupport
import InstarStoreTestSupport
import InstarTesting
@testable import InstarCLI

/// Reports users met on real stores: each names what it is about.
@Suite struct RealStoreReportTests {
    let v1 = "entities:\n  Track:\n    attributes:\n      title: string?\n"

    @Test func aRequiredValueWithoutADefaultIsNamed() throws {
        let f = try StoreFixture(try model(v1, name: "V1"))
        try f.execute("INSERT INTO Track (_pk, title) VALUES (1, 'a'), (2, 'b')")
        let v2 = try model(v1 + "      duration: int64\n", name: "V2")
        let before = try f.fileBytes()
        do {
            try f.store.migrate(from: try model(v1, name: "V1"), to: v2)
            Issue.record("expected a data condition error")
        } catch let error as StoreError {
            #expect(error.kind == .dataCondition)
            #expect(error.condition == .noRows(entity: "Track") && error.violations == 2, "\(error)")
        }
        #expect(try f.fileBytes() == before)
    }
}

/// `instar test` on a chain that does not exist names the version it started from.
@Suite struct MissingChainReportTests {
    @Test func aRunWithoutAChainNamesItsVersion() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "name: V1\nentities:\n  Track:\n    attributes:\n      title: string?\n"
            .write(to: directory.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        // String → Integer 64 cannot be inferred: no chain leads from V1 to V2.
        try "name: V2\nentities:\n  Track:\n    attributes:\n      title: int64?\n"
            .write(to: directory.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        let plan = directory.appendingPathComponent("plan.yaml")
        try "name: p\nlayout: instar\nversions:\n  - v1.yaml\n  - v2.yaml\n".write(to: plan, atomically: true, encoding: .utf8)
        let result = try runInstar(["test", plan.path, "--rows", "3", "--format", "json"])
        #expect(result.status == 1)
        let runs = (result.json?["runs"] as? [[String: Any]]) ?? []
        #expect(runs.map { $0["fromVersion"] as? String } == ["V1"], "\(result.stdout)")
        // The text report prints each run by that version (its words: the golden cli/test-failing.txt).
    }
}

/// Versions with identical hashes (nothing Core Data hashes changed between them) are each reported
/// under their own name, and the run says which version their stores are detected as.
@Suite struct IdenticalVersionReportTests {
    @Test func eachVersionIsReportedUnderItsOwnName() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let entities = "entities:\n  Track:\n    attributes:\n      title: string?\n"
        for (file, name, extra) in [("v1", "V1", ""), ("v2", "V2", ""), ("v3", "V3", "      plays: int64?\n")] {
            try "name: \(name)\n\(entities)\(extra)".write(to: directory.appendingPathComponent("\(file).yaml"), atomically: true, encoding: .utf8)
        }
        let plan = directory.appendingPathComponent("plan.yaml")
        try "name: p\nlayout: coredata\nversions:\n  - v1.yaml\n  - v2.yaml\n  - v3.yaml\n".write(to: plan, atomically: true, encoding: .utf8)
        let result = try runInstar(["test", plan.path, "--rows", "3", "--format", "json"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let runs = (result.json?["runs"] as? [[String: Any]]) ?? []
        #expect(runs.compactMap { $0["fromVersion"] as? String } == ["V1", "V2"])
        let notes = runs.last.flatMap { ($0["checks"] as? [[String: Any]])?.first?["notes"] as? [String] } ?? []
        #expect(notes.contains { $0.hasPrefix("a store of V2 is detected as V1") }, "\(notes)")
    }
}

/// Two attributes side by side for versions are no rename, even when a step skips from before the
/// one was added to after the other was removed: `plan` and `test` judge alike.
@Suite struct SkipRenameReportTests {
    @Test func attributesThatLivedSideBySideAreNoProbableRename() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let versions = [
            ("v1", "V1", "      x: string?\n"), ("v2", "V2", "      x: string?\n      y: string?\n"),
            ("v3", "V3", "      x: string?\n      y: string?\n      z: int64?\n"), ("v4", "V4", "      y: string?\n      z: int64?\n"),
        ]
        for (file, name, attributes) in versions {
            try "name: \(name)\nentities:\n  Item:\n    attributes:\n\(attributes)"
                .write(to: directory.appendingPathComponent("\(file).yaml"), atomically: true, encoding: .utf8)
        }
        let plan = directory.appendingPathComponent("plan.yaml")
        try "name: p\nlayout: instar\nversions:\n  - v1.yaml\n  - v2.yaml\n  - v3.yaml\n  - v4.yaml\n"
            .write(to: plan, atomically: true, encoding: .utf8)
        let planned = try runInstar(["plan", plan.path, "--from", "V1", "--format", "json"])
        #expect(planned.status == 0, "\(planned.stdout)\n\(planned.stderr)")
        let steps = (planned.json?["steps"] as? [[String: Any]]) ?? []
        #expect(steps.map { "\($0["from"] ?? "") → \($0["to"] ?? "")" } == ["V1 → V4"])
        // The skip alone sees x removed and y added; no consecutive step does.
        let risks = (planned.json?["risks"] as? [[String: Any]]) ?? []
        #expect(!risks.contains { $0["kind"] as? String == "probableRename" }, "\(risks)")
        let tested = try runInstar(["test", plan.path, "--from", "V1", "--rows", "3", "--format", "json"])
        #expect(tested.status == 0, "\(tested.stdout)")
        #expect(try tested.decoded(MigrationTestReport.self).runs.map(\.fromVersion) == ["V1"])
    }
}
