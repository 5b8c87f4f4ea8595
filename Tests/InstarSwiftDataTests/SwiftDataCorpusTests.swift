import Foundation
@_spi(Layouts) import InstarModel
import InstarSwiftData
import Testing
import InstarTestSupport
import InstarSwiftDataTestSupport

/// Every SwiftData store of the corpus (`../shared/corpus/swiftdata`): the entity version hashes computed
/// from the app's Swift sources equal those SwiftData wrote into the store's Z_METADATA.
@Suite(.needsCorpus) struct SwiftDataCorpusTests {
    @Test func hashesFromSourcesEqualEveryStoresMetadata() throws {
        var matched: [String] = []
        let stores = try SwiftDataCorpus.stores()
        #expect(stores.count == 16)
        for store in stores {
            let (_, versioned) = try #require(SwiftDataCorpus.sources(for: store), "no sources known for \(store.path)")
            let sources = SwiftDataReader().read(files: try SwiftDataCorpus.files(for: store))
            let schema: SwiftDataSchema
            if versioned {
                let candidates = sources.schemas.filter { $0.isVersioned && $0.versionIdentifier == store.identifier }
                #expect(candidates.count == 1, "\(store.path): \(candidates.map(\.name)) \(sources.errors)")
                guard let only = candidates.first else { continue }
                schema = only
            } else {
                schema = try sources.schema(ofModelClasses: store.hashes.keys.sorted())
            }
            let computed = VersionHashes(model: schema.model)
            #expect(computed.base64EntityHashes == store.hashes, "\(store.path) from \(schema.name)")
            #expect(computed.versionChecksum == store.checksum, "\(store.path)")
            if computed.base64EntityHashes == store.hashes {
                matched.append("\(store.path) [\(schema.name) \(schema.versionIdentifier), \(store.hashes.count) entities]")
            }
        }
        print("SwiftData stores matched from source (\(matched.count)/\(stores.count)):\n  " + matched.joined(separator: "\n  "))
        #expect(matched.count == stores.count)
    }

    /// Retroview@4448712c read from its own commit's sources, unchanged: the known mismatch (MANIFEST.md §1).
    /// That commit's StereoCard adds `leftCrop` and `rightCrop`, both declared `inverse: \CropSchemaV1.Crop.card`:
    /// no consistent schema has both, so the reader refuses it at the second one, naming the inverse — the
    /// store (without them) could not have been written from these sources.
    @Test func retroviewsOwnCommitIsRefusedAtTheCropInverse() throws {
        let store = try #require(try SwiftDataCorpus.stores().first { $0.path.hasPrefix(SwiftDataCorpus.retroview) })
        let (paths, _) = try #require(SwiftDataCorpus.sources(for: store))
        let read = SwiftDataReader().read(files: try SwiftDataCorpus.swiftFiles(paths.map { SwiftDataCorpus.root.appendingPathComponent($0) }))
        do {
            _ = try read.schema(ofModelClasses: store.hashes.keys.sorted())
            Issue.record("the commit's own sources built a schema")
        } catch {
            let problem = try #require(error.diagnostics.first)
            #expect(problem.message.contains("inverse 'Crop.card'"), "\(problem)")
            #expect(problem.location.file.hasSuffix("Retroview/Models/StereoCard.swift") && problem.location.line == 42, "\(problem)")
        }
    }

    /// The migration plans of the corpus's versioned apps read as plain values.
    @Test func migrationPlansOfTheCorpus() throws {
        let andrei = try SwiftDataReader().read(paths: [
            SwiftDataCorpus.root.appendingPathComponent("AndreiMaksimovich__SwiftDeveloperBlog/06 - SwiftData Migration/06 - SwiftData Migration/Lib/AppData").path
        ])
        let plan = try #require(andrei.plans.first { $0.name == "AppDataMigrationPlanV05" })
        #expect(plan.schemas == (1...5).map { "AppDataSchemaV0\($0)" })
        #expect(plan.stages.map(\.kind) == [.lightweight, .custom, .lightweight, .lightweight])
        #expect(plan.stages[1].willMigrate == nil && plan.stages[1].didMigrate == "inline")
        #expect(andrei.schemas.map(\.versionIdentifier) == ["0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0"])
    }
}
