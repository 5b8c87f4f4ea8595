import Foundation

/// A reader for binary property lists (`bplist00`) that checks every offset, count and reference.
///
/// Compiled models are binary property lists, and they come from app bundles, not from the user: a
/// truncated copy or a tampered file must be an error. (Mapping models' archived expressions and user
/// info, base64 inside `xcmapping.xml`, are binary property lists too, and are read through
/// ``KeyedArchive`` with this same reader.) `PropertyListSerialization` on Linux is not safe
/// for that: corrupting a single byte of a real `.mom` (a UID marker turned into a dictionary marker)
/// crashes the process with a bad pointer dereference while Foundation bridges the result. This reader
/// builds ``PlistNode``s directly, never a Foundation collection, and bounds the work it does by
/// ``ArchiveLimits``: the file's size and object count are checked from its trailer, then the graph is
/// measured (``Footprint``: per-container reference counts, depth, nodes and bytes once shared objects
/// are expanded, cycles) in one memoised pass over the objects, and only a graph within every bound is
/// built. A container repeating one object millions of times, or nested containers sharing each other,
/// is refused with the bound it passed and the exact figure, before a single node exists.
struct BinaryPropertyList {
    static let maximumDepth = ArchiveLimits.depth

    struct Failure: Error {
        var message: String
        /// Set when the file is well formed but passes one of ``ArchiveLimits``.
        var limit: ArchiveLimitPassed?

        init(message: String) { self.message = message }

        init(_ passed: ArchiveLimitPassed) {
            self.message = passed.description
            self.limit = passed
        }
    }

    /// What the graph under the top object expands to, measured before it is built.
    struct Footprint: Equatable {
        /// Nodes, a shared object counted once per reference to it.
        var nodes = 0
        /// Deepest nesting below the top object.
        var depth = 0
        /// Bytes of strings and data, a shared one counted per reference.
        var bytes = 0
        /// Most references in one container (dictionary entries count once).
        var largestContainer = 0
        /// Objects whose footprint the measuring pass computed: each once, so the work is bounded by
        /// the file (tests count it).
        var objectsMeasured = 0
    }

    let bytes: [UInt8]
    let offsets: [Int]
    let referenceSize: Int
    private var budget: Int
    /// Nodes built so far (at most ``Footprint/nodes``, which the measuring pass bounded).
    private(set) var nodesBuilt = 0

    static func isBinary(_ data: Data) -> Bool { data.starts(with: Array("bplist0".utf8)) }

    /// Parses `data`, which must start with `bplist00`, into its top object.
    static func parse(_ data: Data) throws(Failure) -> PlistNode {
        var reader = try BinaryPropertyList(bytes: [UInt8](data))
        _ = try reader.measure()
        return try reader.node(reader.topReference, depth: 0)
    }

    /// Checks `data` against ``ArchiveLimits`` and measures its graph without building it.
    static func footprint(_ data: Data) throws(Failure) -> Footprint {
        try BinaryPropertyList(bytes: [UInt8](data)).measure()
    }

    private(set) var topReference = 0

    private init(bytes: [UInt8]) throws(Failure) {
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist00".utf8)) else {
            throw Failure(message: "too short for a binary property list, or not one")
        }
        guard bytes.count <= ArchiveLimits.bytes else {
            throw Failure(ArchiveLimitPassed(.bytes, found: bytes.count, maximum: ArchiveLimits.bytes))
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let objectCount = Self.bigEndian(bytes[(trailer + 8)..<(trailer + 16)])
        let top = Self.bigEndian(bytes[(trailer + 16)..<(trailer + 24)])
        let tableStart = Self.bigEndian(bytes[(trailer + 24)..<(trailer + 32)])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw Failure(message: "the trailer gives invalid integer sizes")
        }
        guard let objectCount, let top, let tableStart, objectCount > 0, top < objectCount, tableStart >= 8,
            tableStart <= trailer, objectCount <= (trailer - tableStart) / offsetSize
        else {
            throw Failure(message: "the trailer's object count, top object or offset table is out of range")
        }
        guard objectCount <= ArchiveLimits.objects else {
            throw Failure(ArchiveLimitPassed(.objects, found: objectCount, maximum: ArchiveLimits.objects))
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(objectCount)
        for index in 0..<objectCount {
            let start = tableStart + index * offsetSize
            guard let offset = Self.bigEndian(bytes[start..<(start + offsetSize)]), offset >= 8, offset < tableStart
            else { throw Failure(message: "object \(index) has an offset outside the object area") }
            offsets.append(offset)
        }
        self.bytes = bytes
        self.offsets = offsets
        self.topReference = top
        // The measuring pass bounds the nodes; the budget only guards that the build agrees with it.
        self.budget = ArchiveLimits.totalReferences
    }

