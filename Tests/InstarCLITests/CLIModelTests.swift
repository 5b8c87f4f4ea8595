import Foundation
import Testing
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarTestSupport

/// The `instar model hashes` and `instar diff` commands, run as a user would.
@Suite struct CLIModelTests {
    func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func hashesJSONHasTheDocumentedShape() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try write(
            "entities:\n  User:\n    attributes:\n      email: string?\n      password: string?\n      phone: string?\n      name: string?\n",
            "user.yaml", in: dir)
        let result = try runInstar(["model", "hashes", path, "--format", "json"])
        #expect(result.status == 0)
        let json = try #require(result.json)
        let entities = try #require(json["entities"] as? [String: String])
        // The Xcode-compiled hash of the same model (FORMAT.md §2.9, vector 1).
        #expect(Data(base64Encoded: entities["User"]!)?.map { String(format: "%02x", $0) }.joined()
            == "d788cd085c530397416fb51d5adf503d264e736c2d21a163fb6e66864fb2105e")
        #expect((json["versionChecksum"] as? String)?.count == 44)
        #expect((json["versionHashesDigest"] as? String)?.count == 88)
    }

    @Test func diffJSONHasTheDocumentedShapeAndExitsZeroWhenNotInferable() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = try write("entities:\n  E:\n    attributes:\n      v: string?\n      gone: int32?\n", "a.yaml", in: dir)
        let new = try write("entities:\n  E:\n    attributes:\n      v: int64?\n", "b.yaml", in: dir)
        let result = try runInstar(["diff", old, new, "--format", "json"])
        #expect(result.status == 0)
        let json = try #require(result.json)
        #expect(json["inferable"] as? Bool == false)
        let changes = try #require(json["changes"] as? [[String: Any]])
        let typeChange = try #require(changes.first { $0["kind"] as? String == "attributeTypeChanged" })
        #expect(typeChange["entity"] as? String == "E")
        #expect(typeChange["property"] as? String == "v")
        #expect(typeChange["inferable"] as? Bool == false)
        #expect((typeChange["reason"] as? String)?.contains("String to Integer 64") == true)
        #expect(json["warnings"] is [Any])
        let text = try runInstar(["diff", old, new])
        #expect(text.status == 0)
        // Its words ("NOT inferable: …") are pinned by the golden transcript cli/diff-not-inferable.txt.
    }

    @Test func badModelFileGivesLocatedErrorAndExit65() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = try write("entities:\n  E:\n    attributes:\n      v: strin?\n", "bad.yaml", in: dir)
        let result = try runInstar(["model", "hashes", bad])
        #expect(result.status == 65)
        // The reader's problem, as facts; the CLI prints it as it is (the words: golden cli/refusals.txt).
        let error = try #require(#expect(throws: ModelError.self) { try ModelFileReader.read(path: bad) })
        let problem = try #require(error.problems.first)
        #expect(error.problems.count == 1 && problem.kind == .unknownType, "\(error)")
        #expect(problem.location?.file == bad && problem.location?.line == 4, "\(problem)")
        #expect(problem.entity == "E" && problem.property == "v", "\(problem)")
        #expect(result.stderr == "instar: \(problem)\n", "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let nope = dir.appendingPathComponent("nope.yaml").path
        let missing = try runInstar(["diff", nope, bad])
        #expect(missing.status == 66)
        let unreadable = try #require(#expect(throws: ModelError.self) { try ModelLoader.load(nope) })
        #expect(unreadable.problems.map(\.kind) == [.unreadable], "\(unreadable)")
        #expect(missing.stderr == "instar: \(unreadable)\n", "the library's refusal: \(missing.stderr)")
    }
}
