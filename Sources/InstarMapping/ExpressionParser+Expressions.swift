/// The expression half of the grammar: arithmetic, key paths, literals and the keyword forms
/// (`FUNCTION`, `CAST`, `FETCH`, `SUBQUERY`, `TERNARY`).
extension Parser {
    mutating func expression() throws(ExpressionSyntaxError) -> MappingExpression {
        try descend()
        // Every link of a chain nests the tree one level deeper, as parentheses would.
        var links = 1
        defer { depth -= links }
        var lhs = try term()
        while true {
            if isSymbol("+") || isSymbol("-") {
                try descend()
                links += 1
            }
            if take("+") {
                lhs = .arithmetic(.add, lhs, try term())
            } else if take("-") {
                lhs = .arithmetic(.subtract, lhs, try term())
            } else {
                return lhs
            }
        }
    }

    mutating func term() throws(ExpressionSyntaxError) -> MappingExpression {
        var links = 0
        defer { depth -= links }
        var lhs = try power()
        while true {
            if isSymbol("*") || isSymbol("/") {
                try descend()
                links += 1
            }
            if take("*") {
                lhs = .arithmetic(.multiply, lhs, try power())
            } else if take("/") {
                lhs = .arithmetic(.divide, lhs, try power())
            } else {
                return lhs
            }
        }
    }

    mutating func power() throws(ExpressionSyntaxError) -> MappingExpression {
        let base = try unary()
        guard take("**") else { return base }
        try descend()
        defer { depth -= 1 }
        return .arithmetic(.power, base, try power())
    }

    mutating func unary() throws(ExpressionSyntaxError) -> MappingExpression {
        guard take("-") else { return try postfix() }
        try descend()
        defer { depth -= 1 }
        let operand = try unary()
        // A negative literal is one constant, as NSExpression reads it.
        switch operand {
        case .constant(.integer(let value)) where value != .min: return .constant(.integer(-value))
        case .constant(.real(let value)): return .constant(.real(-value))
        default: return .negate(operand)
        }
    }

    mutating func postfix() throws(ExpressionSyntaxError) -> MappingExpression {
        var links = 0
        defer { depth -= links }
        var value = try primary()
        while true {
            if take(".") {
                // A run of `.key`s joins the key path at once: appending one key at a time copies the
                // path each time, quadratic in its length.
                var keys = [try key(after: ".")]
                while take(".") { keys.append(try key(after: ".")) }
                value = Self.extend(value, with: keys)
            } else if take("[") {
                try descend()
                links += 1
                let index: MappingExpression
                if let keyword = current.keyword, ["FIRST", "LAST", "SIZE"].contains(keyword) {
                    index = .keyPath(base: nil, path: [keyword])
                    self.index += 1
                } else {
                    index = try expression()
                }
                try expect("]", "to close the index")
                value = .index(value, index)
            } else {
                return value
            }
        }
    }

    /// `base.key`: a longer key path when `base` is one, else a key path on the value.
    static func extend(_ base: MappingExpression, with key: String) -> MappingExpression {
        extend(base, with: [key])
    }

    /// `base.k1.k2…` in one step (linear in the length of the path).
    static func extend(_ base: MappingExpression, with keys: [String]) -> MappingExpression {
        switch base {
        case .keyPath(let root, let path): .keyPath(base: root, path: path + keys)
        case .evaluatedObject: .keyPath(base: nil, path: keys)
        default: .keyPath(base: base, path: keys)
        }
    }

    /// A key after `.`: any identifier (reserved words too, as in `$source.first`), `#name`, `@operator`.
    mutating func key(after context: String) throws(ExpressionSyntaxError) -> String {
        switch current.kind {
        case .identifier(let name), .escapedIdentifier(let name), .collectionOperator(let name):
            index += 1
            return name
        default:
            throw error("a key expected after '\(context)', found \(describe(current))")
        }
    }

    mutating func primary() throws(ExpressionSyntaxError) -> MappingExpression {
        let token = current
        switch token.kind {
        case .string(let text):
            index += 1
            return .constant(.string(text))
        case .integer(let value):
            index += 1
            return .constant(.integer(value))
        case .real(let value):
            index += 1
            return .constant(.real(value))
        case .variable(let name):
            index += 1
            return .variable(name)
        case .escapedIdentifier(let name), .collectionOperator(let name):
            index += 1
            return .keyPath(base: nil, path: [name])
        case .identifier(let name):
            return try identifierPrimary(name)
        case .symbol("("):
            index += 1
            let inner = try expression()
            try expect(")", "to close the parenthesis")
            return inner
        case .symbol("{"):
            try descend()
            defer { depth -= 1 }
            index += 1
            return Self.collection(try arguments(closing: "}"))
        default:
            throw error("an expression expected, found \(describe(token))")
        }
    }

    /// `{…}` of constants is one constant; otherwise an aggregate of expressions.
    static func collection(_ items: [MappingExpression]) -> MappingExpression {
        var values: [MappingValue] = []
        for item in items {
            guard case .constant(let value) = item else { return .aggregate(items) }
            values.append(value)
        }
        return .constant(.array(values))
    }

