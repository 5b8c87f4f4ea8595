import Foundation

/// A command's JSON output: a `Codable` value, pretty-printed with sorted keys and unescaped slashes.
///
/// The value is encoded by `JSONEncoder` (with `encoder`'s strategies, e.g. the journal's ISO 8601
/// dates) and written by `JSONSerialization`, whose key order is the one scripts and the golden files
/// have always seen: it compares keys numerically and without case (`a2` before `a10`, `album` before
/// `Artist`), where `JSONEncoder` sorts by code point.
func jsonText<Value: Encodable>(_ value: Value, encoder: JSONEncoder = JSONEncoder()) -> String {
    guard
        let encoded = try? encoder.encode(value),
        let object = try? JSONSerialization.jsonObject(with: encoded, options: [.fragmentsAllowed]),
        let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]),
        let text = String(data: data, encoding: .utf8)
    else { return "{}" }
    return text
}

/// An optional that a JSON output names even without a value, as `null` (`inspect`'s `version`, a
/// step's `mappingModel`): scripts read the key either way. Other optionals are left out when nil.
@propertyWrapper
struct AlwaysPresent<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}
