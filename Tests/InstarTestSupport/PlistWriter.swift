import Foundation

/// Writes `bplist00` by hand, for tests of hostile property lists that no writer would produce: objects
/// in order (each already encoded), 4-byte offsets and references.
package struct PlistWriter {
    package var objects: [[UInt8]] = []
    /// An empty property list.
    package init() {}

    package static func be(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

    /// A marker with a count: in the low nibble, or 0xF and an integer object after it.
    package static func head(_ kind: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0x0F, 0x12] + be(count, 4)
    }

    package mutating func add(_ bytes: [UInt8]) -> Int {
        objects.append(bytes)
        return objects.count - 1
    }

    package mutating func string(_ text: String) -> Int { add(Self.head(0x5, text.utf8.count) + Array(text.utf8)) }
    package mutating func array(_ members: [Int]) -> Int { add(Self.head(0xA, members.count) + members.flatMap { Self.be($0, 4) }) }
    /// An array whose header claims `count` members but holds none (checked before any is read).
    package mutating func claimedArray(count: Int) -> Int { add(Self.head(0xA, count)) }

    package func data(top: Int) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += Self.be(offset, 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 4] + Self.be(objects.count, 8) + Self.be(top, 8) + Self.be(table, 8)
        return Data(bytes)
    }
}

