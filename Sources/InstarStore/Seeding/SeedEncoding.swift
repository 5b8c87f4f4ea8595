import Foundation
import InstarModel

/// How a layout stores the types it stores differently (dates, UUIDs, inline blobs that may live
/// outside the store), learned from the layout itself rather than from its name.
///
/// A layout's ``StoreLayout/storedDefault(of:)`` already converts a model's default (a date as seconds
/// since 2001, a UUID string) into the column's form, and ``StoreLayout/convert(_:from:to:)`` says which
/// bytes mark an inline external-storage blob; asking them once per seed keeps this file free of
/// per-layout branches, so a new layout is seeded right without touching it.
package struct SeedEncoding: Sendable {
    package enum DateForm: Sendable {
        /// A real number of seconds from 2001-01-01 plus `offset` (Core Data: 0; seconds since 1970:
        /// 978 307 200).
        case seconds(offset: Double)
        /// ISO-8601 text in UTC with milliseconds (`2001-01-01T00:00:00.000Z`).
        case isoText
    }

    package enum UUIDForm: Sendable {
        case bytes
        case text
    }

    package var date: DateForm
    package var uuid: UUIDForm

    package init(layout: any StoreLayout) {
        switch layout.storedDefault(of: Attribute(name: "probe", type: .date, defaultValue: "0")) {
        case .real(let offset)?: date = .seconds(offset: offset)
        case .integer(let offset)?: date = .seconds(offset: Double(offset))
        default: date = .isoText
        }
        let probe = Attribute(name: "probe", type: .uuid, defaultValue: "00000000-0000-0000-0000-000000000000")
        if case .blob? = layout.storedDefault(of: probe) { uuid = .bytes } else { uuid = .text }
    }

    /// The bytes a layout puts before an inline value of `attribute` (Core Data's `0x01` tag when the
    /// attribute allows external storage), or empty.
    package static func blobPrefix(of attribute: Attribute, layout: any StoreLayout) -> Data {
        var inline = attribute
        inline.allowsExternalBinaryDataStorage = false
        if case .prefixed(_, let bytes) = layout.convert(.column("probe"), from: inline, to: attribute) { return bytes }
        return Data()
    }

    /// The column value of a generated scalar.
    package func stored(_ scalar: SeedScalar, blobPrefix: Data) -> SQLValue {
        switch scalar {
        case .integer(let v): return .integer(v)
        case .real(let v): return .real(v)
        case .text(let v): return .text(v)
        case .bytes(let v): return .blob(blobPrefix.isEmpty ? v : blobPrefix + v)
        case .date(let ms):
            switch date {
            case .seconds(let offset): return .real(Double(ms) / 1000 + offset)
            case .isoText: return .text(Self.isoText(millisecondsSince2001: ms))
            }
        case .uuid(let bytes):
            switch uuid {
            case .bytes: return .blob(bytes)
            case .text: return .text(Self.uuidText(bytes))
            }
        }
    }

    /// `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX`, uppercase like Foundation's `uuidString`.
    static func uuidText(_ bytes: Data) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text ``InstarLayout`` writes for a date, computed without a formatter (one per million rows
    /// would dominate the run): civil date from the day count, proleptic Gregorian, UTC.
    static func isoText(millisecondsSince2001 ms: Int64) -> String {
        let unixMs = ms + 978_307_200_000
        let (days, msOfDay) = floorDivide(unixMs, 86_400_000)
        // Days since 1970-01-01 → year, month, day (the era-based algorithm, eras of 400 years).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let (h, m, s, milli) = (msOfDay / 3_600_000, msOfDay / 60_000 % 60, msOfDay / 1000 % 60, msOfDay % 1000)
        func pad(_ v: Int64, _ width: Int) -> String {
            let text = String(v)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(h, 2)):\(pad(m, 2)):\(pad(s, 2)).\(pad(milli, 3))Z"
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }
}
