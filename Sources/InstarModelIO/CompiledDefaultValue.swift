import Foundation
@_spi(Layouts) import InstarModel

/// Turns an archived default value back into the text Xcode keeps in `defaultValueString`.
///
/// Instar keeps defaults as text (``Attribute/defaultValue``), as the XML does, while momc stores
/// typed objects: `NSNumber`s, `NSDecimalNumber`s, `NSDate`s. Writing them back in Xcode's spelling
/// (`YES`/`NO` for Booleans, `0.0` for a decimal archived as mantissa 0, exponent -1) lets a model read
/// from an app's `.mom` and one read from its sources agree. Dates become seconds since 2001, which is
/// what the XML's `defaultDateTimeInterval` holds. Values that the XML cannot express (binary data,
/// transformable objects) are dropped: no default is better than a made-up one.
enum CompiledDefaultValue {
    static func text(of value: ArchivedValue, for type: AttributeType) throws(KeyedArchiveError) -> String? {
        switch value {
        case .null, .data:
            return nil
        case .string(let text):
            return text
        case .boolean(let flag):
            return type == .boolean ? (flag ? "YES" : "NO") : (flag ? "1" : "0")
        case .integer(let number):
            return type == .boolean ? (number != 0 ? "YES" : "NO") : String(number)
        case .real(let number), .date(let number):
            return text(ofReal: number, for: type)
        case .object(let object):
            return try text(of: object, for: type)
        }
    }

    private static func text(ofReal number: Double, for type: AttributeType) -> String {
        if type.isInteger, number.rounded() == number, abs(number) < 9.0e18 { return String(Int64(number)) }
        if type == .boolean { return number != 0 ? "YES" : "NO" }
        return String(number)
    }

    private static func text(of object: ArchivedObject, for type: AttributeType) throws(KeyedArchiveError) -> String? {
        if object.isKind(of: "NSDecimalNumber") { return try decimalText(object) }
        if object.isKind(of: "NSDate") { return try object.real("NS.time").map { text(ofReal: $0, for: .date) } }
        if object.isKind(of: "NSUUID") {
            guard let bytes = try object.data("NS.uuidbytes"), bytes.count == 16 else { return nil }
            let uuid = bytes.withUnsafeBytes { raw in
                UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
            }
            return uuid.uuidString
        }
        if object.isKind(of: "NSURL") {
            guard let relative = try object.string("NS.relative") else { return nil }
            guard let base = try object.object("NS.base"), let baseText = try base.string("NS.relative") else {
                return relative
            }
            return URL(string: relative, relativeTo: URL(string: baseText))?.absoluteString ?? relative
        }
        if object.isKind(of: "NSString") { return try object.string("NS.string") }
        return nil
    }

    /// An archived `NSDecimalNumber`: up to eight little-endian 16-bit mantissa words (`NS.length` of them
    /// in use), a power-of-ten exponent and a sign. Written out digit by digit, so no precision is lost.
    static func decimalText(_ object: ArchivedObject) throws(KeyedArchiveError) -> String? {
        let exponent = try object.integer("NS.exponent") ?? 0
        let isNegative = try object.bool("NS.negative")
        let length = try object.integer("NS.length") ?? 0
        let bytes = [UInt8](try object.data("NS.mantissa") ?? Data())
        // NS.mantissa.bo: 1 is little-endian, the only order Apple platforms write; anything else is big.
        let littleEndian = (try object.integer("NS.mantissa.bo") ?? 1) == 1
        guard (0...8).contains(length), (-128...127).contains(exponent) else {
            throw object.malformed("NS.length \(length) or NS.exponent \(exponent) is out of range for a decimal")
        }
        if length == 0 { return isNegative ? nil : (exponent < 0 ? "0." + String(repeating: "0", count: -exponent) : "0") }
        var words: [UInt16] = []
        for word in 0..<length where word * 2 + 1 < bytes.count {
            let (a, b) = (UInt16(bytes[word * 2]), UInt16(bytes[word * 2 + 1]))
            words.append(littleEndian ? a | b << 8 : a << 8 | b)
        }
        var digits = decimalDigits(ofLittleEndianWords: words)
        if exponent >= 0 {
            if digits != "0" { digits += String(repeating: "0", count: exponent) }
        } else {
            let fraction = -exponent
            if digits.count <= fraction { digits = String(repeating: "0", count: fraction - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -fraction))
        }
        return (isNegative ? "-" : "") + digits
    }

    /// Base-10 digits of an unsigned integer given as 16-bit words, least significant first.
    private static func decimalDigits(ofLittleEndianWords words: [UInt16]) -> String {
        var remaining = Array(words.reversed())  // most significant first
        var digits: [Character] = []
        while remaining.contains(where: { $0 != 0 }) {
            var carry: UInt32 = 0
            for i in remaining.indices {
                let current = carry << 16 | UInt32(remaining[i])
                remaining[i] = UInt16(current / 10)
                carry = current % 10
            }
            digits.append(Character(String(carry)))
        }
        return digits.isEmpty ? "0" : String(digits.reversed())
    }
}
