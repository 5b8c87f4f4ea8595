import Foundation
@_spi(Layouts) import InstarModel
import InstarSwiftData
import Testing
import InstarTestSupport
import InstarSwiftDataTestSupport

/// Large files are parsed in pieces whose trees can be dropped and parsed again (`SourceChunks`,
/// `SyntaxTreeCache`). None of it may show: a reading that cuts every file wherever it may and keeps a single
/// tree at a time must equal the plain reading, schemas, plans, diagnostics and their places included.
@Suite struct SourceChunksTests {
    /// Cut at every place allowed, and keep only the newest tree.
    static func readCutEverywhere(_ files: [(path: String, text: String)]) -> SwiftDataSources {
        SwiftDataReader().read(files: files, chunks: SourceChunks(minimumBytes: 1), cache: SyntaxTreeCache(limit: 1))
    }

    /// What a reading found, as lines that differ when anything a user sees differs.
    static func fingerprint(_ sources: SwiftDataSources) -> [String] {
        var lines = sources.files + sources.modelClasses
        for schema in sources.schemas {
            let hashes = VersionHashes(model: schema.model).base64EntityHashes.sorted { $0.key < $1.key }
            lines.append("schema \(schema.name) \(schema.versionIdentifier) \(schema.isVersioned) \(schema.modelClasses) at \(schema.location): \(hashes)")
            lines += schema.model.locations.all.sorted { $0.key < $1.key }.map { "  \($0.key) at \($0.value)" }
        }
        for plan in sources.plans { lines.append("plan \(plan.name) \(plan.schemas) \(plan.stages) at \(plan.location)") }
        for refused in sources.refusedPlans { lines.append("refused \(refused.name) at \(refused.location): \(refused.errors)") }
        lines += sources.diagnostics.map { "diagnostic \($0)" }
        return lines
    }

    /// A history in one file, generated as Scripts/bench-scaling generates it (renames with `originalName`),
    /// with the shapes a cut must respect between its schemas.
    static func history(_ versions: Int) -> String {
        var text = "import SwiftData\n\n"
        for version in 1...versions {
            let previous = version > 1 ? "@Attribute(originalName: \"title\(version - 1)\") " : ""
            text += """
                /// Version \(version).
                // MARK: - V\(version)
                enum S\(version): VersionedSchema {
                    static var versionIdentifier = Schema.Version(\(version), 0, 0)
                    static var models: [any PersistentModel.Type] { [Item.self, Tag.self] }
                    @Model
                    final class Item {
                        \(previous)var title\(version): String = ""
                        var note: String = \"\"\"
                            }
                            enum NotADeclaration {
                            \"\"\"
                        @Relationship(deleteRule: .cascade, inverse: \\Tag.item) var tags: [Tag]? = []
                        init() {}
                    }
                    @Model final class Tag {
                        var name: String = ""
                        var item: Item?
                        init() {}
                    }
                }
                /* a comment that closes a brace
                }
                enum Commented {
                */
                #if DEBUG
                struct DebugOnly\(version) {}
                enum Conditional\(version) {}
                #endif
                let stage\(version) = MigrationStage.lightweight(fromVersion: S\(max(1, version - 1)).self, toVersion: S\(version).self)
                extension S\(version) {
                    static let order = \(version)
                }
                @MainActor
                final class Helper\(version) {}

                """
        }
        let schemas = (1...versions).map { "S\($0).self" }.joined(separator: ", ")
        let stages = (2...versions).map { "stage\($0)" }.joined(separator: ", ")
        text += """
            enum Plan: SchemaMigrationPlan {
                static var schemas: [any VersionedSchema.Type] { [\(schemas)] }
                static var stages: [MigrationStage] { [\(stages)] }
            }

            """
        return text
    }

