import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore

/// Everyday values of each type, after the edge rows: the bulk of a seeded store, meant to look like
/// an app's data (words, amounts, recent dates) so that migrations and hooks meet plausible content.
package enum SeedOrdinaryValues {
    /// A value for row `index` of the column whose stream is `stream`.
    package static func value(for type: AttributeType, stream: UInt64, index: UInt64) -> SeedScalar? {
        let r = SeedRandom.value(stream, index)
        switch type {
        case .integer16: return .integer(Int64(r % 2000) - 200)
        case .integer32: return .integer(Int64(r % 2_000_000) - 100_000)
        case .integer64: return .integer(Int64(bitPattern: r) >> 20)
        case .boolean: return .integer(Int64(r & 1))
        case .double: return .real((SeedRandom.unit(stream, index) - 0.25) * 20_000)
        case .float: return .real(Double(Float(SeedRandom.unit(stream, index) * 1000)))
        case .decimal: return .real(Double(Int64(r % 10_000_000) - 1_000_000) / 100)
        case .string: return .text(phrase(r))
        case .uri: return .text(text { uri(r, into: &$0) })
        case .date:
            // 2010-01-01 … 2030-01-01, whole milliseconds.
            let start: Int64 = 283_996_800_000
            return .date(milliseconds: start + Int64(r % 631_152_000_000))
        case .uuid: return .uuid(uuidBytes(r, SeedRandom.value(stream ^ 0x5555, index)))
        case .binary, .transformable:
            var bytes: [UInt8] = []
            blob(stream: stream, index: index, into: &bytes)
            return .bytes(Data(bytes))
        case .undefined, .objectID, .composite: return nil
        }
    }

    /// One to four words, capitalised like a title.
    static func phrase(_ r: UInt64) -> String { text { phrase(r, into: &$0) } }

    /// The UTF-8 bytes of ``phrase(_:)``, appended to `bytes`: the seeding loop binds them from a reused
    /// buffer, so that no `String` is built per row. ``phrase(_:)`` is made from this, so both agree.
    static func phrase(_ r: UInt64, into bytes: inout [UInt8]) {
        let count = Int(r >> 60) % 4 + 1
        var x = r
        for n in 0..<count {
            if n > 0 { bytes.append(UInt8(ascii: " ")) }
            bytes.append(contentsOf: capitalised[Int(x % UInt64(vocabulary.count))])
            x = SeedRandom.mix(x)
        }
    }

    /// The bytes of an ordinary URI value, appended to `bytes`.
    static func uri(_ r: UInt64, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: "https://example.com/".utf8)
        bytes.append(contentsOf: word(r).utf8)
        bytes.append(UInt8(ascii: "/"))
        decimal(Int64(r % 100_000), into: &bytes)
    }

    /// The bytes of an ordinary binary value (8 to 64 of them), appended to `bytes`.
    static func blob(stream: UInt64, index: UInt64, into bytes: inout [UInt8]) {
        let count = Int(SeedRandom.value(stream, index) % 57) + 8
        var x = SeedRandom.value(stream ^ 0xAAAA, index)
        for i in 0..<count {
            if i % 8 == 0 { x = SeedRandom.mix(x &+ SeedRandom.gamma) }
            bytes.append(UInt8(truncatingIfNeeded: x >> UInt64((i % 8) * 8)))
        }
    }

    /// `value` in decimal, as `String(value)` writes it, appended to `bytes`.
    static func decimal(_ value: Int64, into bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    /// A `String` from bytes a writer appends.
    static func text(_ write: (inout [UInt8]) -> Void) -> String {
        var bytes: [UInt8] = []
        write(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func word(_ r: UInt64) -> String { vocabulary[Int(r % UInt64(vocabulary.count))] }

    /// The words with their first character upper-cased, as UTF-8, computed once.
    static let capitalised: [[UInt8]] = vocabulary.map { Array(($0.prefix(1).uppercased() + $0.dropFirst()).utf8) }

    /// A version-4 UUID's bytes from two random words.
    static func uuidBytes(_ a: UInt64, _ b: UInt64) -> Data {
        var bytes: [UInt8] = []
        uuidBytes(a, b, into: &bytes)
        return Data(bytes)
    }

    /// The same, appended to `bytes`.
    static func uuidBytes(_ a: UInt64, _ b: UInt64, into bytes: inout [UInt8]) {
        let start = bytes.count
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: a >> UInt64(i * 8))) }
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: b >> UInt64(i * 8))) }
        bytes[start + 6] = (bytes[start + 6] & 0x0F) | 0x40
        bytes[start + 8] = (bytes[start + 8] & 0x3F) | 0x80
    }

    /// Plain and accented words (a few non-Latin), so ordinary rows are not all ASCII either.
    static let vocabulary: [String] = [
        "amber", "basil", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper",
        "kestrel", "lantern", "meadow", "nectar", "orchid", "pepper", "quartz", "raven", "saffron", "timber",
        "umber", "velvet", "willow", "xenon", "yarrow", "zephyr", "copper", "maple", "granite", "lagoon",
        "café", "naïve", "jalapeño", "façade", "smörgås", "crème", "Ærø", "München", "東京", "Δέλτα",
        "смородина", "piñata", "garçon", "über", "señor", "tōfu", "fiancée", "résumé",
    ]
}

/// Values that are distinct by construction, for the attribute that carries a uniqueness constraint:
/// each is derived from the row's primary key, which is new (seeding hands out keys after the highest
/// one), so no two seeded rows, now or in an earlier seed, share one.
package enum SeedUniqueValues {
    /// The unique value of a row, or nil for a type that cannot be made distinct this way.
    package static func value(for type: AttributeType, key: Int64, index: UInt64, stream: UInt64) -> SeedScalar? {
        switch type {
        case .integer16, .integer32, .integer64: return .integer(key)
        case .double, .decimal, .float: return .real(Double(key))
        case .string:
            // The first rows carry the non-ASCII and quoted edges too, made distinct by the key.
            let edges = SeedEdgeValues.strings
            let stem = index < 2 ? edges[Int(index) + 1] : SeedOrdinaryValues.phrase(SeedRandom.value(stream, index))
            return .text("\(stem) #\(key)")
        case .uri: return .text("https://example.com/items/\(key)")
        case .date: return .date(milliseconds: 631_152_000_000 + key * 60_000)
        case .uuid:
            var bytes = SeedOrdinaryValues.uuidBytes(SeedRandom.value(stream, index), 0)
            for i in 0..<8 { bytes[8 + i] = UInt8(truncatingIfNeeded: key >> Int64((7 - i) * 8)) }
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            return .uuid(bytes)
        case .binary, .transformable:
            return .bytes(Data((0..<8).map { UInt8(truncatingIfNeeded: key >> Int64((7 - $0) * 8)) }))
        case .boolean, .undefined, .objectID, .composite: return nil
        }
    }

    /// The highest key whose derived value is still distinct and storable, for refusals.
    package static func keyLimit(for type: AttributeType) -> Int64? {
        switch type {
        case .integer16: Int64(Int16.max)
        case .integer32: Int64(Int32.max)
        case .float: 1 << 24
        // Byte 8 of the UUID keeps the variant bits: keys below 2^62 stay distinct.
        case .uuid: 1 << 62
        case .boolean, .undefined, .objectID, .composite: 0
        default: nil
        }
    }
}
