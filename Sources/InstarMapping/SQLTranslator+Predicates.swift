/// Predicates → SQL conditions that are always 0 or 1.
///
/// An operand that a condition needs twice (the needle of `BEGINSWITH`) is translated twice, so that
/// placeholders and bound values stay in textual order without numbered parameters.
extension SQLTranslator {
    func condition(_ predicate: MappingPredicate, _ builder: inout SQLBuilder) throws(HookReason) -> String {
        switch predicate {
        case .constant(let value):
            return value ? "1" : "0"
        case .and(let parts):
            var texts: [String] = []
            for part in parts { texts.append(try condition(part, &builder)) }
            return texts.isEmpty ? "1" : "(" + texts.joined(separator: " AND ") + ")"
        case .or(let parts):
            var texts: [String] = []
            for part in parts { texts.append(try condition(part, &builder)) }
            return texts.isEmpty ? "0" : "(" + texts.joined(separator: " OR ") + ")"
        case .not(let inner):
            return "(NOT \(try condition(inner, &builder)))"
        case .comparison(let comparison):
            return try self.comparison(comparison, &builder)
        }
    }

    func comparison(_ c: Comparison, _ builder: inout SQLBuilder) throws(HookReason) -> String {
        guard c.quantifier == .direct else { throw .collection("\(c.quantifier.rawValue) comparison") }
        if c.options.contains(.diacriticInsensitive) { throw .unsupportedComparisonOption("d") }
        if c.options.contains(.localeSensitive) { throw .unsupportedComparisonOption("l") }
        let fold = c.options.contains(.caseInsensitive)
        // Each call renders one operand afresh (binding its values again), folded for [c].
        func lhs(_ b: inout SQLBuilder) throws(HookReason) -> String { try operand(c.lhs, fold: fold, &b) }
        func rhs(_ b: inout SQLBuilder) throws(HookReason) -> String { try operand(c.rhs, fold: fold, &b) }

        switch c.op {
        case .equal, .notEqual:
            if c.rhs == .constant(.null) || c.lhs == .constant(.null) {
                let other = c.rhs == .constant(.null) ? c.lhs : c.rhs
                let text = try operand(other, fold: false, &builder)
                return "(\(text) IS \(c.op == .equal ? "" : "NOT ")NULL)"
            }
            let left = try lhs(&builder)
            return "(\(left) IS \(c.op == .equal ? "" : "NOT ")\(try rhs(&builder)))"
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let left = try lhs(&builder)
            return "coalesce(\(left) \(c.op.rawValue) \(try rhs(&builder)), 0)"
        case .beginsWith:
            // Empty needles never match, as -[NSString rangeOfString:] finds nothing for "".
            let a = try rhs(&builder), b = try lhs(&builder), n = try rhs(&builder), d = try rhs(&builder)
            return "coalesce(length(\(a)) > 0 AND substr(\(b), 1, length(\(n))) = \(d), 0)"
        case .endsWith:
            let n1 = try rhs(&builder), h1 = try lhs(&builder), n2 = try rhs(&builder), h2 = try lhs(&builder)
            let h3 = try lhs(&builder), n3 = try rhs(&builder), n4 = try rhs(&builder)
            return "coalesce(length(\(n1)) > 0 AND length(\(h1)) >= length(\(n2)) AND "
                + "substr(\(h2), length(\(h3)) - length(\(n3)) + 1) = \(n4), 0)"
        case .contains:
            if case .constant(.array(let items)) = c.lhs {
                return try membership(c.rhs, in: items, fold: fold, &builder)
            }
            let n1 = try rhs(&builder), h = try lhs(&builder), n2 = try rhs(&builder)
            return "coalesce(length(\(n1)) > 0 AND instr(\(h), \(n2)) > 0, 0)"
        case .in:
            if case .constant(.array(let items)) = c.rhs {
                return try membership(c.lhs, in: items, fold: fold, &builder)
            }
            // `x IN "text"` is a substring test, `"text" CONTAINS x`.
            let n1 = try lhs(&builder), h = try rhs(&builder), n2 = try lhs(&builder)
            return "coalesce(length(\(n1)) > 0 AND instr(\(h), \(n2)) > 0, 0)"
        case .between:
            let bounds: [MappingExpression]
            switch c.rhs {
            case .aggregate(let items): bounds = items
            case .constant(.array(let values)): bounds = values.map { .constant($0) }
            default: throw .unsupported("BETWEEN without two bounds")
            }
            guard bounds.count == 2 else { throw .unsupported("BETWEEN without two bounds") }
            let value = try lhs(&builder)
            let low = try operand(bounds[0], fold: fold, &builder), high = try operand(bounds[1], fold: fold, &builder)
            return "coalesce(\(value) BETWEEN \(low) AND \(high), 0)"
        case .like:
            guard case .constant(.string(let pattern)) = c.rhs else {
                throw .unsupported("LIKE with a pattern that is not a constant string")
            }
            let value = try lhs(&builder)
            let glob = Self.globPattern(fromLike: pattern)
            let placeholder = try builder.bind(.string(fold ? glob.folding(options: [.caseInsensitive], locale: nil) : glob))
            return "coalesce(\(value) GLOB \(placeholder), 0)"
        case .matches:
            guard case .constant(.string(let pattern)) = c.rhs else {
                throw .unsupported("MATCHES with a pattern that is not a constant string")
            }
            // Bound in textual order: pattern, then whatever the text binds, then the flags.
            let patternPlaceholder = try builder.bind(.string(pattern))
            let text = try operand(c.lhs, fold: false, &builder)
            let flags = try builder.bind(.string(fold ? "c" : ""))
            return builder.call(.matches, patternPlaceholder, text, flags)
        }
    }

    /// One operand of a comparison, case-folded for `[c]`.
    func operand(_ expression: MappingExpression, fold: Bool, _ builder: inout SQLBuilder) throws(HookReason) -> String {
        let text = try scalar(expression, &builder)
        return fold ? builder.call(.casefold, text) : text
    }

    /// `value IN {constants}`, with nil never a member of a list (as NSPredicate).
    func membership(_ value: MappingExpression, in items: [MappingValue], fold: Bool, _ builder: inout SQLBuilder)
        throws(HookReason) -> String
    {
        let text = try operand(value, fold: fold, &builder)
        var placeholders: [String] = []
        for item in items {
            let bound = try builder.bind(item)
            placeholders.append(fold ? builder.call(.casefold, bound) : bound)
        }
        return "coalesce(\(text) IN (\(placeholders.joined(separator: ", "))), 0)"
    }

    /// NSPredicate LIKE (`*` any run, `?` one character, `\` escapes) as a GLOB pattern, in which the
    /// other GLOB metacharacters `[` and `]` are literal.
    static func globPattern(fromLike pattern: String) -> String {
        var out = ""
        var escaped = false
        for character in pattern {
            if escaped {
                // Only `*`, `?` and `[` mean something to GLOB outside a class; `[^]` would not parse.
                switch character {
                case "*", "?": out += "[\(character)]"
                case "[": out += "[[]"
                default: out.append(character)
                }
                escaped = false
                continue
            }
            switch character {
            case "\\": escaped = true
            case "*", "?": out.append(character)
            case "[": out += "[[]"
            default: out.append(character)
            }
        }
        if escaped { out += "\\" }
        return out
    }
}
