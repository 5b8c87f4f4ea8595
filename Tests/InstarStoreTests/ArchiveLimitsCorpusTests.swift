import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import Testing
import InstarTestSupport
@testable import InstarModelIO

/// The bounds of ``ArchiveLimits`` against every real archive of the corpus (`.mom` files and store
/// model caches): each keeps the margin its doc comment states, so no real model comes near a bound.
@Suite struct ArchiveLimitsCorpusTests {
    /// Every `.mom` file and every store's inflated `Z_MODELCACHE` in the corpus (stores read from copies).
    static func archives() throws -> [(String, Data)] {
        var found: [(String, Data)] = []
        let enumerator = FileManager.default.enumerator(at: corpusRoot, includingPropertiesForKeys: [.isRegularFileKey])
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var copies = 0
        while let url = enumerator?.nextObject() as? URL {
            let name = url.lastPathComponent
            if name.hasSuffix(".mom") {
                found.append((url.path, try Data(contentsOf: url)))
                continue
            }
            // Only regular files: on Linux a directory opens for reading and `readData` then traps.
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                let handle = try? FileHandle(forReadingFrom: url),
                let head = try? handle.read(upToCount: 16),
                head.starts(with: Array("SQLite format 3".utf8))
            else { continue }
            try? handle.close()
            copies += 1
            let copy = folder.appendingPathComponent("\(copies)-\(name)")
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
                try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
            }
            guard let store = try? SQLiteStore.open(at: copy.path, readOnly: true) else { continue }
            if let cached = try? store.cachedModel() { found.append((url.path, cached.archive)) }
            try? store.close()
        }
        return found
    }

    @Test(.needsCorpus) func everyRealArchiveIsFarWithinEveryBound() throws {
        let archives = try Self.archives()
        #expect(archives.count >= 60, "the corpus holds 67 archives: \(archives.count) found")
        var largest: [ArchiveLimitPassed.Limit: (Int, String)] = [:]
        func note(_ limit: ArchiveLimitPassed.Limit, _ figure: Int, _ path: String) {
            if figure > largest[limit]?.0 ?? -1 { largest[limit] = (figure, path) }
        }
        for (path, data) in archives {
            let footprint = try BinaryPropertyList.footprint(data)
            let objects = data.count >= 32 ? data.suffix(24).prefix(8).reduce(0) { $0 << 8 | Int($1) } : 0
            note(.bytes, data.count, path)
            note(.objects, objects, path)
            note(.depth, footprint.depth, path)
            note(.containerReferences, footprint.largestContainer, path)
            note(.totalReferences, footprint.nodes, path)
            note(.expandedBytes, footprint.bytes, path)
            note(.decodedObjects, try CompiledModelReader.referencesFollowed(reading: data, file: path), path)
        }
        let bounds: [ArchiveLimitPassed.Limit: Int] = [
            .bytes: ArchiveLimits.bytes, .objects: ArchiveLimits.objects, .depth: ArchiveLimits.depth,
            .containerReferences: ArchiveLimits.containerReferences, .totalReferences: ArchiveLimits.totalReferences,
            .expandedBytes: ArchiveLimits.expandedBytes, .decodedObjects: ArchiveLimits.decodedObjects,
        ]
        for (limit, bound) in bounds {
            let (figure, path) = try #require(largest[limit])
            print("largest real \(limit.rawValue): \(figure) (\(path)); bound \(bound), \(bound / max(figure, 1))×")
            // Depth is bounded for text property lists' recursion, so its margin is smaller by design.
            #expect(figure * (limit == .depth ? 10 : 250) <= bound, "\(limit.rawValue): \(figure) in \(path)")
        }
    }
}
