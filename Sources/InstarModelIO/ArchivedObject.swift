import Foundation

/// One archived class instance: its class chain and its encoded fields, with typed, checked accessors.
///
/// Accessors mirror `NSCoder`'s keyed decoding: an absent key is `nil` (or `false`), never an error,
/// because encoders leave out defaults (Core Data writes `NSIsOptional` only when it is true). A key
/// that is present with the wrong shape is an error naming this object and the key.
package struct ArchivedObject {
    let archive: KeyedArchive
    /// Position in `$objects`, for messages.
    package let index: Int
    /// `$classes`, most derived first (`NSAttributeDescription`, `NSPropertyDescription`, `NSObject`).
    package let classChain: [String]
    let fields: [String: PlistNode]

    package var className: String { classChain.first ?? "?" }

    /// "object $objects[12] of class NSAttributeDescription", the subject of every message about it.
    package var label: String { "object $objects[\(index)] of class \(className)" }

    package func isKind(of name: String) -> Bool { classChain.contains(name) }

    package func has(_ key: String) -> Bool { fields[key] != nil }

    /// The encoded keys, sorted (`$class` left out), for messages about an object this reader did not expect.
    package var fieldNames: [String] { fields.keys.filter { $0 != "$class" }.sorted() }

    // MARK: - Inline scalars

    package func integer(_ key: String) throws(KeyedArchiveError) -> Int? {
        guard let node = fields[key] else { return nil }
        switch node {
        case .integer(let value): return value
        case .boolean(let value): return value ? 1 : 0
        default: throw wrongShape(key, expected: "an integer", node: node)
        }
    }

    package func real(_ key: String) throws(KeyedArchiveError) -> Double? {
        guard let node = fields[key] else { return nil }
        switch node {
        case .real(let value), .date(let value): return value
        case .integer(let value): return Double(value)
        default: throw wrongShape(key, expected: "a number", node: node)
        }
    }

    /// A flag; absent means false, as `decodeBool(forKey:)` reads it.
    package func bool(_ key: String) throws(KeyedArchiveError) -> Bool {
        guard let node = fields[key] else { return false }
        switch node {
        case .boolean(let value): return value
        case .integer(let value): return value != 0
        default: throw wrongShape(key, expected: "a boolean", node: node)
        }
    }

    package func data(_ key: String) throws(KeyedArchiveError) -> Data? {
        guard let node = fields[key] else { return nil }
        guard case .data(let data) = node else { throw wrongShape(key, expected: "data", node: node) }
        return data
    }

    // MARK: - References

    /// The value `key` refers to; `.null` when the key is absent or refers to `$null`.
    package func value(_ key: String) throws(KeyedArchiveError) -> ArchivedValue {
        guard let node = fields[key] else { return .null }
        if case .uid(let uid) = node { return try archive.value(at: uid, from: "\(label), key \(key)") }
        // Keyed archives store strings and numbers by reference, but an inline value is not ambiguous.
        if let scalar = node.scalar { return scalar }
        throw wrongShape(key, expected: "a reference", node: node)
    }

    /// The string `key` refers to, or nil for `$null`/absent.
    package func string(_ key: String) throws(KeyedArchiveError) -> String? {
        switch try value(key) {
        case .null: return nil
        case .string(let text): return text
        case .object(let object) where object.isKind(of: "NSString"):
            return try object.string("NS.string")
        case let other: throw malformed("\(key) is \(other.kindName), expected a string")
        }
    }

    package func requiredString(_ key: String) throws(KeyedArchiveError) -> String {
        guard let text = try string(key) else { throw missing(key) }
        return text
    }

    /// The archived object `key` refers to, or nil for `$null`/absent.
    package func object(_ key: String) throws(KeyedArchiveError) -> ArchivedObject? {
        switch try value(key) {
        case .null: return nil
        case .object(let object): return object
        case let other: throw malformed("\(key) is \(other.kindName), expected an archived object")
        }
    }

    // MARK: - Collections

    /// The members of an archived `NSArray`, `NSSet` or `NSOrderedSet` (`NS.objects`), in archive order.
    package func elements() throws(KeyedArchiveError) -> [ArchivedValue] {
        try references("NS.objects").map { (uid) throws(KeyedArchiveError) in
            try archive.value(at: uid, from: "\(label), NS.objects")
        }
    }

    /// The entries of an archived `NSDictionary` (`NS.keys` paired with `NS.objects`), or of Core Data's
    /// `NSKnownKeysDictionary1`.
    ///
    /// The model a store caches in `Z_MODELCACHE` (and SwiftData's) keeps its entities in an
    /// `NSKnownKeysDictionary1`: no `NS.keys`/`NS.objects`, but `searchMapping` (an
    /// `NSKnownKeysMappingStrategy1` whose `keys` is an array) and `values` (an array of the same length).
    /// Read as a plain dictionary it would be empty, which is how such caches once read as models
    /// without entities.
    package func entries() throws(KeyedArchiveError) -> [(key: ArchivedValue, value: ArchivedValue)] {
        if !has("NS.keys"), !has("NS.objects"), has("searchMapping") || has("values") {
            return try knownKeysEntries()
        }
        let keys = try references("NS.keys")
        let values = try references("NS.objects")
        guard keys.count == values.count else {
            throw malformed("NS.keys has \(keys.count) entries but NS.objects has \(values.count)")
        }
        var result: [(key: ArchivedValue, value: ArchivedValue)] = []
        for (key, value) in zip(keys, values) {
            result.append(
                (
                    try archive.value(at: key, from: "\(label), NS.keys"),
                    try archive.value(at: value, from: "\(label), NS.objects")
                ))
        }
        return result
    }

    /// `NSKnownKeysDictionary1`: the keys of `searchMapping.keys` paired with the elements of `values`.
    private func knownKeysEntries() throws(KeyedArchiveError) -> [(key: ArchivedValue, value: ArchivedValue)] {
        guard let mapping = try object("searchMapping") else { throw missing("searchMapping") }
        guard let keyArray = try mapping.object("keys") else { throw mapping.missing("keys") }
        guard let valueArray = try object("values") else { throw missing("values") }
        let keys = try keyArray.elements()
        let values = try valueArray.elements()
        guard keys.count == values.count else {
            throw malformed("searchMapping has \(keys.count) keys but values has \(values.count) elements")
        }
        // A slot holding `emptyToken` has no value: skip it, as the dictionary's own lookup does.
        let empty = try string("emptyToken")
        return zip(keys, values).compactMap { key, value in
            if case .string(let text) = value, text == empty { return nil }
            return (key: key, value: value)
        }
    }

    /// The references in an array field; absent means empty.
    private func references(_ key: String) throws(KeyedArchiveError) -> [Int] {
        guard let node = fields[key] else { return [] }
        guard case .array(let items) = node else { throw wrongShape(key, expected: "an array", node: node) }
        var uids: [Int] = []
        for (position, item) in items.enumerated() {
            guard case .uid(let uid) = item else { throw malformed("\(key)[\(position)] is not a reference") }
            uids.append(uid)
        }
        return uids
    }

    // MARK: - Errors

    package func malformed(_ problem: String) -> KeyedArchiveError {
        KeyedArchiveError(file: archive.file, .malformed(at: label, problem: problem))
    }

    package func missing(_ key: String) -> KeyedArchiveError {
        KeyedArchiveError(file: archive.file, .missingKey(at: label, key: key))
    }

    private func wrongShape(_ key: String, expected: String, node: PlistNode) -> KeyedArchiveError {
        malformed("\(key) is \(node.kindName), expected \(expected)")
    }
}
