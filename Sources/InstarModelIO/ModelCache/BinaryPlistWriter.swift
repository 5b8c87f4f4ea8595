import Foundation

/// A property-list value as a keyed archive needs it, with the binary format's UID type (which
/// `PropertyListSerialization` cannot write).
indirect enum PlistItem: Hashable {
    case string(String)
    case integer(Int)
    case real(Double)
    case boolean(Bool)
    case data(Data)
    case uid(Int)
    case array([PlistItem])
    /// Keys in the order given.
    case dictionary([Pair])

    struct Pair: Hashable {
        let key: String
        let value: PlistItem
    }
}

/// Writes `bplist00` (Apple's binary property list): objects, offset table, trailer. Each value is one
/// object; equal strings are written once.
enum BinaryPlistWriter {
    static func data(_ root: PlistItem) -> Data {
        var flat: [PlistItem] = []
        var children: [[Int]] = []
        var strings: [String: Int] = [:]
        func add(_ item: PlistItem) -> Int {
            if case .string(let text) = item, let known = strings[text] { return known }
            let index = flat.count
            flat.append(item)
            children.append([])
            if case .string(let text) = item { strings[text] = index }
            switch item {
            case .array(let members):
                children[index] = members.map(add)
            case .dictionary(let pairs):
                let keys = pairs.map { add(.string($0.key)) }
                children[index] = keys + pairs.map { add($0.value) }
            default:
                break
            }
            return index
        }
        _ = add(root)
        let referenceSize = byteCount(flat.count)
        var body = Data("bplist00".utf8)
        var offsets: [Int] = []
        for (index, item) in flat.enumerated() {
            offsets.append(body.count)
            switch item {
            case .boolean(let flag): body.append(flag ? 0x09 : 0x08)
            case .integer(let number): body.append(contentsOf: integer(number))
            case .real(let number):
                body.append(0x23)
                body.append(contentsOf: bigEndian(UInt64(number.bitPattern), 8))
            case .data(let bytes):
                body.append(contentsOf: header(0x40, bytes.count))
                body.append(bytes)
            case .string(let text):
                if text.unicodeScalars.allSatisfy(\.isASCII) {
                    body.append(contentsOf: header(0x50, text.utf8.count))
                    body.append(contentsOf: Array(text.utf8))
                } else {
                    let units = Array(text.utf16)
                    body.append(contentsOf: header(0x60, units.count))
                    for unit in units { body.append(contentsOf: bigEndian(UInt64(unit), 2)) }
                }
            case .uid(let value):
                let size = byteCount(value + 1)
                body.append(0x80 | UInt8(size - 1))
                body.append(contentsOf: bigEndian(UInt64(value), size))
            case .array:
                body.append(contentsOf: header(0xA0, children[index].count))
                for child in children[index] { body.append(contentsOf: bigEndian(UInt64(child), referenceSize)) }
            case .dictionary(let pairs):
                body.append(contentsOf: header(0xD0, pairs.count))
                for child in children[index] { body.append(contentsOf: bigEndian(UInt64(child), referenceSize)) }
            }
        }
        let tableOffset = body.count
        let offsetSize = byteCount(tableOffset + 1)
        for offset in offsets { body.append(contentsOf: bigEndian(UInt64(offset), offsetSize)) }
        body.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
        body.append(contentsOf: bigEndian(UInt64(flat.count), 8))
        body.append(contentsOf: bigEndian(0, 8))
        body.append(contentsOf: bigEndian(UInt64(tableOffset), 8))
        return body
    }

    /// Bytes needed for unsigned values below `limit`: 1, 2, 4 or 8.
    static func byteCount(_ limit: Int) -> Int {
        if limit <= 0xFF { return 1 }
        if limit <= 0xFFFF { return 2 }
        if limit <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    static func integer(_ number: Int) -> [UInt8] {
        if number < 0 { return [0x13] + bigEndian(UInt64(bitPattern: Int64(number)), 8) }
        let size = byteCount(number)
        let exponent: UInt8 = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3
        return [0x10 | exponent] + bigEndian(UInt64(number), size)
    }

    /// A marker with its count: in the low nibble, or 0xF followed by an integer object.
    static func header(_ marker: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [marker | UInt8(count)] : [marker | 0x0F] + integer(count)
    }
}
