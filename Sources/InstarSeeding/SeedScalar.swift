import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore

/// A generated attribute value before a layout decides how to store it.
///
/// Dates and UUIDs are the types the layouts store differently (ISO text, seconds since 1970 or since
/// 2001; text or 16 bytes), so they stay abstract here and ``SeedEncoding`` turns them into columns.
package enum SeedScalar: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case bytes(Data)
    /// Whole milliseconds since 2001-01-01 UTC (Core Data's reference date): whole milliseconds, so every
    /// layout's form (text with milliseconds, seconds as a double) is exact and reproducible.
    case date(milliseconds: Int64)
    /// The 16 bytes of a UUID.
    case uuid(Data)
}

/// Values at the edges of each attribute type, written on an entity's first rows so that even a
/// small seed covers them: empty and long strings, non-ASCII text, quotes, the extreme and negative
/// numbers, empty and binary-heavy blobs, dates far from today.
package enum SeedEdgeValues {
    package static func values(for type: AttributeType) -> [SeedScalar] {
        switch type {
        case .integer16: [0, -1, Int64(Int16.min), Int64(Int16.max), 1].map { .integer($0) }
        case .integer32: [0, -1, Int64(Int32.min), Int64(Int32.max)].map { .integer($0) }
        case .integer64: [0, -1, Int64.min, Int64.max].map { .integer($0) }
        case .boolean: [.integer(0), .integer(1)]
        case .double: [0, -1.5, Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude, Double.pi].map { .real($0) }
        case .float:
            [0, -1.5, Double(Float.greatestFiniteMagnitude), -Double(Float.greatestFiniteMagnitude),
                Double(Float.leastNonzeroMagnitude)].map { .real($0) }
        case .decimal: [0, -12_345.67, 9_999_999_999.99, 0.01].map { .real($0) }
        case .string: strings.map { .text($0) }
        case .uri: uris.map { .text($0) }
        case .date: dates.map { .date(milliseconds: $0 * 1000) }
        case .uuid: [.uuid(Data(repeating: 0, count: 16)), .uuid(Data(repeating: 0xFF, count: 16))]
        case .binary, .transformable: blobs.map { .bytes($0) }
        case .undefined, .objectID, .composite: []
        }
    }

    /// The text edges; the second and third are also used, with a suffix, by unique strings.
    package static let strings: [String] = [
        "",
        "Zoë Ångström – Łódź, 東京, Αθήνα, Москва 🚀👩🏽‍💻",
        "O'Brien said \"hi\"; '); DROP TABLE x; --",
        "  padded\ttab\nsecond line\r\n  ",
        "NULL",
        String(repeating: "long text ", count: 200),
    ]

    static let uris: [String] = [
        "https://example.com/",
        "https://例え.テスト/パス?q=a%20b&x='y'#frag",
        "file:///tmp/with%20space/%22quoted%22",
        "mailto:o'brien@example.com",
    ]

    /// Seconds from 2001-01-01: the reference date itself, 1970-01-01, 1901-01-01 (negative, before
    /// the Unix epoch) and 2100-01-01.
    static let dates: [Int64] = [0, -978_307_200, -3_155_673_600, 3_124_137_600]

    static let blobs: [Data] = [
        Data(),
        Data([0]),
        Data((0...255).map { UInt8($0) }),
        Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }),
    ]
}
