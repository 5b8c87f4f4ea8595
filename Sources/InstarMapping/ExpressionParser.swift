/// Reads NSPredicate / NSExpression format text into ``MappingPredicate`` / ``MappingExpression``.
///
/// Mapping models carry filter predicates as text (`sourcefilterpredicatestring`), and people write
/// value expressions as text in Xcode; the archived form is decoded separately (`ExpressionArchive`)
/// into the same tree. The grammar is NSPredicate's, by precedence from loosest: `OR`/`||`,
/// `AND`/`&&`, `NOT`/`!`, comparisons, `+ -`, `* /`, `**`, unary `-`, postfix `.key` and `[index]`.
package enum ExpressionParser {
    /// The deepest nesting read: parentheses, braces, unary and binary operators, indexes and calls
    /// each count one level, and so does every link of a chain such as `a + b + c`. Text from a file
    /// must never exhaust the stack, here or in the formatter and SQL translator, which walk the tree
    /// recursively; real mapping expressions and filter predicates nest a handful of levels.
    package static let maximumDepth = 128

    package static func parseExpression(_ text: String) throws(ExpressionSyntaxError) -> MappingExpression {
        var parser = try Parser(text)
        let expression = try parser.expression()
        try parser.expectEnd()
        return expression
    }

    package static func parsePredicate(_ text: String) throws(ExpressionSyntaxError) -> MappingPredicate {
        var parser = try Parser(text)
        let predicate = try parser.predicate()
        try parser.expectEnd()
        return predicate
    }
}

/// Recursive descent over the token array; `index` is the next token.
struct Parser {
    let text: String
    let tokens: [ExpressionToken]
    var index = 0
    /// Levels of nesting open at `index` (see ``ExpressionParser/maximumDepth``).
    var depth = 0
    /// Token positions where a `(` was found not to open a parenthesised predicate: trying again
    /// would give the same answer, and remembering it keeps nested parentheses from costing
    /// exponential time.
    var notPredicateAt: Set<Int> = []

    init(_ text: String) throws(ExpressionSyntaxError) {
        self.text = text
        self.tokens = try ExpressionLexer.tokens(of: text)
    }

    var current: ExpressionToken { tokens[index] }

    func error(_ message: String, at token: ExpressionToken? = nil) -> ExpressionSyntaxError {
        ExpressionSyntaxError(message: message, column: (token ?? current).column, text: text)
    }

    func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    /// Opens one level of nesting, or refuses text nested deeper than ``ExpressionParser/maximumDepth``
    /// (the error names the column where the limit was reached). The caller closes the level with
    /// `depth -= 1`, in a `defer`.
    mutating func descend() throws(ExpressionSyntaxError) {
        guard depth < ExpressionParser.maximumDepth else {
            var refusal = error(
                "the text nests deeper than \(ExpressionParser.maximumDepth) levels (parentheses, operators, "
                    + "calls or chained terms); simplify it or compute the value in a hook")
            refusal.nestingLimit = ExpressionParser.maximumDepth
            throw refusal
        }
        depth += 1
    }

    mutating func take(_ symbol: String) -> Bool {
        guard isSymbol(symbol) else { return false }
        index += 1
        return true
    }

    mutating func takeKeyword(_ words: String...) -> Bool {
        guard let keyword = current.keyword, words.contains(keyword) else { return false }
        index += 1
        return true
    }

    mutating func expect(_ symbol: String, _ context: String) throws(ExpressionSyntaxError) {
        guard take(symbol) else { throw error("'\(symbol)' expected \(context), found \(describe(current))") }
    }

    func expectEnd() throws(ExpressionSyntaxError) {
        guard current.kind == .end else { throw error("unexpected \(describe(current)) after the end") }
    }

    func describe(_ token: ExpressionToken) -> String {
        switch token.kind {
        case .identifier(let name), .escapedIdentifier(let name): "'\(name)'"
        case .collectionOperator(let name): "'\(name)'"
        case .variable(let name): "'$\(name)'"
        case .string: "a string"
        case .integer, .real: "a number"
        case .symbol(let symbol): "'\(symbol)'"
        case .end: "the end of the text"
        }
    }

    // MARK: Predicates

