import Foundation
import InstarMapping
@_spi(Layouts) import InstarModel
import InstarModelIO

/// Where the shared corpus's mapping models are, for the mapping suites.
package enum MappingCorpus {
    /// Whether `../shared/corpus` exists. The corpus tests are skipped without it (they read the 41
    /// real `xcmapping.xml` files there); run them by checking out the shared corpus beside the package.
    package static var isPresent: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: corpusRoot.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Every `xcmapping.xml` in the corpus, sorted by path.
    package static func mappingFiles() -> [URL] {
        let enumerator = FileManager.default.enumerator(at: corpusRoot, includingPropertiesForKeys: nil)
        var found: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.lastPathComponent == "xcmapping.xml" { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// The corpus file whose path ends with `suffix` (a repository and mapping-model name).
    package static func mapping(_ suffix: String) throws -> MappingModel {
        guard let url = mappingFiles().first(where: { $0.deletingLastPathComponent().path.hasSuffix(suffix) }) else {
            throw Missing(what: suffix)
        }
        return try XcodeMappingReader.read(url: url)
    }

    /// The versions of a corpus model bundle, by its path below the corpus root.
    package static func versions(_ bundlePath: String) throws -> [Model] {
        try ModelBundle.read(xcdatamodeld: corpusRoot.appendingPathComponent(bundlePath)).versions
    }

    /// The model bundle a corpus mapping model records (`…/Model.xcdatamodeld/Model 2.xcdatamodel`),
    /// searched for under the mapping model's repository folder; prefers a bundle holding the recorded
    /// version, as a project may keep several bundles of one name.
    package static func bundle(for mapping: MappingModel) -> URL? {
        guard let recorded = mapping.source.path else { return nil }
        let parts = recorded.split(separator: "/").map(String.init)
        guard parts.count >= 2 else { return nil }
        let bundleName = parts[parts.count - 2], versionFolder = parts[parts.count - 1]
        let relative = mapping.file.dropFirst(corpusRoot.standardizedFileURL.path.count + 1)
        guard let repository = relative.split(separator: "/").first else { return nil }
        let enumerator = FileManager.default.enumerator(at: corpusRoot.appendingPathComponent(String(repository)),
            includingPropertiesForKeys: nil)
        var found: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.lastPathComponent == bundleName { found.append(url) }
        }
        return found.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent(versionFolder).path) }
            ?? found.first
    }

    /// No corpus mapping model matches the suffix a test asked for.
    package struct Missing: Error, CustomStringConvertible {
        package var what: String
        package var description: String { "no corpus mapping model ends with '\(what)'" }
    }
}

extension MappingCorpus {
    /// Every `.xcdatamodeld` bundle of the corpus that has an `.xcmappingmodel` within the folders the
    /// planner searches beside it, sorted by path.
    package static func bundlesWithMappingModels() -> [URL] {
        let folders = Set(mappingFiles().map { $0.deletingLastPathComponent().deletingLastPathComponent() })
        let enumerator = FileManager.default.enumerator(at: corpusRoot, includingPropertiesForKeys: nil)
        var found: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "xcdatamodeld" else { continue }
            enumerator?.skipDescendants()
            let near = url.deletingLastPathComponent().path
            if folders.contains(where: { $0.path.hasPrefix(near) }) { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }
}
