import Foundation

/// A value of a binary property list, with keyed-archiver UIDs kept as their own case.
///
/// Xcode stores a mapping's expressions and user-info dictionaries as `NSKeyedArchiver` archives, which
/// are binary property lists whose object references are `UID`s. Foundation's `PropertyListSerialization`
/// hands UIDs back as an opaque private class on Linux (and a CF type on Apple platforms), so the
/// archive could not be followed portably; this small reader keeps them as numbers. It also keeps
/// Booleans apart from integers, which `NSNumber` blurs and which matters for `YES` versus `1`.
package indirect enum PlistValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// Seconds since 2001-01-01 00:00:00 UTC, as the format stores dates.
    case date(Double)
    case data(Data)
    case string(String)
    case uid(Int)
    case array([PlistValue])
    case dictionary([String: PlistValue])

    package subscript(key: String) -> PlistValue? {
        if case .dictionary(let entries) = self { return entries[key] }
        return nil
    }

    package var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }
}

/// Why a binary property list could not be read; `offset` is the byte where reading stopped.
package struct PlistFormatError: Error, Sendable, Hashable {
    package var message: String
    package var offset: Int?
}

/// Reads the `bplist00` format (the only one keyed archives use) into ``PlistValue``.
package enum BinaryPropertyList {
    package static func read(_ data: Data) throws(PlistFormatError) -> PlistValue {
        var reader = Reader(bytes: [UInt8](data))
        return try reader.readDocument()
    }

    private struct Reader {
        let bytes: [UInt8]
        var offsetSize = 0
        var referenceSize = 0
        var offsets: [Int] = []
        /// Objects being read, to refuse reference cycles instead of recursing forever.
        var inProgress: Set<Int> = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func readDocument() throws(PlistFormatError) -> PlistValue {
            guard bytes.count >= 40, bytes.starts(with: Array("bplist0".utf8)) else {
                throw PlistFormatError(message: "not a binary property list (no 'bplist0' header)", offset: 0)
            }
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            let count = try unsigned(at: trailer + 8, size: 8)
            let top = try unsigned(at: trailer + 16, size: 8)
            let tableStart = try unsigned(at: trailer + 24, size: 8)
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count > 0, top < count,
                tableStart + count * offsetSize <= trailer
            else { throw PlistFormatError(message: "the property list trailer is inconsistent", offset: trailer) }
            offsets = []
            offsets.reserveCapacity(count)
            for index in 0..<count {
                offsets.append(try unsigned(at: tableStart + index * offsetSize, size: offsetSize))
            }
            return try object(top)
        }

        func raw(at offset: Int, size: Int) throws(PlistFormatError) -> UInt64 {
            guard offset >= 0, offset + size <= bytes.count, size <= 8 else {
                throw PlistFormatError(message: "truncated property list", offset: offset)
            }
            var value: UInt64 = 0
            for i in 0..<size { value = value << 8 | UInt64(bytes[offset + i]) }
            return value
        }

        func unsigned(at offset: Int, size: Int) throws(PlistFormatError) -> Int {
            let value = try raw(at: offset, size: size)
            guard value <= UInt64(Int.max) else { throw PlistFormatError(message: "offset out of range", offset: offset) }
            return Int(value)
        }

        /// The length that follows a marker: in its low nibble, or as an integer object when that is 0xF.
        func length(marker: UInt8, at offset: Int) throws(PlistFormatError) -> (count: Int, start: Int) {
            let nibble = Int(marker & 0x0F)
            guard nibble == 0x0F else { return (nibble, offset + 1) }
            guard offset + 1 < bytes.count, bytes[offset + 1] & 0xF0 == 0x10 else {
                throw PlistFormatError(message: "malformed length", offset: offset + 1)
            }
            let size = 1 << Int(bytes[offset + 1] & 0x0F)
            return (try unsigned(at: offset + 2, size: size), offset + 2 + size)
        }

        mutating func object(_ index: Int) throws(PlistFormatError) -> PlistValue {
            guard index >= 0, index < offsets.count else {
                throw PlistFormatError(message: "object reference \(index) out of range", offset: nil)
            }
            guard inProgress.insert(index).inserted else {
                throw PlistFormatError(message: "the property list refers to itself", offset: offsets[index])
            }
            defer { inProgress.remove(index) }
            let offset = offsets[index]
            guard offset < bytes.count else { throw PlistFormatError(message: "truncated property list", offset: offset) }
            let marker = bytes[offset]
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x00: return .null
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: throw PlistFormatError(message: "unknown marker \(marker)", offset: offset)
                }
            case 0x1:
                let size = 1 << Int(marker & 0x0F)
                // 8-byte integers are signed; shorter ones are unsigned. (16-byte ones keep their low half.)
                let value = try raw(at: offset + 1 + max(0, size - 8), size: min(size, 8))
                return .integer(Int64(bitPattern: value))
            case 0x2:
                return .real(try real(at: offset + 1, size: 1 << Int(marker & 0x0F)))
            case 0x3:
                return .date(try real(at: offset + 1, size: 8))
            case 0x4, 0x5, 0x6:
                let (count, start) = try length(marker: marker, at: offset)
                let byteCount = marker >> 4 == 0x6 ? count * 2 : count
                guard start + byteCount <= bytes.count else {
                    throw PlistFormatError(message: "truncated property list", offset: start)
                }
                let slice = Array(bytes[start..<(start + byteCount)])
                switch marker >> 4 {
                case 0x4: return .data(Data(slice))
                case 0x5: return .string(String(decoding: slice, as: UTF8.self))
                default:
                    let units = stride(from: 0, to: slice.count, by: 2).map { UInt16(slice[$0]) << 8 | UInt16(slice[$0 + 1]) }
                    return .string(String(decoding: units, as: UTF16.self))
                }
            case 0x8:
                return .uid(try unsigned(at: offset + 1, size: Int(marker & 0x0F) + 1))
            case 0xA, 0xC:
                let (count, start) = try length(marker: marker, at: offset)
                var items: [PlistValue] = []
                for i in 0..<count {
                    items.append(try object(try unsigned(at: start + i * referenceSize, size: referenceSize)))
                }
                return .array(items)
            case 0xD:
                let (count, start) = try length(marker: marker, at: offset)
                var entries: [String: PlistValue] = [:]
                for i in 0..<count {
                    let key = try object(try unsigned(at: start + i * referenceSize, size: referenceSize))
                    guard case .string(let name) = key else {
                        throw PlistFormatError(message: "a dictionary key is not a string", offset: start)
                    }
                    let valueReference = try unsigned(at: start + (count + i) * referenceSize, size: referenceSize)
                    entries[name] = try object(valueReference)
                }
                return .dictionary(entries)
            default:
                throw PlistFormatError(message: "unknown marker \(marker)", offset: offset)
            }
        }

        func real(at offset: Int, size: Int) throws(PlistFormatError) -> Double {
            switch size {
            case 4: return Double(Float(bitPattern: UInt32(try raw(at: offset, size: 4))))
            case 8: return Double(bitPattern: try raw(at: offset, size: 8))
            default: throw PlistFormatError(message: "unsupported real size \(size)", offset: offset)
            }
        }
    }
}
