import Foundation

/// Decodes an archived `NSExpression` (Xcode's `valueexpressiondata`) into a ``MappingExpression``.
///
/// The archive keys are those Foundation writes: `NSExpressionType`, `NSConstantValue`, `NSVariable`,
/// `NSOperand`, `NSSelectorName`, `NSArguments`, `NSKeyPath`. An `NSKeyPathExpression` is a function
/// expression (`valueForKeyPath:` on its operand), and arithmetic is a function expression whose
/// operand is the class `_NSPredicateUtilities`; both are normalised to the same trees the text parser
/// builds, so `$source.a` reads the same from either form. Classes without a model here (blocks,
/// set expressions) become ``MappingExpression/opaque(className:)`` and go to a hook later.
enum ExpressionArchive {
    static func decode(_ data: Data) throws(PlistFormatError) -> MappingExpression {
        let archive = try KeyedArchive(data: data)
        var decoder = Decoder(archive: archive)
        return try decoder.expression(archive.root)
    }

    private struct Decoder {
        let archive: KeyedArchive
        var depth = 0

        mutating func expression(_ reference: PlistValue) throws(PlistFormatError) -> MappingExpression {
            depth += 1
            defer { depth -= 1 }
            guard depth < 64 else { throw PlistFormatError(message: "the expression nests too deeply") }
            let object = try archive.resolve(reference)
            guard let className = try archive.className(of: object) else {
                throw PlistFormatError(message: "an archived expression has no class")
            }
            switch className {
            case "NSConstantValueExpression":
                guard let constant = try archive.field("NSConstantValue", of: object) else { return .constant(.null) }
                return .constant(try archive.value(constant))
            case "NSSelfExpression":
                return .evaluatedObject
            case "NSVariableExpression":
                return .variable(try archive.field("NSVariable", of: object)?.string ?? "")
            case "NSKeyPathSpecifierExpression":
                // Only meaningful as the argument of a key-path expression; alone it is its key path.
                return .constant(.string(try archive.field("NSKeyPath", of: object)?.string ?? ""))
            case "NSKeyPathExpression", "NSFunctionExpression":
                return try function(object)
            case "NSAggregateExpression":
                guard let collection = try archive.field("NSCollection", of: object) else { return .aggregate([]) }
                var items: [MappingExpression] = []
                for element in try archive.elements(of: collection) { items.append(try expression(element)) }
                return Parser.collection(items)
            default:
                return .opaque(className: className)
            }
        }

        mutating func function(_ object: PlistValue) throws(PlistFormatError) -> MappingExpression {
            let selector = try archive.field("NSSelectorName", of: object)?.string ?? ""
            var arguments: [MappingExpression] = []
            if let list = try archive.field("NSArguments", of: object) {
                for element in try archive.elements(of: list) { arguments.append(try expression(element)) }
            }
            guard let operandReference = object["NSOperand"] else {
                return MappingExpression.builtIn(selector, arguments: arguments)
            }
            let operand = try archive.resolve(operandReference)
            // Built-in functions are sent to the class _NSPredicateUtilities, archived as a constant
            // expression that records only that class name.
            if try archive.field("NSConstantValueClassName", of: operand)?.string == "_NSPredicateUtilities" {
                return MappingExpression.builtIn(selector, arguments: arguments)
            }
            return MappingExpression.message(to: try expression(operandReference), selector: selector, arguments: arguments)
        }
    }
}
