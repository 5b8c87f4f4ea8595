import Foundation
import InstarMapping
import InstarModel
import InstarModelIO

/// Where the shared corpus's mapping models are, for the mapping suites.
enum MappingCorpus {
    /// Whether `../shared/corpus` exists. The corpus tests are skipped without it (they read the 41
    /// real `xcmapping.xml` files there); run them by checking out the shared corpus beside the package.
    static var isPresent: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: corpusRoot.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Every `xcmapping.xml` in the corpus, sorted by path.
    static func mappingFiles() -> [URL] {
        let enumerator = FileManager.default.enumerator(at: corpusRoot, includingPropertiesForKeys: nil)
        var found: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.lastPathComponent == "xcmapping.xml" { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// The corpus file whose path ends with `suffix` (a repository and mapping-model name).
    static func mapping(_ suffix: String) throws -> MappingModel {
        guard let url = mappingFiles().first(where: { $0.deletingLastPathComponent().path.hasSuffix(suffix) }) else {
            throw Missing(what: suffix)
        }
        return try XcodeMappingReader.read(url: url)
    }

    /// The versions of a corpus model bundle, by its path below the corpus root.
    static func versions(_ bundlePath: String) throws -> [Model] {
        try ModelBundle.read(xcdatamodeld: corpusRoot.appendingPathComponent(bundlePath)).versions
    }

    struct Missing: Error, CustomStringConvertible {
        var what: String
        var description: String { "no corpus mapping model ends with '\(what)'" }
    }
}
