/// Format text of expressions and predicates, in the syntax ``ExpressionParser`` reads back.
///
/// Reports show this text next to the SQL, and the parser reads it, so `parse(format(x)) == x` is the
/// property the tests check. It follows NSExpression's spelling (`$source.a.b`, `FUNCTION(…)`, infix
/// arithmetic) except that arguments are separated by `", "` rather than NSExpression's `" , "`.
extension MappingExpression: CustomStringConvertible {
    public var description: String { formatted(precedence: 0) }

    /// - Parameter precedence: the binding strength of the context; operands that bind more loosely
    ///   are parenthesised.
    func formatted(precedence: Int) -> String {
        switch self {
        case .constant(let value):
            return value.description
        case .evaluatedObject:
            return "SELF"
        case .variable(let name):
            return "$" + name
        case .keyPath(let base, let path):
            let components = path.map(Self.formatKey)
            guard let base else { return components.joined(separator: ".") }
            return ([base.formatted(precedence: 10)] + components).joined(separator: ".")
        case .selector(let target, let selector, let arguments):
            let parts = [target.description, MappingValue.quote(selector)] + arguments.map(\.description)
            return "FUNCTION(" + parts.joined(separator: ", ") + ")"
        case .function(let name, let arguments):
            return name + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
        case .arithmetic(let op, let lhs, let rhs):
            let strength = op.precedence
            // Left-associative except `**`; the right operand of - and / needs parentheses at equal strength.
            let text = lhs.formatted(precedence: op == .power ? strength + 1 : strength) + " " + op.rawValue + " "
                + rhs.formatted(precedence: op == .power ? strength : strength + 1)
            return strength < precedence ? "(" + text + ")" : text
        case .negate(let operand):
            return "-" + operand.formatted(precedence: 9)
        case .aggregate(let items):
            return "{" + items.map(\.description).joined(separator: ", ") + "}"
        case .cast(let value, let className):
            return "CAST(\(value), \(MappingValue.quote(className)))"
        case .index(let collection, let index):
            let indexText: String
            if case .keyPath(nil, let path) = index, path.count == 1, ["FIRST", "LAST", "SIZE"].contains(path[0]) {
                indexText = path[0]
            } else {
                indexText = index.description
            }
            return collection.formatted(precedence: 10) + "[" + indexText + "]"
        case .fetch(let request, let context, let countOnly):
            return "FETCH(\(request), \(context), \(countOnly ? "YES" : "NO"))"
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(collection), $\(variable), \(predicate))"
        case .conditional(let predicate, let then, let otherwise):
            return "TERNARY(\(predicate), \(then), \(otherwise))"
        case .opaque(let className):
            return "<\(className)>"
        }
    }

    /// Key path components that are reserved words or not plain identifiers are written with `#`.
    static func formatKey(_ key: String) -> String {
        if key.hasPrefix("@") { return key }
        let isIdentifier = key.first.map { $0.isLetter || $0 == "_" } == true
            && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        return isIdentifier && !ExpressionLexer.isReserved(key) ? key : "#" + key
    }
}

extension ArithmeticOperator {
    var precedence: Int {
        switch self {
        case .add, .subtract: 6
        case .multiply, .divide: 7
        case .power: 8
        }
    }
}

extension MappingPredicate: CustomStringConvertible {
    public var description: String { formatted(precedence: 0) }

    func formatted(precedence: Int) -> String {
        switch self {
        case .constant(let value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let comparison):
            return comparison.description
        case .and(let parts):
            let text = parts.map { $0.formatted(precedence: 2) }.joined(separator: " AND ")
            return precedence > 2 ? "(" + text + ")" : text
        case .or(let parts):
            let text = parts.map { $0.formatted(precedence: 1) }.joined(separator: " OR ")
            return precedence > 1 ? "(" + text + ")" : text
        case .not(let inner):
            return "NOT " + inner.formatted(precedence: 3)
        }
    }
}

extension Comparison: CustomStringConvertible {
    public var description: String {
        let prefix = quantifier == .direct ? "" : quantifier.rawValue + " "
        let options = options.isEmpty ? "" : "[" + options.letters + "]"
        let rhsText: String
        if op == .between, case .aggregate(let bounds) = rhs, bounds.count == 2 {
            rhsText = "{\(bounds[0]), \(bounds[1])}"
        } else {
            rhsText = rhs.formatted(precedence: 5)
        }
        return prefix + lhs.formatted(precedence: 5) + " " + op.rawValue + options + " " + rhsText
    }
}
