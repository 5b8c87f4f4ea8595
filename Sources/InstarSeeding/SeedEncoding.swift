import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// How a seed's scalars are stored by a layout: its ``ValueEncoding`` (dates, UUIDs) and the bytes
/// that mark an inline external-storage blob, learned from the layout itself rather than from its name,
/// so a new layout is seeded right without touching this file.
package struct SeedEncoding: Sendable {
    package var values: ValueEncoding

    package init(layout: any StoreLayout) {
        values = layout.valueEncoding
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
            switch values.storedDate(millisecondsSinceReferenceDate: ms) {
            case .real(let v): return .real(v)
            case .text(let v): return .text(v)
            }
        case .uuid(let bytes):
            switch values.uuids {
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
}
