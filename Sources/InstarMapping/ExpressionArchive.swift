import Foundation
import InstarModelIO

/// Decodes an archived `NSExpression` (Xcode's `valueexpressiondata`) into a ``MappingExpression``.
///
/// The archive is read with InstarModelIO's ``KeyedArchive``, the same checked reader compiled models
/// use, so a corrupted or hostile archive in a mapping model is an error, never a crash or a loop.
/// The archive keys are those Foundation writes: `NSExpressionType`, `NSConstantValue`, `NSVariable`,
/// `NSOperand`, `NSSelectorName`, `NSArguments`, `NSKeyPath`. An `NSKeyPathExpression` is a function
/// expression (`valueForKeyPath:` on its operand), and arithmetic is a function expression whose
/// operand is the class `_NSPredicateUtilities`; both are normalised to the same trees the text parser
/// builds, so `$source.a` reads the same from either form. Classes without a model here (blocks,
/// set expressions) become ``MappingExpression/opaque(className:)`` and go to a hook later.
enum ExpressionArchive {
    /// The deepest nesting of expressions (and of plain values) decoded; archives recurse by reference,
    /// so this bounds the stack, not the file.
    static let maximumDepth = 64

    /// - Parameter file: names the file in the archive error's messages.
    static func decode(_ data: Data, file: String) throws(KeyedArchiveError) -> MappingExpression {
        let archive = try KeyedArchive(data: data, file: file)
        var decoder = Decoder(file: file)
        return try decoder.expression(try archive.value(at: archive.rootReference, from: "$top.root"), from: "$top.root")
    }

    /// The root of an archive holding a plain Foundation value (a mapping's user info).
    static func decodeValue(_ data: Data, file: String) throws(KeyedArchiveError) -> MappingValue {
        let archive = try KeyedArchive(data: data, file: file)
        return try MappingValue(archived: try archive.value(at: archive.rootReference, from: "$top.root"))
    }

    private struct Decoder {
        let file: String
        var depth = 0

        /// `from` names the referring object and key, for messages.
        mutating func expression(_ value: ArchivedValue, from: String) throws(KeyedArchiveError) -> MappingExpression {
            depth += 1
            defer { depth -= 1 }
            guard depth < ExpressionArchive.maximumDepth else {
                throw KeyedArchiveError(file: file, .malformed(at: from, problem: "the expression nests too deeply"))
            }
            guard case .object(let object) = value else {
                throw KeyedArchiveError(
                    file: file, .malformed(at: from, problem: "is \(value.kindName), not an archived expression"))
            }
            switch object.className {
            case "NSConstantValueExpression":
                return .constant(try MappingValue(archived: try object.value("NSConstantValue")))
            case "NSSelfExpression":
                return .evaluatedObject
            case "NSVariableExpression":
                return .variable(try object.string("NSVariable") ?? "")
            case "NSKeyPathSpecifierExpression":
                // Only meaningful as the argument of a key-path expression; alone it is its key path.
                return .constant(.string(try object.string("NSKeyPath") ?? ""))
            case "NSKeyPathExpression", "NSFunctionExpression":
                return try function(object)
            case "NSAggregateExpression":
                guard let collection = try object.object("NSCollection") else { return .aggregate([]) }
                return Parser.collection(try expressions(in: collection))
            default:
                return .opaque(className: object.className)
            }
        }

        mutating func function(_ object: ArchivedObject) throws(KeyedArchiveError) -> MappingExpression {
            let selector = try object.string("NSSelectorName") ?? ""
            var arguments: [MappingExpression] = []
            if let list = try object.object("NSArguments") { arguments = try expressions(in: list) }
            guard object.has("NSOperand") else { return MappingExpression.builtIn(selector, arguments: arguments) }
            let operand = try object.value("NSOperand")
            // Built-in functions are sent to the class _NSPredicateUtilities, archived as a constant
            // expression that records only that class name.
            if case .object(let target) = operand,
                try target.string("NSConstantValueClassName") == "_NSPredicateUtilities"
            {
                return MappingExpression.builtIn(selector, arguments: arguments)
            }
            let receiver = try expression(operand, from: "\(object.label), key NSOperand")
            return MappingExpression.message(to: receiver, selector: selector, arguments: arguments)
        }

        /// The members of an archived array of expressions.
        mutating func expressions(in list: ArchivedObject) throws(KeyedArchiveError) -> [MappingExpression] {
            var items: [MappingExpression] = []
            for element in try list.elements() { items.append(try expression(element, from: "\(list.label), NS.objects")) }
            return items
        }
    }
}

extension MappingValue {
    /// A Foundation value (string, number, date, data, array, set, dictionary, null) from a keyed archive.
    /// - Throws: when an archived object is of another class; the message names it.
    init(archived value: ArchivedValue, depth: Int = 0) throws(KeyedArchiveError) {
        switch value {
        case .null: self = .null
        case .boolean(let flag): self = .bool(flag)
        case .integer(let number): self = .integer(Int64(number))
        case .real(let number): self = .real(number)
        case .date(let seconds): self = .date(seconds)
        case .string(let text): self = .string(text)
        case .data(let bytes): self = .data(bytes)
        case .object(let object): self = try MappingValue(archivedObject: object, depth: depth)
        }
    }

    private init(archivedObject object: ArchivedObject, depth: Int) throws(KeyedArchiveError) {
        guard depth < ExpressionArchive.maximumDepth else { throw object.malformed("the archive nests too deeply") }
        switch object.className {
        case "NSString", "NSMutableString":
            self = .string(try object.string("NS.string") ?? "")
        case "NSDate":
            guard case .real(let seconds) = try object.value("NS.time") else { self = .date(0); return }
            self = .date(seconds)
        case "NSData", "NSMutableData":
            guard case .data(let bytes) = try object.value("NS.data") else { self = .data(Data()); return }
            self = .data(bytes)
        case "NSNull":
            self = .null
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            var items: [MappingValue] = []
            for element in try object.elements() { items.append(try MappingValue(archived: element, depth: depth + 1)) }
            self = .array(items)
        case "NSDictionary", "NSMutableDictionary":
            guard object.has("NS.keys"), object.has("NS.objects") else {
                throw object.malformed("an archived dictionary lacks NS.keys or NS.objects")
            }
            var entries: [String: MappingValue] = [:]
            for (key, value) in try object.entries() {
                let keyValue = try MappingValue(archived: key, depth: depth + 1)
                guard case .string(let name) = keyValue else {
                    throw object.malformed("a user-info key is not a string: \(keyValue)")
                }
                entries[name] = try MappingValue(archived: value, depth: depth + 1)
            }
            self = .dictionary(entries)
        default:
            throw object.malformed("not a plain value (a string, number, date, data, collection or null)")
        }
    }
}
