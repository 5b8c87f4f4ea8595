import Foundation
@_spi(Layouts) import InstarModel
import InstarSwiftData
import Testing
import InstarTestSupport

/// Every SwiftData store of the corpus (`../shared/corpus/swiftdata`): the entity version hashes computed
/// from the app's Swift sources equal those SwiftData wrote into the store's Z_METADATA.
@Suite(.needsCorpus) struct SwiftDataCorpusTests {
    static let root = corpusRoot.appendingPathComponent("swiftdata")

    /// One store's facts from `stores.json`.
    struct Store {
        let path: String
        let identifier: String
        let hashes: [String: String]
        let checksum: String
    }

    static func stores() throws -> [Store] {
        let data = try Data(contentsOf: root.appendingPathComponent("stores.json"))
        let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return try list.map { entry in
            Store(
                path: try #require(entry["corpus_path"] as? String),
                identifier: try #require((entry["identifiers"] as? [String])?.first),
                hashes: try #require(entry["hashes"] as? [String: String]),
                checksum: try #require(entry["checksum"] as? String))
        }
    }

    /// Which sources wrote which store: the app target's model folders only (MetaCocktails' `PreLoad`
    /// folder is a second target declaring its own `Cocktail`). `nil` classes: the versioned schema
    /// with the store's identifier; otherwise the unversioned `Schema` of those classes — the app builds
    /// that list at run time in a file the corpus does not hold, so the store's entity names stand in
    /// for it (they choose classes, never hashes).
    static func sources(for store: Store) -> (paths: [String], versioned: Bool)? {
        let repo = String(store.path.prefix { $0 != "/" })
        let commit = store.path.split(separator: "/").dropFirst().first.map(String.init) ?? ""
        switch repo {
        case "TrinsicVentures__FreezeRay":
            return (["TrinsicVentures__FreezeRay/FreezeRayTestApp/FreezeRayTestApp"], true)
        case "AndreiMaksimovich__SwiftDeveloperBlog":
            return (["AndreiMaksimovich__SwiftDeveloperBlog/06 - SwiftData Migration/06 - SwiftData Migration/Lib/AppData"], true)
        case "nobelnrj__myhome":
            return (["nobelnrj__myhome/\(commit)/MyHomeApp"], true)
        case "MatthewHunt84__MetaCocktailsSwiftData":
            return (["Model", "Views"].map { "\(repo)/\(commit)/MetaCocktailsSwiftData/\($0)" }, false)
        case "sergd2005__ResourcesManager":
            return (["\(repo)/\(commit)/ResourcesManager"], false)
        case "thierryH91200__PegaseUIData":
            // `AppSchema`'s `Schema([...])` of 15 models (PegaseUIDataApp.swift).
            return (["\(repo)/\(commit)/PegaseUIData"], false)
        case "jdeda__iOS-ChefTime":
            // `ModelContainer(for: SDFolder.self, SDRecipe.self, …)`; the other five are reached through relationships.
            return (["\(repo)/\(commit)/ChefTime"], false)
        case "atomicguy__Retroview":
            // Every model in its own VersionedSchema, but the container's `Schema([...])` is unversioned (1.0.0).
            return (["\(repo)/\(commit)/Retroview"], false)
        default:
            return nil
        }
    }

    /// The one store whose sources at its own commit are not the ones that wrote it (MANIFEST.md §1):
    /// Retroview@4448712c's store has no Crop entity and no StereoCard.leftCrop/rightCrop, which that commit
    /// adds; its StereoCard is StereoCard.swift at 832367b, which the corpus does not hold.
    static let retroview = "atomicguy__Retroview/@4448712c/"

    /// The sources that wrote `store`, as the test reads them: the app's files, plus what the corpus copy
    /// lacks (MetaCocktails' MeasurementUnit declaration), and for Retroview the commit's StereoCard.swift
    /// without the two properties that commit added (``storeSources(_:_:)``).
    static func files(for store: Store) throws -> [(path: String, text: String)] {
        let (paths, _) = try #require(sources(for: store), "no sources known for \(store.path)")
        var files = try swiftFiles(paths.map { root.appendingPathComponent($0) })
        if store.path.hasPrefix("MatthewHunt84__MetaCocktailsSwiftData/") {
            // The corpus copy lacks the file declaring MeasurementUnit (Ingredient.unit). One declaration
            // stands in for it, its raw type String read off the stores' `unit` element: the one fact
            // here that does not come from the app's sources.
            files.append((path: "MeasurementUnit.swift (supplied)", text: "enum MeasurementUnit: String, Codable { case fluidOunces }"))
        }
        if store.path.hasPrefix(retroview) { files = try storeSources(files, store) }
        return files
    }

    /// Retroview@4448712c's sources as they were when its store was written: StereoCard without
    /// `leftCrop`/`rightCrop` (each a `@Relationship(inverse: \CropSchemaV1.Crop.card)` line and its `var`).
    /// The rest of the commit is unchanged; that the store then matches on every entity is the evidence
    /// that this, and only this, is the difference.
    static func storeSources(_ files: [(path: String, text: String)], _ store: Store) throws -> [(path: String, text: String)] {
        var changed = 0
        let result = files.map { file -> (path: String, text: String) in
            guard file.path.hasSuffix("/StereoCard.swift") else { return file }
            var lines = file.text.components(separatedBy: "\n")
            for name in ["leftCrop", "rightCrop"] {
                guard let at = lines.firstIndex(where: { $0.contains("var \(name):") }), at > 0,
                    lines[at - 1].contains("Crop.card")
                else { continue }
                lines.removeSubrange((at - 1)...at)
                changed += 1
            }
            return (file.path + " (without leftCrop/rightCrop)", lines.joined(separator: "\n"))
        }
        #expect(changed == 2, "\(store.path): StereoCard.swift no longer declares leftCrop and rightCrop as expected")
        return result
    }

    static func swiftFiles(_ folders: [URL]) throws -> [(path: String, text: String)] {
        var files: [(path: String, text: String)] = []
        for folder in folders {
            let names = try #require(FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String])
            for name in names.sorted() where name.hasSuffix(".swift") {
                let url = folder.appendingPathComponent(name)
                files.append((url.path, try String(contentsOf: url, encoding: .utf8)))
            }
        }
        return files
    }

    @Test func hashesFromSourcesEqualEveryStoresMetadata() throws {
        var matched: [String] = []
        let stores = try Self.stores()
        #expect(stores.count == 16)
        for store in stores {
            let (_, versioned) = try #require(Self.sources(for: store), "no sources known for \(store.path)")
            let sources = SwiftDataReader().read(files: try Self.files(for: store))
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
        let store = try #require(try Self.stores().first { $0.path.hasPrefix(Self.retroview) })
        let (paths, _) = try #require(Self.sources(for: store))
        let read = SwiftDataReader().read(files: try Self.swiftFiles(paths.map { Self.root.appendingPathComponent($0) }))
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
            Self.root.appendingPathComponent("AndreiMaksimovich__SwiftDeveloperBlog/06 - SwiftData Migration/06 - SwiftData Migration/Lib/AppData").path
        ])
        let plan = try #require(andrei.plans.first { $0.name == "AppDataMigrationPlanV05" })
        #expect(plan.schemas == (1...5).map { "AppDataSchemaV0\($0)" })
        #expect(plan.stages.map(\.kind) == [.lightweight, .custom, .lightweight, .lightweight])
        #expect(plan.stages[1].willMigrate == nil && plan.stages[1].didMigrate == "inline")
        #expect(andrei.schemas.map(\.versionIdentifier) == ["0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0"])
    }
}