    mutating func identifierPrimary(_ name: String) throws(ExpressionSyntaxError) -> MappingExpression {
        let token = current
        try descend()
        defer { depth -= 1 }
        index += 1
        switch name.uppercased() {
        case "NIL", "NULL": return .constant(.null)
        case "YES", "TRUE": return .constant(.bool(true))
        case "NO", "FALSE": return .constant(.bool(false))
        case "SELF": return .evaluatedObject
        case "FUNCTION": return try functionForm(at: token)
        case "CAST":
            try expect("(", "after CAST")
            let value = try expression()
            try expect(",", "between CAST's value and class name")
            guard case .string(let className) = current.kind else {
                throw error("CAST needs a class name in quotes, as in CAST(x, \"NSDate\")")
            }
            index += 1
            try expect(")", "to close CAST")
            return Self.cast(value, to: className)
        case "FETCH":
            try expect("(", "after FETCH")
            let parts = try arguments(closing: ")")
            guard parts.count == 3 else { throw error("FETCH takes a request, a context and YES/NO", at: token) }
            let countOnly: Bool
            switch parts[2] {
            case .constant(.bool(let value)): countOnly = value
            case .constant(.integer(let value)): countOnly = value != 0
            default: throw error("FETCH's third argument must be YES or NO", at: token)
            }
            return .fetch(request: parts[0], context: parts[1], countOnly: countOnly)
        case "SUBQUERY":
            try expect("(", "after SUBQUERY")
            let collection = try expression()
            try expect(",", "after SUBQUERY's collection")
            guard case .variable(let variable) = current.kind else {
                throw error("SUBQUERY needs an iteration variable such as $x")
            }
            index += 1
            try expect(",", "after SUBQUERY's variable")
            let predicate = try predicate()
            try expect(")", "to close SUBQUERY")
            return .subquery(collection: collection, variable: variable, predicate: predicate)
        case "TERNARY":
            try expect("(", "after TERNARY")
            let condition = try predicate()
            try expect(",", "after TERNARY's condition")
            let then = try expression()
            try expect(",", "between TERNARY's values")
            let otherwise = try expression()
            try expect(")", "to close TERNARY")
            return .conditional(condition, then, otherwise)
        default:
            if ExpressionLexer.isReserved(name) {
                throw error("'\(name)' is a reserved word; write '#\(name)' for a key of that name", at: token)
            }
            if isSymbol("(") || isSymbol(":") { return try builtInCall(name, at: token) }
            return .keyPath(base: nil, path: [name])
        }
    }

    /// `CAST(number, "NSDate")` of a literal is a date constant (seconds since 2001, as Core Data stores).
    static func cast(_ value: MappingExpression, to className: String) -> MappingExpression {
        if className == "NSDate" {
            switch value {
            case .constant(.integer(let seconds)): return .constant(.date(Double(seconds)))
            case .constant(.real(let seconds)): return .constant(.date(seconds))
            default: break
            }
        }
        return .cast(value, className: className)
    }

    /// `FUNCTION(target, "selector", arguments…)`. `FUNCTION(x, "valueForKeyPath:", "a.b")` is the
    /// key path `x.a.b`, which is how Xcode archives `$source.a.b`, so both spellings give one tree.
    mutating func functionForm(at token: ExpressionToken) throws(ExpressionSyntaxError) -> MappingExpression {
        try expect("(", "after FUNCTION")
        let parts = try arguments(closing: ")")
        guard parts.count >= 2, case .constant(.string(let selector)) = parts[1] else {
            throw error("FUNCTION needs a target and a selector name in quotes", at: token)
        }
        return MappingExpression.message(to: parts[0], selector: selector, arguments: Array(parts.dropFirst(2)))
    }

    /// `now()`, `uppercase:(x)`, `add:to:(a, b)`: NSExpression's built-in functions by name.
    mutating func builtInCall(_ first: String, at token: ExpressionToken) throws(ExpressionSyntaxError)
        -> MappingExpression
    {
        var name = first
        while take(":") {
            name += ":"
            if case .identifier(let part) = current.kind {
                name += part
                index += 1
            }
        }
        try expect("(", "after the function name '\(name)'")
        return MappingExpression.builtIn(name, arguments: try arguments(closing: ")"))
    }

    /// Comma-separated expressions up to `closing` (already past the opening bracket).
    mutating func arguments(closing: String) throws(ExpressionSyntaxError) -> [MappingExpression] {
        var items: [MappingExpression] = []
        if take(closing) { return items }
        repeat {
            items.append(try expression())
        } while take(",")
        try expect(closing, "to close the list")
        return items
    }
}

extension MappingExpression {
    /// A message send, normalised: `valueForKey:`/`valueForKeyPath:` with a constant key path
    /// becomes a key path.
    static func message(to target: MappingExpression, selector: String, arguments: [MappingExpression])
        -> MappingExpression
    {
        if selector == "valueForKeyPath:" || selector == "valueForKey:", arguments.count == 1,
            case .constant(.string(let path)) = arguments[0]
        {
            let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            return Parser.extend(target, with: keys)
        }
        return .selector(target: target, selector: selector, arguments: arguments)
    }

    /// A built-in function by NSExpression's name; the arithmetic ones become operators.
    static func builtIn(_ name: String, arguments: [MappingExpression]) -> MappingExpression {
        let binary: [String: ArithmeticOperator] = [
            "add:to:": .add, "from:subtract:": .subtract, "multiply:by:": .multiply, "divide:by:": .divide,
            "raise:toPower:": .power,
        ]
        if let op = binary[name], arguments.count == 2 { return .arithmetic(op, arguments[0], arguments[1]) }
        return .function(name: name, arguments: arguments)
    }
}
