import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

extension ValueEncoding {
    /// The stored form of an attribute's default in this encoding, or nil when it has none (or one this
    /// type cannot hold: binary data, a UUID Core Data could not parse). Every layout stores defaults
    /// the way it stores values, so the answer depends on the encoding only: dates (which Xcode writes
    /// as seconds since 2001) as this encoding's dates, UUIDs as its UUIDs, the rest as typed values.
    package func storedDefault(of attribute: Attribute) -> SQLValue? {
        guard let text = attribute.defaultValue else { return nil }
        switch attribute.type {
        case .date:
            guard let seconds = Double(text) else { return nil }
            switch storedDate(secondsSinceReferenceDate: seconds) {
            case .real(let value): return .real(value)
            case .text(let value): return .text(value)
            }
        case .uuid:
            switch uuids {
            case .text: return .text(text)
            case .bytes:
                guard let uuid = UUID(uuidString: text) else { return nil }
                return .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
            }
        default:
            break
        }
        switch DefaultValue.typed(text, for: attribute.type) {
        case .integer(let v)?: return .integer(v)
        case .real(let v)?: return .real(v)
        case .boolean(let v)?: return .integer(v ? 1 : 0)
        case .text(let v)?: return .text(v)
        case nil: return nil
        }
    }
}
