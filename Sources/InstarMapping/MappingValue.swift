import Foundation

/// A constant as a mapping model holds it: in an expression (`"3.0.0"`, `YES`, `0.2`, a date) or in a
/// user-info dictionary.
///
/// Booleans are kept apart from integers because Core Data's archives keep them apart and a report
/// should show `YES`, not `1`; dates are seconds since 2001-01-01 00:00:00 UTC, which is also how Core
/// Data stores them in SQLite, so translating a date constant is the identity.
package indirect enum MappingValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    /// Seconds since 2001-01-01 00:00:00 UTC (`NSDate.timeIntervalSinceReferenceDate`).
    case date(Double)
    case data(Data)
    case array([MappingValue])
    case dictionary([String: MappingValue])
}

extension MappingValue: CustomStringConvertible {
    /// The value in NSPredicate format syntax where it has one (strings in double quotes with backslash
    /// escapes, `YES`/`NO`, `nil`, `CAST(…, "NSDate")` for dates).
    package var description: String {
        switch self {
        case .null: "nil"
        case .bool(let value): value ? "YES" : "NO"
        case .integer(let value): String(value)
        case .real(let value): MappingValue.format(value)
        case .string(let text): MappingValue.quote(text)
        case .date(let seconds): "CAST(\(MappingValue.format(seconds)), \"NSDate\")"
        case .data(let bytes): "<\(bytes.map { String(format: "%02x", $0) }.joined())>"
        case .array(let items): "{" + items.map(\.description).joined(separator: ", ") + "}"
        case .dictionary(let entries):
            "{" + entries.keys.sorted().map { "\(MappingValue.quote($0)): \(entries[$0]!)" }.joined(separator: ", ") + "}"
        }
    }

    /// A double without a needless `.0` noise for whole numbers beyond what Swift prints.
    static func format(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) + ".0" }
        return String(value)
    }

    /// A string literal in the format syntax: double quotes, backslash escapes for `"`, `\` and controls.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