    /// An unsigned big-endian integer of up to 8 bytes; nil when it is wider or does not fit an `Int`.
    private static func bigEndian(_ slice: ArraySlice<UInt8>) -> Int? {
        guard slice.count <= 8 else { return nil }
        var value: UInt64 = 0
        for byte in slice { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    private mutating func node(_ reference: Int, depth: Int) throws(Failure) -> PlistNode {
        guard reference >= 0, reference < offsets.count else {
            throw Failure(message: "a reference to object \(reference) is out of range (\(offsets.count) objects)")
        }
        guard depth <= Self.maximumDepth else { throw Failure(message: "nesting deeper than \(Self.maximumDepth)") }
        budget -= 1
        nodesBuilt += 1
        guard budget >= 0 else {
            throw Failure(ArchiveLimitPassed(.totalReferences, found: nodesBuilt, maximum: ArchiveLimits.totalReferences))
        }
        let start = offsets[reference]
        let marker = bytes[start]
        let (kind, low) = (marker >> 4, Int(marker & 0x0F))
        switch kind {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            default:
                throw Failure(message: "object \(reference) has an unknown type marker 0x\(String(marker, radix: 16))")
            }
        case 0x1: return .integer(try integer(at: start + 1, exponent: low))
        case 0x2: return .real(try real(at: start + 1, exponent: low))
        case 0x3: return .date(try real(at: start + 1, exponent: 3))
        case 0x4:
            let (count, body) = try length(low, after: start)
            return .data(Data(try slice(body, count)))
        case 0x5:
            let (count, body) = try length(low, after: start)
            guard let text = String(bytes: try slice(body, count), encoding: .ascii) else {
                throw Failure(message: "object \(reference) is not ASCII text")
            }
            return .string(text)
        case 0x6:
            let (count, body) = try length(low, after: start)
            guard count <= bytes.count / 2 else { throw Failure(message: "a string runs past the end of the file") }
            let units = try slice(body, count * 2)
            let utf16 = stride(from: units.startIndex, to: units.endIndex, by: 2).map {
                UInt16(units[$0]) << 8 | UInt16(units[$0 + 1])
            }
            return .string(String(decoding: utf16, as: UTF16.self))
        case 0x8: return .uid(try unsigned(at: start + 1, size: low + 1))
        case 0xA, 0xC:
            let (count, body) = try length(low, after: start)
            var members: [PlistNode] = []
            for member in try references(at: body, count: count) { members.append(try node(member, depth: depth + 1)) }
            return .array(members)
        case 0xD:
            return try dictionary(at: start, low: low, depth: depth)
        default:
            throw Failure(message: "object \(reference) has an unknown type marker 0x\(String(marker, radix: 16))")
        }
    }

    private mutating func dictionary(at start: Int, low: Int, depth: Int) throws(Failure) -> PlistNode {
        let (count, body) = try length(low, after: start)
        let keys = try references(at: body, count: count)
        let values = try references(at: body + count * referenceSize, count: count)
        var result: [String: PlistNode] = [:]
        for (key, value) in zip(keys, values) {
            guard case .string(let name) = try node(key, depth: depth + 1) else {
                throw Failure(message: "a dictionary key is not a string")
            }
            result[name] = try node(value, depth: depth + 1)
        }
        // The XML spelling of a reference, {"CF$UID": n}, which CF also turns into a UID; archives written
        // through PropertyListSerialization (tests, scripts) can only spell references this way.
        if result.count == 1, case .integer(let uid)? = result["CF$UID"], uid >= 0 { return .uid(uid) }
        return .dictionary(result)
    }

    private func slice(_ start: Int, _ count: Int) throws(Failure) -> ArraySlice<UInt8> {
        guard count >= 0, start >= 0, start <= bytes.count, count <= bytes.count - start else {
            throw Failure(message: "an object runs past the end of the file")
        }
        return bytes[start..<(start + count)]
    }

    private func unsigned(at start: Int, size: Int) throws(Failure) -> Int {
        guard let value = Self.bigEndian(try slice(start, size)) else {
            throw Failure(message: "an integer does not fit in 63 bits")
        }
        return value
    }

    /// Integers are 1, 2, 4 or 8 bytes (8-byte ones signed), or 16 bytes for values above `Int64.max`.
    private func integer(at start: Int, exponent: Int) throws(Failure) -> Int {
        guard exponent <= 4 else { throw Failure(message: "an integer has an invalid size") }
        let size = 1 << exponent
        let body = try slice(start, size)
        if size == 8 {
            var value: UInt64 = 0
            for byte in body { value = value << 8 | UInt64(byte) }
            return Int(Int64(bitPattern: value))
        }
        if size == 16 {
            guard body.prefix(8).allSatisfy({ $0 == 0 }) else { throw Failure(message: "an integer exceeds 64 bits") }
            return try unsigned(at: start + 8, size: 8)
        }
        return try unsigned(at: start, size: size)
    }

    private func real(at start: Int, exponent: Int) throws(Failure) -> Double {
        switch exponent {
        case 2: return Double(Float(bitPattern: UInt32(try unsigned(at: start, size: 4))))
        case 3:
            var value: UInt64 = 0
            for byte in try slice(start, 8) { value = value << 8 | UInt64(byte) }
            return Double(bitPattern: value)
        default: throw Failure(message: "a real number has an invalid size")
        }
    }

    /// The element count in a marker's low nibble, or (for 0xF) in the integer object that follows.
    func length(_ low: Int, after start: Int) throws(Failure) -> (count: Int, body: Int) {
        guard low == 0x0F else { return (low, start + 1) }
        guard start + 1 < bytes.count, bytes[start + 1] >> 4 == 0x1 else {
            throw Failure(message: "a length is not followed by an integer")
        }
        let exponent = Int(bytes[start + 1] & 0x0F)
        guard exponent <= 3 else { throw Failure(message: "a length has an invalid size") }
        return (try unsigned(at: start + 2, size: 1 << exponent), start + 2 + (1 << exponent))
    }

    func references(at start: Int, count: Int) throws(Failure) -> [Int] {
        guard count <= (bytes.count - min(start, bytes.count)) / referenceSize else {
            throw Failure(message: "a collection runs past the end of the file")
        }
        var result: [Int] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            result.append(try unsigned(at: start + index * referenceSize, size: referenceSize))
        }
        return result
    }
}
