import Foundation

/// An `NSKeyedArchiver` archive, read without Objective-C: the object table and the root.
///
/// Xcode writes a property mapping's value expression and a mapping's user info this way. We need
/// only the plain Foundation values (strings, numbers, dates, arrays, dictionaries) and the few
/// NSExpression classes; anything else is reported by class name rather than guessed at.
package struct KeyedArchive: Sendable {
    package let objects: [PlistValue]
    package let root: PlistValue

    package init(data: Data) throws(PlistFormatError) {
        let document = try BinaryPropertyList.read(data)
        guard document["$archiver"]?.string == "NSKeyedArchiver", case .array(let objects)? = document["$objects"],
            let root = document["$top"]?["root"]
        else {
            throw PlistFormatError(message: "not an NSKeyedArchiver archive (no $archiver, $objects or $top.root)")
        }
        self.objects = objects
        self.root = root
    }

    /// The object a value stands for: follows a UID into the object table; other values are inline.
    package func resolve(_ value: PlistValue) throws(PlistFormatError) -> PlistValue {
        guard case .uid(let index) = value else { return value }
        guard index >= 0, index < objects.count else {
            throw PlistFormatError(message: "archive reference \(index) is outside the object table")
        }
        if case .string("$null") = objects[index] { return .null }
        return objects[index]
    }

    /// The class name of an archived object (`NSKeyPathExpression`, `NSMutableArray`, …).
    package func className(of object: PlistValue) throws(PlistFormatError) -> String? {
        guard let reference = object["$class"] else { return nil }
        return try resolve(reference)["$classname"]?.string
    }

    /// A field of an archived object, resolved.
    package func field(_ key: String, of object: PlistValue) throws(PlistFormatError) -> PlistValue? {
        guard let value = object[key] else { return nil }
        let resolved = try resolve(value)
        return resolved == .null ? nil : resolved
    }

    /// The elements of an archived `NSArray`/`NSSet` (their `NS.objects`), resolved.
    package func elements(of object: PlistValue) throws(PlistFormatError) -> [PlistValue] {
        guard case .array(let references)? = object["NS.objects"] else { return [] }
        var items: [PlistValue] = []
        for reference in references { items.append(try resolve(reference)) }
        return items
    }

    /// A Foundation value (string, number, date, data, array, dictionary, null) as a ``MappingValue``.
    /// - Throws: when the object is of another class; the message names it.
    package func value(_ object: PlistValue, depth: Int = 0) throws(PlistFormatError) -> MappingValue {
        guard depth < 64 else { throw PlistFormatError(message: "the archive nests too deeply") }
        let object = try resolve(object)
        switch object {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .string(let text): return .string(text)
        case .date(let seconds): return .date(seconds)
        case .data(let bytes): return .data(bytes)
        case .uid, .array: throw PlistFormatError(message: "an archive object is not a dictionary")
        case .dictionary:
            let name = try className(of: object) ?? "?"
            switch name {
            case "NSString", "NSMutableString":
                return .string(try field("NS.string", of: object)?.string ?? "")
            case "NSDate":
                guard case .real(let seconds)? = try field("NS.time", of: object) else { return .date(0) }
                return .date(seconds)
            case "NSData", "NSMutableData":
                guard case .data(let bytes)? = try field("NS.data", of: object) else { return .data(Data()) }
                return .data(bytes)
            case "NSNull":
                return .null
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
                var items: [MappingValue] = []
                for element in try elements(of: object) { items.append(try value(element, depth: depth + 1)) }
                return .array(items)
            case "NSDictionary", "NSMutableDictionary":
                guard case .array(let keys)? = object["NS.keys"], case .array(let values)? = object["NS.objects"],
                    keys.count == values.count
                else { throw PlistFormatError(message: "an archived dictionary has unequal keys and values") }
                var entries: [String: MappingValue] = [:]
                for (key, value) in zip(keys, values) {
                    let keyValue = try self.value(key, depth: depth + 1)
                    guard case .string(let name) = keyValue else {
                        throw PlistFormatError(message: "a user-info key is not a string: \(keyValue)")
                    }
                    entries[name] = try self.value(value, depth: depth + 1)
                }
                return .dictionary(entries)
            default:
                throw PlistFormatError(message: "an archived \(name) is not a plain value")
            }
        }
    }
}

extension PlistFormatError {
    init(message: String) { self.init(message: message, offset: nil) }
}
