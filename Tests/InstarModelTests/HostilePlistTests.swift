import Foundation
@_spi(Layouts) import InstarModel
import InstarTestSupport
import Testing

@testable import InstarModelIO

/// Binary property lists and keyed archives of a few kilobytes that describe enormous graphs: refused
/// by ``ArchiveLimits`` with the bound passed and the exact figure, after work proportional to the file
/// (counted, never timed).
@Suite struct HostilePlistTests {
    typealias Writer = PlistWriter

    static func refusal(_ data: Data) -> ArchiveLimitPassed? {
        do {
            _ = try PlistNode.parse(data)
        } catch {
            if case .exceedsLimit(let passed) = error { return passed }
        }
        return nil
    }

    /// Three arrays of 1,000 references, each repeating the one below: 6 KB that expand to a billion
    /// nodes. Refused with the exact figure, after measuring each of the 4 objects once.
    @Test func aContainerRepeatingOneObjectIsRefusedByItsExpandedCount() throws {
        var writer = Writer()
        var below = writer.string("x")
        for _ in 0..<3 { below = writer.array(Array(repeating: below, count: 1_000)) }
        let data = writer.data(top: below)
        #expect(data.count < 13_000)
        let passed = try #require(Self.refusal(data))
        #expect(passed.limit == .totalReferences && passed.maximum == ArchiveLimits.totalReferences)
        #expect(passed.found == 1_001_001_001)
        do {
            _ = try BinaryPropertyList.footprint(data)
        } catch {
            #expect(error.limit == passed)
        }
    }

    /// Arrays of two references to the array below, 60 deep: 2^61 nodes in under a kilobyte.
    @Test func nestedSharingThatDoublesPerLevelIsRefusedAfterOneVisitPerObject() throws {
        var writer = Writer()
        var below = writer.string("x")
        for _ in 0..<60 { below = writer.array([below, below]) }
        let data = writer.data(top: below)
        #expect(data.count < 1_000)
        let passed = try #require(Self.refusal(data))
        #expect(passed.limit == .totalReferences && passed.found == (1 << 61) - 1)

        // Below the bound the same shape is measured with one visit per object, not per node.
        var small = Writer()
        var shallow = small.string("x")
        for _ in 0..<15 { shallow = small.array([shallow, shallow]) }
        let footprint = try BinaryPropertyList.footprint(small.data(top: shallow))
        #expect(footprint.nodes == (1 << 16) - 1)
        #expect(footprint.objectsMeasured == 16 && footprint.depth == 15 && footprint.largestContainer == 2)
    }

    @Test func aStringReferencedOverAndOverIsRefusedByItsExpandedBytes() throws {
        var writer = Writer()
        let text = writer.string(String(repeating: "a", count: 65_536))
        let top = writer.array(Array(repeating: text, count: 1_000))
        let passed = try #require(Self.refusal(writer.data(top: top)))
        #expect(passed == ArchiveLimitPassed(.expandedBytes, found: 65_536_000, maximum: ArchiveLimits.expandedBytes))
    }

    @Test func aContainerClaimingMoreReferencesThanAModelHoldsIsRefusedBeforeReadingThem() throws {
        var writer = Writer()
        let top = writer.claimedArray(count: 50_000_000)
        let passed = try #require(Self.refusal(writer.data(top: top)))
        #expect(passed == ArchiveLimitPassed(.containerReferences, found: 50_000_000, maximum: ArchiveLimits.containerReferences))
    }

    @Test func nestingDeeperThanTheBoundIsRefusedWithItsDepth() throws {
        var writer = Writer()
        var below = writer.string("x")
        for _ in 0..<70 { below = writer.array([below]) }
        let passed = try #require(Self.refusal(writer.data(top: below)))
        #expect(passed.limit == .depth && passed.found == ArchiveLimits.depth + 1)
    }

    @Test func aCycleIsRefusedNotFollowed() throws {
        var writer = Writer()
        // Object 0 is an array whose one member is itself.
        _ = writer.array([0])
        #expect(throws: KeyedArchiveError.Reason.self) { try PlistNode.parse(writer.data(top: 0)) }
        #expect(Self.refusal(writer.data(top: 0)) == nil, "a cycle is malformed, not large")
    }

    @Test func moreObjectsOrBytesThanAModelHoldsAreRefusedFromTheTrailer() throws {
        // 1,000,001 one-byte offsets (never read: the count is refused first).
        var bytes = Array("bplist00".utf8) + [0x50]
        let table = bytes.count
        bytes += [UInt8](repeating: 8, count: ArchiveLimits.objects + 1)
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + Writer.be(ArchiveLimits.objects + 1, 8) + Writer.be(0, 8) + Writer.be(table, 8)
        #expect(Self.refusal(Data(bytes)) == ArchiveLimitPassed(.objects, found: ArchiveLimits.objects + 1, maximum: ArchiveLimits.objects))

        var large = Data("bplist00".utf8)
        large.append(Data(count: ArchiveLimits.bytes + 1 - large.count))
        #expect(Self.refusal(large) == ArchiveLimitPassed(.bytes, found: ArchiveLimits.bytes + 1, maximum: ArchiveLimits.bytes))
    }

    /// A model archive of 50,000 entries naming one entity whose properties are 50,000 entries naming
    /// one property: the plist is small, but reading it would follow 2.5 billion references. The
    /// reader stops at the bound, having followed exactly one more than it allows.
    @Test func aModelArchiveThatLeadsTheReaderRoundOneEntityIsRefusedByReferencesFollowed() throws {
        var archive = ArchiveBuilder()
        let count = 50_000
        let dictionaryClass = ["NSDictionary", "NSObject"]
        let key = archive.add("P")
        let property = archive.object(["NSFetchedPropertyDescription", "NSPropertyDescription", "NSObject"], [:])
        let properties = archive.object(
            dictionaryClass, ["NS.keys": Array(repeating: key, count: count), "NS.objects": Array(repeating: property, count: count)])
        let entity = archive.object(
            ModelArchiveBuilder.entityClass, ["NSEntityName": archive.add("E"), "NSProperties": properties])
        let entities = archive.object(
            dictionaryClass, ["NS.keys": Array(repeating: key, count: count), "NS.objects": Array(repeating: entity, count: count)])
        let root = archive.object(["NSManagedObjectModel", "NSObject"], ["NSEntities": entities])
        let data = try archive.data(root: root)

        var failure: KeyedArchiveError?
        do {
            _ = try CompiledModelReader.parse(data: data, name: "hostile", file: "hostile.mom")
        } catch {
            failure = error.underlying as? KeyedArchiveError
        }
        let reason = try #require(failure?.reason)
        guard case .exceedsLimit(let passed) = reason else {
            Issue.record("expected a limit, got \(reason)")
            return
        }
        #expect(passed == ArchiveLimitPassed(.decodedObjects, found: ArchiveLimits.decodedObjects + 1, maximum: ArchiveLimits.decodedObjects))
    }
}
