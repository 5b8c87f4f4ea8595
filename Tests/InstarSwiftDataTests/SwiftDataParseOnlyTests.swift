import Foundation
@_spi(Layouts) import InstarModel
import InstarSwiftData
import Testing
import InstarTestSupport

/// The parse-only SwiftData sources of the corpus (`_parse_only.json`: apps without a store): every
/// repository is read, every diagnostic points into one of its files, and the summary says what reads
/// cleanly and what does not.
@Suite(.needsCorpus) struct SwiftDataParseOnlyTests {
    static let root = corpusRoot.appendingPathComponent("swiftdata")

    @Test func everyRepositoryReadsWithPositionedDiagnostics() throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("_parse_only.json"))
        let repos = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        var lines: [String] = []
        var clean = 0
        for name in repos.keys.sorted() {
            let files = try #require(repos[name]?["files"] as? [String])
            let folder = Self.root.appendingPathComponent(name.replacingOccurrences(of: "+", with: "__"))
            let paths = files.map { folder.appendingPathComponent($0).path }
            let sources = try SwiftDataReader().read(paths: paths)
            for diagnostic in sources.diagnostics {
                #expect(paths.contains(diagnostic.location.file), "\(diagnostic)")
                #expect((diagnostic.location.line ?? 0) >= 1 && (diagnostic.location.column ?? 0) >= 1, "\(diagnostic)")
            }
            let errors = sources.errors
            if errors.isEmpty { clean += 1 }
            let warnings = sources.diagnostics.count - errors.count
            lines.append("\(name): \(files.count) files, \(sources.modelClasses.count) @Model, \(sources.schemas.count) schemas, \(sources.plans.count) plans, \(errors.count) errors, \(warnings) warnings")
            for error in errors {
                let relative = error.description.replacingOccurrences(of: folder.path + "/", with: "")
                lines.append("    \(relative)")
            }
        }
        print("SwiftData parse-only sources: \(clean)/\(repos.count) repositories without errors\n" + lines.joined(separator: "\n"))
        #expect(repos.count == 19)
    }

    /// myhome's HEAD still declares SchemaV1 next to V2…V11: read from the HEAD sources, V1 hashes as the
    /// V1 seed store written at an earlier commit does.
    @Test func myhomeHeadSchemaV1MatchesTheV1Store() throws {
        let head = Self.root.appendingPathComponent("nobelnrj__myhome/MyHomeApp/Persistence")
        let sources = try SwiftDataReader().read(paths: [head.path])
        let v1 = try #require(sources.schemas.first { $0.name == "SchemaV1" }, "\(sources.errors)")
        let metadata = Self.root.appendingPathComponent(
            "_analysis/nobelnrj__myhome/@33a81a50/MyHomeTests/Resources/MyHomeV1Seed.store/metadata.json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: metadata)) as? [String: Any])
        let plist = try #require(object["plist"] as? [String: Any])
        let stored = try #require(plist["NSStoreModelVersionHashes"] as? [String: String])
        #expect(VersionHashes(model: v1.model).base64EntityHashes == stored)
    }
}
