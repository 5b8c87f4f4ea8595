import Foundation
import GRDB
@_spi(Layouts) import Instar
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import InstarTestSupport
import InstarTesting
import Testing

@testable import InstarCLI

/// `instar check`'s verdicts beyond the reported problems: every violation of a blocked step, a store
/// no version matches, the intent file's own errors, and stores left unwritten.
@Suite struct ReleaseCheckTests {
    let v1 = "name: V1\nentities:\n  Track:\n    attributes:\n      title: string?\n      code: string?\n  Album:\n    attributes:\n      name: string?\n"
    let v2 =
        "name: V2\nentities:\n  Track:\n    unique: [code]\n    attributes:\n      title: string\n      code: string?\n  Album:\n    attributes:\n      name: string?\n      year: int64\n"

    struct Files {
        let directory: URL
        let before: String
        let after: String
        let store: String
    }

    func files(rows: Bool = true) throws -> Files {
        let directory = try temporaryDirectory()
        let before = directory.appendingPathComponent("v1.yaml").path
        let after = directory.appendingPathComponent("v2.yaml").path
        try v1.write(toFile: before, atomically: true, encoding: .utf8)
        try v2.write(toFile: after, atomically: true, encoding: .utf8)
        let store = directory.appendingPathComponent("shipped.sqlite").path
        let created = try SQLiteStore.create(at: store, model: try model(v1, name: "V1"), layout: InstarLayout())
        if rows {
            try created.withDatabase { db in
                try db.execute(sql: "INSERT INTO Track (_pk, title, code) VALUES (1, NULL, 'x'), (2, 'b', 'x'), (3, NULL, 'y')")
                try db.execute(sql: "INSERT INTO Album (_pk, name) VALUES (1, 'a')")
            }
        }
        try created.close()
        return Files(directory: directory, before: before, after: after, store: store)
    }

    func check(_ f: Files, _ extra: [String] = []) -> CLIResult {
        runInstarInProcess(["check", "--model", f.before, "--model", f.after, "--store", f.store, "--format", "json"] + extra)
    }