    @Test func piecesCoverTheFileAndStartOnlyAtDeclarations() throws {
        let text = Self.history(6)
        let bytes = Array(text.utf8)
        let pieces = SourceChunks(minimumBytes: 1).pieces(of: text)
        #expect(pieces.first?.bytes.lowerBound == 0)
        #expect(pieces.last?.bytes.upperBound == bytes.count)
        for (piece, next) in zip(pieces, pieces.dropFirst()) { #expect(piece.bytes.upperBound == next.bytes.lowerBound) }
        // After a line ending in `}`: each schema but the first (its doc comment opens the piece), each
        // `@MainActor` class (but not its `final class` line) and the plan. Nothing inside a string, a block
        // comment or an `#if`, nor after a line that does not close a declaration (`let stage`, `#endif`).
        let starts = pieces.dropFirst().map { String(decoding: bytes[$0.bytes].prefix(24), as: UTF8.self) }
        #expect(starts.count == 5 + 6 + 1, "\(starts)")
        #expect(starts.filter { $0.hasPrefix("/// Version") }.count == 5)
        #expect(starts.filter { $0.hasPrefix("@MainActor") }.count == 6)
        #expect(starts.filter { $0.hasPrefix("enum Plan") }.count == 1)
        for piece in pieces {
            let line = 1 + bytes[..<piece.bytes.lowerBound].filter { $0 == UInt8(ascii: "\n") }.count
            #expect(piece.firstLine == line)
        }
    }

    @Test func smallFilesAreNotCut() {
        let text = Self.history(3)
        #expect(text.utf8.count < SourceChunks.defaultMinimumBytes)
        #expect(SourceChunks().pieces(of: text).count == 1)
        #expect(SourceChunks(minimumBytes: text.utf8.count / 2).pieces(of: text).count == 2)
    }

    @Test func readingCutEverywhereEqualsTheWholeReading() throws {
        let files = [(path: "History.swift", text: Self.history(12)), (path: "Other.swift", text: Self.history(2).replacingOccurrences(of: "enum S", with: "enum T").replacingOccurrences(of: "enum Plan", with: "enum OtherPlan"))]
        let whole = SwiftDataReader().read(files: files)
        #expect(whole.schemas.count == 14, "\(whole.errors)")
        #expect(whole.plans.count == 2, "\(whole.errors)")
        // A rename carried through `originalName` and every location a diagnostic or lint would show.
        #expect(whole.schemas.last.map { Set($0.model.entities.flatMap { $0.attributes.map(\.name) }).contains("title2") } == true)
        let cut = Self.readCutEverywhere(files)
        #expect(Self.fingerprint(cut) == Self.fingerprint(whole))
        #expect(cut.schemas.map(\.model.entities) == whole.schemas.map(\.model.entities))
    }

    @Test func aFileWithSyntaxErrorsIsReadWhole() throws {
        // The error sits in the third piece; cut, its piece would parse on its own and the warning would
        // point into it. Read whole, the warning is where the whole file's reading puts it.
        var text = Self.history(4)
        let at = try #require(text.range(of: "enum S3: VersionedSchema {"))
        text.replaceSubrange(at, with: "enum S3: VersionedSchema { var = ")
        let files = [(path: "Broken.swift", text: text)]
        let whole = SwiftDataReader().read(files: files)
        #expect(whole.diagnostics.contains { $0.severity == .warning && $0.message.contains("syntax errors") })
        #expect(Self.fingerprint(Self.readCutEverywhere(files)) == Self.fingerprint(whole))
    }

    @Test func aDroppedTreeIsParsedAgainWhenASchemaNeedsIt() throws {
        let cache = SyntaxTreeCache(limit: 1)
        let files = [(path: "History.swift", text: Self.history(8))]
        let sources = SwiftDataReader().read(files: files, chunks: SourceChunks(minimumBytes: 1), cache: cache)
        #expect(cache.heldPieces == 1)
        // Building a schema after the reading needs the first pieces' trees again.
        let rebuilt = try sources.schema(ofModelClasses: ["S1.Item", "S1.Tag"])
        let first = try #require(sources.schemas.first)
        #expect(rebuilt.model.entities == first.model.entities)
        #expect(cache.heldPieces == 1)
    }
}

/// The same on real apps' sources: every file of the corpus cut wherever it may be.
@Suite(.needsCorpus) struct SourceChunksCorpusTests {
    @Test func everyCorpusAppReadsTheSameCutEverywhere() throws {
        let root = corpusRoot.appendingPathComponent("swiftdata")
        let apps = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { !$0.hasPrefix("_") && !$0.hasSuffix(".md") }.sorted()
        #expect(apps.count >= 25)
        var cutFiles = 0, schemas = 0
        for app in apps {
            let files = try SwiftDataCorpus.swiftFiles([root.appendingPathComponent(app)])
            guard !files.isEmpty else { continue }
            cutFiles += files.filter { SourceChunks(minimumBytes: 1).pieces(of: $0.text).count > 1 }.count
            let whole = SwiftDataReader().read(files: files)
            schemas += whole.schemas.count
            let cut = SourceChunksTests.readCutEverywhere(files)
            #expect(SourceChunksTests.fingerprint(cut) == SourceChunksTests.fingerprint(whole), "\(app)")
            #expect(cut.schemas.map(\.model.entities) == whole.schemas.map(\.model.entities), "\(app)")
        }
        print("SwiftData sources cut everywhere: \(apps.count) apps, \(cutFiles) files cut, \(schemas) schemas, readings equal")
        #expect(cutFiles >= 100)
        #expect(schemas >= 50)
    }
}
