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