    @Test func aBlockedStoreListsEveryViolationAndExits3() throws {
        let f = try files()
        defer { try? FileManager.default.removeItem(at: f.directory) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: f.store))
        let result = check(f)
        #expect(result.status == 3, "\(result.stderr)")
        let report = try result.decoded(ReleaseCheckReport.self)
        #expect(report.verdict == .willFail)
        #expect(report.stores.first?.blockedAt == ["V1", "V2"])
        let violations = report.stores.first?.violations ?? []
        #expect(Set(violations.map(\.kind)) == [.nullValues, .duplicates, .rowsExist])
        #expect(violations.first { $0.kind == .nullValues }?.count == 2)
        #expect(violations.first { $0.kind == .duplicates }?.samples == [["x"]])
        // The store itself is never written: the check migrates a copy.
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.store)) == bytes)
    }

    @Test func anEmptyStorePassesAndRunsEveryStep() throws {
        let f = try files(rows: false)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        let result = check(f)
        #expect(result.status == 0, "\(result.stdout)")
        let report = try result.decoded(ReleaseCheckReport.self)
        #expect(report.stores.first?.stepsRun == 1 && report.stores.first?.version == "V1")
    }

    @Test func aStoreOfNoKnownVersionCannotBeDecided() throws {
        let f = try files(rows: false)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        let other = f.directory.appendingPathComponent("other.sqlite").path
        try SQLiteStore.create(at: other, model: try model("entities:\n  Song:\n    attributes:\n      x: string?\n", name: "X"), layout: InstarLayout())
            .close()
        let result = runInstarInProcess(["check", "--model", f.before, "--model", f.after, "--store", other, "--format", "json"])
        #expect(result.status == 5, "\(result.stderr)")
        let report = try result.decoded(ReleaseCheckReport.self)
        #expect(report.verdict == .cannotDecide && report.stores.first?.version == nil)
    }

    @Test func fixturesTakeEveryStoreInTheFolder() throws {
        let f = try files(rows: false)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        let folder = f.directory.appendingPathComponent("stores")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: f.store, toPath: folder.appendingPathComponent("a.sqlite").path)
        try FileManager.default.copyItem(atPath: f.store, toPath: folder.appendingPathComponent("b.sqlite").path)
        let result = runInstarInProcess(["check", "--model", f.before, "--model", f.after, "--fixtures", folder.path, "--format", "json"])
        #expect(result.status == 0)
        #expect(try result.decoded(ReleaseCheckReport.self).stores.count == 2)
    }

    @Test func aBadIntentFileIsRefusedAtItsLine() throws {
        let f = try files(rows: false)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        let intent = f.directory.appendingPathComponent("intent.yaml").path
        try "- drop: Track.code\n- keep: Track.title\n".write(toFile: intent, atomically: true, encoding: .utf8)
        let result = check(f, ["--intent", intent])
        #expect(result.status == 65)
        #expect(result.stderr.contains("intent.yaml:2:"), "\(result.stderr)")
    }

    @Test func theIntentFileIsFoundBesideTheModels() throws {
        let f = try files(rows: false)
        defer { try? FileManager.default.removeItem(at: f.directory) }
        try "- meaning: Track.title\n".write(
            toFile: f.directory.appendingPathComponent("instar-intent.yaml").path, atomically: true, encoding: .utf8)
        let report = try check(f).decoded(ReleaseCheckReport.self)
        #expect(report.intentFile?.hasSuffix("instar-intent.yaml") == true)
    }

    @Test func intentEntriesReadWithTheirReasonsAndPlaces() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent(ChangeIntent.fileName).path
        try "- drop: Track.code\n  reason: unused\n- drop: Legacy\n- meaning: Track.duration\n".write(toFile: path, atomically: true, encoding: .utf8)
        let intent = try ChangeIntent.read(path: path)
        #expect(intent.entries.map(\.kind) == [.drop, .drop, .meaning])
        #expect(intent.entries.first?.reason == "unused" && intent.entries.first?.location?.line == 1)
        // A whole entity's drop covers its properties.
        #expect(intent.entry(.drop, entity: "Legacy", property: "anything") != nil)
        #expect(intent.entry(.meaning, entity: "Track", property: "code") == nil)
    }

    /// A drop in a step a store's chain does not take loses nothing on that store: the findings follow
    /// the chains the given stores take, and without stores every step up to the target.
    @Test func findingsFollowTheChainsTheStoresTake() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let versions = [
            "name: V1\nentities:\n  Track:\n    attributes:\n      code: string?\n",
            "name: V2\nentities:\n  Track:\n    attributes:\n      label: string?\n",
            "name: V3\nentities:\n  Track:\n    attributes:\n      label: string?\n      plays: int64?\n",
        ]
        var models: [String] = []
        for (n, text) in versions.enumerated() {
            let path = directory.appendingPathComponent("v\(n + 1).yaml").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            models += ["--model", path]
        }
        func store(at index: Int) throws -> String {
            let path = directory.appendingPathComponent("v\(index + 1).sqlite").path
            let created = try SQLiteStore.create(
                at: path, model: try model(versions[index], name: "V\(index + 1)"), layout: InstarLayout())
            try created.withDatabase { db in try db.execute(sql: "INSERT INTO Track (_pk) VALUES (1)") }
            try created.close()
            return path
        }

        let withoutStores = runInstarInProcess(["check"] + models + ["--format", "json"])
        #expect(withoutStores.status == 4, "V1 → V2 drops code while adding label: \(withoutStores.stdout)")

        let fromV2 = runInstarInProcess(["check"] + models + ["--store", try store(at: 1), "--format", "json"])
        let report = try fromV2.decoded(ReleaseCheckReport.self)
        #expect(report.stores.first?.chain == ["V2 → V3"], "\(fromV2.stdout)")
        #expect(fromV2.status == 0, "no store given takes V1 → V2: \(fromV2.stdout)")
        #expect(!report.findings.contains { $0.kind == .undeclaredDataLoss })

        let fromV1 = runInstarInProcess(["check"] + models + ["--store", try store(at: 0), "--to", "V2", "--format", "json"])
        #expect(fromV1.status == 4, "a release that ships V2 loses a V1 store's codes: \(fromV1.stdout)")
        #expect(try fromV1.decoded(ReleaseCheckReport.self).target == "V2")

        let unknown = runInstarInProcess(["check"] + models + ["--to", "V9"])
        #expect(unknown.status == 1, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("'V9' is not one of the given versions"), "\(unknown.stderr)")
    }
}
