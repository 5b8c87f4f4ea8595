import Foundation
import Testing

@testable import InstarModelIO
@_spi(Layouts) @testable import InstarStore
import InstarTestSupport
import InstarStoreTestSupport

/// Stores whose `Z_MODELCACHE` is a few kilobytes that inflate, or expand, past what a model can hold:
/// refused with the bound and the figure (``ArchiveLimits``), never read to the end.
@Suite struct ModelCacheLimitTests {
    static func refusal(cache blob: Data) throws -> ModelCacheError? {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, _) = try ModelCacheStores.store(cache: blob, in: folder)
        let store = try SQLiteStore.open(at: path, readOnly: true)
        defer { try? store.close() }
        do {
            _ = try store.cachedModel()
            return nil
        } catch {
            return error
        }
    }

    /// 60 MB of one-byte references to one object (the fuzz's store, scaled down only in what it names):
    /// inflating stops at 16 MiB plus one chunk, whatever the stream would give.
    @Test func aCacheInflatingPastWhatAModelHoldsStopsAtTheBound() throws {
        var plist = Array("bplist00".utf8) + [0x51, 0x78, 0xAF, 0x13] + PlistWriter.be(60_000_000, 8)
        plist += [UInt8](repeating: 0, count: 60_000_000)
        let blob = RawDeflate.deflate(Data(plist))
        #expect(blob.count < 100_000)
        let error = try #require(try Self.refusal(cache: blob), "a 60 MB cache was read")
        guard case .notAModelArchive = error.kind, case .exceedsLimit(let passed)? = error.archiveReason else {
            Issue.record("\(error)")
            return
        }
        #expect(passed.limit == .bytes && passed.maximum == ArchiveLimits.bytes)
        #expect(passed.found > ArchiveLimits.bytes && passed.found <= ArchiveLimits.bytes + (64 << 10), "\(passed)")
        #expect(error.description.contains("\(ArchiveLimits.bytes) bytes"))
    }

    /// Three arrays of 1,000 references sharing the one below: a billion nodes from a 12 KB plist.
    @Test func aCacheWhoseSharingExpandsIsRefusedWithTheExpandedCount() throws {
        var writer = PlistWriter()
        var below = writer.string("x")
        for _ in 0..<3 { below = writer.array(Array(repeating: below, count: 1_000)) }
        let error = try #require(try Self.refusal(cache: RawDeflate.deflate(writer.data(top: below))))
        #expect(error.archiveReason == .exceedsLimit(ArchiveLimitPassed(.totalReferences, found: 1_001_001_001, maximum: ArchiveLimits.totalReferences)), "\(error)")
    }

    @Test func inflatingHonoursASmallerLimit() throws {
        let blob = RawDeflate.deflate(Data(repeating: 7, count: 1 << 20))
        #expect(throws: RawDeflate.Failure.tooLarge(inflated: 128 << 10, limit: 100_000)) {
            try RawDeflate.inflate(blob, limit: 100_000)
        }
        #expect(try RawDeflate.inflate(blob, limit: 1 << 20).count == 1 << 20)
    }
}
