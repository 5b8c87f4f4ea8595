// The real SwiftData stores of the corpus (`../shared/corpus/swiftdata`) and the sources that wrote them,
// shared by the SwiftData tests and the CLI's.
import Foundation
import Testing
@_spi(Layouts) import InstarModel
import InstarSwiftData
import InstarTestSupport

/// The corpus's SwiftData stores (`stores.json`) and the app sources that wrote each.
package enum SwiftDataCorpus {
    package static let root = corpusRoot.appendingPathComponent("swiftdata")

    /// One store's facts from `stores.json`.
    package struct Store {
        package let path: String
        package let identifier: String
        package let hashes: [String: String]
        package let checksum: String
    }

    package static func stores() throws -> [Store] {
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
    package static func sources(for store: Store) -> (paths: [String], versioned: Bool)? {
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
    package static let retroview = "atomicguy__Retroview/@4448712c/"

    /// The sources that wrote `store`, as the test reads them: the app's files, plus what the corpus copy
    /// lacks (MetaCocktails' MeasurementUnit declaration), and for Retroview the commit's StereoCard.swift
    /// without the two properties that commit added (``storeSources(_:_:)``).
    package static func files(for store: Store) throws -> [(path: String, text: String)] {
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
    package static func storeSources(_ files: [(path: String, text: String)], _ store: Store) throws -> [(path: String, text: String)] {
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

    package static func swiftFiles(_ folders: [URL]) throws -> [(path: String, text: String)] {
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


    /// The schema read from the app's sources that wrote `store` (see ``sources(for:)``).
    package static func schema(for store: Store) throws -> SwiftDataSchema {
        let (_, versioned) = try #require(sources(for: store), "no sources known for \(store.path)")
        let read = SwiftDataReader().read(files: try files(for: store))
        if versioned {
            return try #require(read.schemas.first { $0.isVersioned && $0.versionIdentifier == store.identifier })
        }
        return try read.schema(ofModelClasses: store.hashes.keys.sorted())
    }

    /// A read-only copy of a corpus store with its sidecars (the WAL holds rows only, but is applied anyway).
    package static func copyOfStore(_ path: String) throws -> (directory: URL, path: String) {
        let directory = try temporaryDirectory()
        let source = root.appendingPathComponent(path)
        let target = directory.appendingPathComponent(source.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
        }
        return (directory, target.path)
    }
}