    mutating func predicate() throws(ExpressionSyntaxError) -> MappingPredicate {
        try descend()
        defer { depth -= 1 }
        var parts = [try conjunction()]
        while take("||") || takeKeyword("OR") { parts.append(try conjunction()) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func conjunction() throws(ExpressionSyntaxError) -> MappingPredicate {
        var parts = [try negation()]
        while take("&&") || takeKeyword("AND") { parts.append(try negation()) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    mutating func negation() throws(ExpressionSyntaxError) -> MappingPredicate {
        if take("!") || takeKeyword("NOT") {
            try descend()
            defer { depth -= 1 }
            return .not(try negation())
        }
        return try primaryPredicate()
    }

    mutating func primaryPredicate() throws(ExpressionSyntaxError) -> MappingPredicate {
        if takeKeyword("TRUEPREDICATE") { return .constant(true) }
        if takeKeyword("FALSEPREDICATE") { return .constant(false) }
        if isSymbol("("), !notPredicateAt.contains(index) {
            // `(` opens either a parenthesised predicate or an expression such as `(a + b) > 2`:
            // try the predicate, and fall back when what follows the `)` continues an expression.
            let saved = index
            index += 1
            if let inner = try? predicate(), take(")"), !continuesExpression {
                return inner
            }
            index = saved
            notPredicateAt.insert(saved)
        }
        return .comparison(try comparison())
    }

    /// Whether the current token would continue an expression or comparison (so a `( … )` just read
    /// was an operand, not a predicate).
    var continuesExpression: Bool {
        if case .symbol(let symbol) = current.kind {
            return ["+", "-", "*", "/", "**", "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", ".", "["]
                .contains(symbol)
        }
        if let keyword = current.keyword {
            return ["IN", "BETWEEN", "LIKE", "MATCHES", "BEGINSWITH", "ENDSWITH", "CONTAINS"].contains(keyword)
        }
        return false
    }

    mutating func comparison() throws(ExpressionSyntaxError) -> Comparison {
        var quantifier = Quantifier.direct
        if takeKeyword("ANY", "SOME") {
            quantifier = .any
        } else if takeKeyword("ALL") {
            quantifier = .all
        } else if takeKeyword("NONE") {
            quantifier = .none
        }
        let lhs = try expression()
        let operatorToken = current
        guard let op = comparisonOperator() else {
            throw error("a comparison operator (==, <, IN, BEGINSWITH, …) expected, found \(describe(operatorToken))")
        }
        let options = try comparisonOptions()
        let rhs = try expression()
        if op == .between {
            let count: Int? = switch rhs {
                case .aggregate(let bounds): bounds.count
                case .constant(.array(let bounds)): bounds.count
                default: nil
            }
            guard count == 2 else {
                throw error("BETWEEN needs two bounds in braces, as in {1, 10}", at: operatorToken)
            }
        }
        return Comparison(lhs, op, rhs, quantifier: quantifier, options: options)
    }

    mutating func comparisonOperator() -> ComparisonOperator? {
        let symbols: [String: ComparisonOperator] = [
            "==": .equal, "=": .equal, "!=": .notEqual, "<>": .notEqual, "<": .less, "<=": .lessOrEqual,
            "=<": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual, "=>": .greaterOrEqual,
        ]
        if case .symbol(let symbol) = current.kind, let op = symbols[symbol] {
            index += 1
            return op
        }
        let words: [String: ComparisonOperator] = [
            "MATCHES": .matches, "LIKE": .like, "BEGINSWITH": .beginsWith, "ENDSWITH": .endsWith,
            "CONTAINS": .contains, "IN": .in, "BETWEEN": .between,
        ]
        if let keyword = current.keyword, let op = words[keyword] {
            index += 1
            return op
        }
        return nil
    }

    /// `[c]`, `[d]`, `[cd]`, `[n]`, `[l]` directly after the operator.
    mutating func comparisonOptions() throws(ExpressionSyntaxError) -> ComparisonOptions {
        guard isSymbol("[") else { return [] }
        let open = current
        index += 1
        guard case .identifier(let letters) = current.kind else {
            throw error("comparison options such as [c], [d] or [cd] expected", at: open)
        }
        var options: ComparisonOptions = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": options.insert(.localeSensitive)
            default: throw error("unknown comparison option '\(letter)' (c, d, n and l exist)")
            }
        }
        index += 1
        try expect("]", "to close the comparison options")
        return options
    }
}
