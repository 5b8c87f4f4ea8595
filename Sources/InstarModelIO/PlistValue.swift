import Foundation

/// A property-list value, typed, with keyed-archive references (UIDs) as a case of their own.
///
/// The keyed-archive reader works on these rather than on Foundation's `Any`: every shape check is a
/// `switch`, and no Foundation collection (whose bridging is where hostile input crashed Linux's
/// Foundation) is ever built from a binary file.
package indirect enum PlistNode {
    case null
    case string(String)
    case integer(Int)
    case real(Double)
    /// Seconds since 2001-01-01 00:00:00 UTC (a `date` object, which keyed archives themselves do not
    /// use: they archive `NSDate` as an object with `NS.time`).
    case date(Double)
    case boolean(Bool)
    case data(Data)
    case uid(Int)
    case array([PlistNode])
    case dictionary([String: PlistNode])

    /// Reads a property list: binary ones with ``BinaryPropertyList``, the XML and OpenStep forms
    /// (which Apple's tools do not use for models, and which have no sets or shared objects) through
    /// `PropertyListSerialization`.
    package static func parse(_ data: Data) throws(KeyedArchiveError.Reason) -> PlistNode {
        if BinaryPropertyList.isBinary(data) {
            do {
                return try BinaryPropertyList.parse(data)
            } catch {
                if let passed = error.limit { throw .exceedsLimit(passed) }
                throw .notAPropertyList(error.message)
            }
        }
        // `<plist>` and the root element add two levels to what the value itself nests.
        let nesting = CheckedPropertyList.textNesting(data)
        guard nesting <= BinaryPropertyList.maximumDepth + 2 else {
            throw .nestsTooDeep(levels: nesting, maximum: BinaryPropertyList.maximumDepth)
        }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw .notAPropertyList(detail ?? error.localizedDescription)
        }
        guard let node = PlistNode(foundation: plist, depth: 0) else {
            throw .notAPropertyList("it holds values that are not property-list types")
        }
        return node
    }

    /// Converts what `PropertyListSerialization` returns; nil for anything that is not a plist type.
    init?(foundation raw: Any, depth: Int) {
        guard depth <= BinaryPropertyList.maximumDepth else { return nil }
        if let text = raw as? String {
            self = .string(text)
        } else if let data = raw as? Data {
            self = .data(data)
        } else if let date = raw as? Date {
            self = .date(date.timeIntervalSinceReferenceDate)
        } else if let items = raw as? [Any] {
            var nodes: [PlistNode] = []
            for item in items {
                guard let node = PlistNode(foundation: item, depth: depth + 1) else { return nil }
                nodes.append(node)
            }
            self = .array(nodes)
        } else if let number = raw as? NSNumber, !(raw is [AnyHashable: Any]) {
            self = Self.number(number)
        } else if let dictionary = raw as? [AnyHashable: Any] {
            // XML archives spell a reference as {"CF$UID": n}.
            if dictionary.count == 1, let value = dictionary["CF$UID"] as? NSNumber,
                case .integer(let uid) = Self.number(value), uid >= 0
            {
                self = .uid(uid)
                return
            }
            var nodes: [String: PlistNode] = [:]
            for (key, value) in dictionary {
                guard let key = key.base as? String, let node = PlistNode(foundation: value, depth: depth + 1)
                else { return nil }
                nodes[key] = node
            }
            self = .dictionary(nodes)
        } else if let uid = Self.foundationUID(raw) {
            self = .uid(uid)
        } else {
            return nil
        }
    }

    /// Tells Booleans, integers and reals apart by the number's type code: Swift's casts cannot (an
    /// integer 1 casts to `Bool`, a Boolean to `Int`).
    private static func number(_ number: NSNumber) -> PlistNode {
        switch String(cString: number.objCType) {
        case "c", "B": return .boolean(number.boolValue)
        case "f", "d": return .real(number.doubleValue)
        default:
            if let value = Int(exactly: number.int64Value), number.stringValue == String(value) { return .integer(value) }
            return .real(number.doubleValue)
        }
    }

    /// Foundation's own UID objects, which an XML parser may produce for `{"CF$UID": n}`: swift-corelibs-
    /// foundation's `_NSKeyedArchiverUID` has a `value` field, Apple's `CFKeyedArchiverUID` describes
    /// itself as `… {value = n}`. Neither type is public, so this is the one place that looks inside.
    private static func foundationUID(_ raw: Any) -> Int? {
        let typeName = String(describing: type(of: raw))
        if typeName.contains("KeyedArchiverUID") {
            for child in Mirror(reflecting: raw).children where child.label == "value" {
                if let value = child.value as? UInt32 { return Int(value) }
            }
        }
        let text = String(describing: raw)
        guard text.contains("KeyedArchiverUID"), let marker = text.range(of: "value = ") else { return nil }
        let digits = text[marker.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return digits.count <= 10 ? Int(digits) : nil
    }

    /// The value as an inline ``ArchivedValue``; nil for references and containers.
    var scalar: ArchivedValue? {
        switch self {
        case .null: .null
        case .string(let text): .string(text)
        case .integer(let value): .integer(value)
        case .real(let value): .real(value)
        case .date(let seconds): .date(seconds)
        case .boolean(let value): .boolean(value)
        case .data(let data): .data(data)
        case .uid, .array, .dictionary: nil
        }
    }

    /// What the node is, for messages.
    var kindName: String {
        if let scalar { return scalar.kindName }
        switch self {
        case .uid: return "a reference"
        case .array: return "an array"
        default: return "a dictionary"
        }
    }
}
