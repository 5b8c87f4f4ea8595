import Foundation

/// SQL functions that translated mapping SQL may call and SQLite does not have, with their Swift
/// implementations: the runtime registers each one it finds in ``SQLFragment/functions`` (with GRDB,
/// `DatabaseFunction(name, argumentCount:, pure: true) { … evaluate(…) }`).
///
/// They exist to keep Foundation's semantics where SQLite's built-ins differ: `upper()`/`lower()` and
/// `NOCASE` fold ASCII only, `length()` counts code points where NSString counts UTF-16 units, SQLite
/// has no regular expressions, and `CAST(3.0 AS TEXT)` is `"3.0"` where `-[NSNumber stringValue]` is `"3"`.
package enum MappingSQLFunction: String, Sendable, Hashable, Codable, CaseIterable {
    /// `instar_matches(pattern, text, flags)`: NSPredicate `MATCHES` — ICU regex on the whole string;
    /// `flags` contains `c` for `[c]`. 1/0; NULL text → 0.
    case matches = "instar_matches"
    /// `instar_casefold(text)`: case folding for `[c]` comparisons (Unicode, not only ASCII).
    case casefold = "instar_casefold"
    /// `instar_upper(text)` / `instar_lower(text)`: `uppercaseString` / `lowercaseString`.
    case upper = "instar_upper"
    case lower = "instar_lower"
    /// `instar_length(text)`: `-[NSString length]`, in UTF-16 code units.
    case length = "instar_length"
    /// `instar_string_value(x)`: `stringValue` of a number, or the text itself.
    case stringValue = "instar_string_value"
    /// `instar_bool_value(x)`: `boolValue` of a number (non-zero) or of text (`Y`, `y`, `T`, `t` or a
    /// digit 1–9 after optional whitespace, signs and zeros, as `-[NSString boolValue]` reads).
    case boolValue = "instar_bool_value"

    package var argumentCount: Int { self == .matches ? 3 : 1 }

    /// Evaluates the function on SQLite values (NULL as `.null`, integers, reals, text, blobs).
    package func evaluate(_ arguments: [MappingValue]) -> MappingValue {
        switch self {
        case .matches:
            guard arguments.count == 3, case .string(let pattern) = arguments[0],
                let text = Self.text(arguments[1])
            else { return .integer(0) }
            let flags = Self.text(arguments[2]) ?? ""
            return .integer(Self.matches(pattern: pattern, text: text, caseInsensitive: flags.contains("c")) ? 1 : 0)
        case .casefold, .upper, .lower, .length:
            guard let argument = arguments.first, let text = Self.text(argument) else { return .null }
            switch self {
            case .casefold: return .string(text.folding(options: [.caseInsensitive], locale: nil))
            case .upper: return .string(text.uppercased())
            case .lower: return .string(text.lowercased())
            default: return .integer(Int64(text.utf16.count))
            }
        case .stringValue:
            switch arguments.first ?? .null {
            case .integer(let value): return .string(String(value))
            case .real(let value):
                return .string(value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value))
            case .string(let text): return .string(text)
            default: return .null
            }
        case .boolValue:
            switch arguments.first ?? .null {
            case .integer(let value): return .integer(value != 0 ? 1 : 0)
            case .real(let value): return .integer(value != 0 ? 1 : 0)
            case .string(let text): return .integer(Self.boolValue(of: text) ? 1 : 0)
            default: return .null
            }
        }
    }

    static func text(_ value: MappingValue) -> String? {
        switch value {
        case .string(let text): text
        case .integer(let value): String(value)
        case .real(let value): String(value)
        default: nil
        }
    }

    /// ICU regular expression that must match the whole text, as NSPredicate's MATCHES: the pattern is
    /// anchored at the start and at the very end (`\\z`), so an alternation cannot stop at a prefix.
    static func matches(pattern: String, text: String, caseInsensitive: Bool) -> Bool {
        guard
            let regex = try? NSRegularExpression(
                pattern: "(?:" + pattern + ")\\z", options: caseInsensitive ? [.caseInsensitive] : [])
        else { return false }
        let range = NSRange(text.startIndex..., in: text)
        return regex.firstMatch(in: text, options: [.anchored], range: range) != nil
    }

    static func boolValue(of text: String) -> Bool {
        var rest = Substring(text).drop { $0.isWhitespace }
        rest = rest.drop { $0 == "+" || $0 == "-" }
        rest = rest.drop { $0 == "0" }
        guard let first = rest.first else { return false }
        return "YyTt123456789".contains(first)
    }
}
