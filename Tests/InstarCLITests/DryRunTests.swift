import Foundation
@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore
import Testing
import InstarCompiler
import InstarTestSupport
import InstarRuntimeTestSupport
@testable import InstarCLI

/// `instar plan` never writes: the store file is byte-for-byte the same, with no journal left behind.
@Suite struct DryRunTests {
    let v1 = "name: V1\nentities:\n  Track:\n    attributes:\n      title: string?\n      artistName: string?\n      plays: int64?\n"
    let v2 = "name: V2\nentities:\n  Track:\n    attributes:\n      title: string = untitled\n      performer: string?\n      plays: int64?\n"

    func setUp() throws -> (URL, String, String) {
        let dir = try temporaryDirectory()
        try v1.write(to: dir.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        try v2.write(to: dir.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        let plan = dir.appendingPathComponent("plan.yaml").path
        try "versions: [v1.yaml, v2.yaml]\n".write(toFile: plan, atomically: true, encoding: .utf8)
        let store = dir.appendingPathComponent("s.sqlite").path
        let created = try SQLiteStore.create(at: store, model: try model(v1, name: "V1"))
        try created.withDatabase { db in
            try db.execute(
                sql: "INSERT INTO Track (_pk, title, artistName, plays) VALUES (1, 'a', 'Adele', 3), (2, NULL, 'Sia', NULL), (3, 'c', NULL, 1)")
        }
        try created.close()
        return (dir, plan, store)
    }

    @Test func planReportIsReadOnlyAndCountsRisks() throws {
        let (dir, plan, store) = try setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let result = try runInstar(["plan", plan, "--store", store, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        for suffix in ["-journal", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: store + suffix))
        }
        let json = try #require(result.json)
        #expect(json["from"] as? String == "V1")
        #expect(json["to"] as? String == "V2")
        let steps = try #require(json["steps"] as? [[String: Any]])
        #expect(steps.count == 1)
        #expect(steps[0]["kind"] as? String == "lightweight")
        #expect(steps[0]["rowsTouched"] as? Int == 3)  // title's NOT NULL change rebuilds Track
        #expect((steps[0]["sql"] as? [String])?.contains { $0.hasPrefix("INSERT INTO") } == true)
        let risks = try #require(json["risks"] as? [[String: Any]])
        // artistName has two non-NULL values that will be dropped, and looks like a rename.
        #expect(risks.contains { $0["kind"] as? String == "droppedValues" && $0["count"] as? Int == 2 })
        #expect(risks.contains { $0["kind"] as? String == "probableRename" })
    }

    /// A changed version hash modifier is Core Data's "same shape, new meaning": the dry run counts the
    /// values that keep their stored form and asks for a confirmation, instead of "risks: none found".
    @Test func aChangedHashModifierIsAMeaningChangeToConfirm() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = "name: V1\nentities:\n  Track:\n    attributes:\n      duration: int64?\n"
        let after =
            "name: V2\nentities:\n  Track:\n    attributes:\n      duration: { type: int64, optional: true, hashModifier: seconds }\n"
        try before.write(to: dir.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        try after.write(to: dir.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        let plan = dir.appendingPathComponent("plan.yaml").path
        try "versions: [v1.yaml, v2.yaml]\n".write(toFile: plan, atomically: true, encoding: .utf8)
        let store = dir.appendingPathComponent("s.sqlite").path
        let created = try SQLiteStore.create(at: store, model: try model(before, name: "V1"))
        try created.withDatabase { db in
            try db.execute(sql: "INSERT INTO Track (_pk, duration) VALUES (1, 180000), (2, NULL), (3, 240000)")
        }
        try created.close()
        let json = try #require(try runInstar(["plan", plan, "--store", store, "--format", "json"]).json)
        let risks = try #require(json["risks"] as? [[String: Any]])
        let meaning = try #require(risks.first { $0["kind"] as? String == "meaningChange" })
        #expect(meaning["count"] as? Int == 2)
        #expect((meaning["message"] as? String)?.contains("Track.duration") == true)
        let text = try runInstar(["plan", plan, "--store", store])
        #expect(!text.stdout.contains("risks: none found"), "\(text.stdout)")
        #expect(text.stdout.contains("meaning changed"), "\(text.stdout)")
    }

    /// `plan --store` counts a new uniqueness constraint's duplicates on the rows: a clean store shows
    /// no risk, a dirty one the number of groups and their values (it used to say the same for both).
    @Test func duplicatesAreCountedSoACleanStoreShowsNoRisk() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = "name: V1\nentities:\n  Track:\n    attributes:\n      code: string?\n"
        let after = "name: V2\nentities:\n  Track:\n    unique: [code]\n    attributes:\n      code: string?\n"
        try before.write(to: dir.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        try after.write(to: dir.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        let plan = dir.appendingPathComponent("plan.yaml").path
        try "versions: [v1.yaml, v2.yaml]\n".write(toFile: plan, atomically: true, encoding: .utf8)
        func risks(codes: [String]) throws -> [[String: Any]] {
            let store = dir.appendingPathComponent("s\(codes.count).sqlite").path
            let created = try SQLiteStore.create(at: store, model: try model(before, name: "V1"))
            try created.withDatabase { db in
                for (n, code) in codes.enumerated() {
                    try db.execute(sql: "INSERT INTO Track (_pk, code) VALUES (?, ?)", arguments: [n + 1, code])
                }
            }
            try created.close()
            let json = try #require(try runInstar(["plan", plan, "--store", store, "--format", "json"]).json)
            return try #require(json["risks"] as? [[String: Any]])
        }
        #expect(try risks(codes: ["a", "b", "c"]).allSatisfy { $0["kind"] as? String != "duplicates" })
        let dirty = try #require(try risks(codes: ["a", "a", "b", "c", "c", "c"]).first { $0["kind"] as? String == "duplicates" })
        #expect(dirty["count"] as? Int == 2)
        #expect((dirty["message"] as? String)?.contains("for example (c), (a)") == true, "\(dirty)")
    }

    @Test func textAndMarkdownReportsNameTheChain() throws {
        let (dir, plan, store) = try setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The words of both renderings are pinned by the golden transcripts (cli/plan-store.txt, cli/plan.txt);
        // here, that each renders this report: its store, chain, rebuilt table and rows.
        let report = try runInstar(["plan", plan, "--store", store, "--format", "json"])
        #expect(report.member("store") as? String == store && report.member("detectedVersion") as? String == "V1")
        #expect((report.member("steps") as? [Any])?.count == 1)
        #expect(report.member("steps", 0, "from") as? String == "V1" && report.member("steps", 0, "to") as? String == "V2")
        #expect(report.member("steps", 0, "tablesRebuilt") as? [String] == ["Track"] && report.member("steps", 0, "rowsTouched") as? Int == 3)
        let text = try runInstar(["plan", plan, "--store", store])
        let markdown = try runInstar(["plan", plan, "--store", store, "--format", "markdown"])
        #expect(text.status == 0 && markdown.status == 0)
        let sql = try #require(report.member("steps", 0, "sql") as? [String])
        for rendering in [text.stdout, markdown.stdout] {
            #expect(!sql.isEmpty && sql.allSatisfy(rendering.contains), "every statement is shown")
        }
    }

    @Test func noChainExitsOneAndExplains() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "name: A\nentities:\n  E:\n    attributes:\n      n: string?\n".write(
            to: dir.appendingPathComponent("a.yaml"), atomically: true, encoding: .utf8)
        try "name: B\nentities:\n  E:\n    attributes:\n      n: int64?\n".write(
            to: dir.appendingPathComponent("b.yaml"), atomically: true, encoding: .utf8)
        let plan = dir.appendingPathComponent("plan.yaml").path
        try "versions: [a.yaml, b.yaml]\n".write(toFile: plan, atomically: true, encoding: .utf8)
        let result = try runInstar(["plan", plan, "--format", "json"])
        #expect(result.status == 1)
        let gaps = try result.member("noChain", "gaps", as: [NoChain.Gap].self)
        #expect(gaps.map { [$0.from, $0.to] } == [["A", "B"]])
        #expect(gaps[0].blocking.map { "\($0.entity).\($0.property ?? "")" } == ["E.n"])
        #expect(try runInstar(["plan", plan]).status == 1, "the text report (cli/plan-no-chain.txt) exits the same")
    }
}

/// Where a transaction's steps cannot be fused, the dry run says why, next to the table it rewrites twice.
@Suite struct FusionRefusalReportTests {
    @Test func theDryRunSaysWhyStepsWereNotFused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let versions = [
            "name: V1\nentities: {Item: {attributes: {n: int32?, m: int32?}}}\n",
            "name: V2\nentities: {Item: {attributes: {n: int32 = 0, m: int32?}}}\n",
            "name: V3\nentities: {Item: {attributes: {n: int32 = 0, m: int32}}}\n",  // required, no default: a data condition
        ]
        let (plan, store) = try pinnedItemsPlan(versions, in: dir, insert: #"INSERT INTO "Item" ("_pk", "n", "m") VALUES (1, 1, 1)"#)
        let report = try DryRun.report(plan: plan, storePath: store)
        let segment = try #require(report.segments.first)
        #expect(segment.tablesRebuilt == ["Item (2 times)"])
        #expect(segment.notFused == ["at V2: \(FusionRefusal.conditions)"])
    }
}
