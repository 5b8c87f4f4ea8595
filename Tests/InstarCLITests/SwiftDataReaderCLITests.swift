import Foundation
import InstarInference
@_spi(Layouts) import InstarModel
import InstarSwiftData
import Testing
import InstarTestSupport
import InstarStoreTestSupport
@testable import InstarCLI  // ErrorHints, the words the CLI adds to the reader's diagnostics

/// The cases of SwiftDataReaderTests (InstarSwiftDataTests) that run `instar`.
@Suite struct SwiftDataReaderCLITests {
    @Test func printsHashesAndExitsWithPositionedErrors() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("Good.swift")
        try """
            enum V1: VersionedSchema {
                static let versionIdentifier = Schema.Version(1, 0, 0)
                static let models: [any PersistentModel.Type] = [Note.self]
                @Model class Note { var body: String? }
            }
            """.write(to: good, atomically: true, encoding: .utf8)
        let result = try runInstar(["model", "swiftdata", good.path, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let schemas = try #require(result.json?["schemas"] as? [[String: Any]])
        #expect(schemas.first?["versionIdentifier"] as? String == "1.0.0")
        let expected = try #require(SwiftDataReader().read(paths: [good.path]).schemas.first).model.versionHashes.base64EntityHashes
        #expect(schemas.first?["entities"] as? [String: String] == expected)

        let bad = folder.appendingPathComponent("Bad.swift")
        try "@Model class A { var size: Size }\nlet s = Schema([A.self])".write(to: bad, atomically: true, encoding: .utf8)
        let failed = try runInstar(["model", "swiftdata", bad.path])
        #expect(failed.status == 65)
        let diagnostics = try SwiftDataReader().read(paths: [bad.path]).diagnostics
        let error = try #require(diagnostics.first { $0.severity == .error })
        #expect(error.location.file == bad.path && error.location.line == 1 && error.location.column == 22, "\(error)")
        #expect(failed.stderr == diagnostics.map { "instar: \(ErrorHints.text($0))\n" }.joined(), "the reader's diagnostics: \(failed.stderr)")
    }
}
