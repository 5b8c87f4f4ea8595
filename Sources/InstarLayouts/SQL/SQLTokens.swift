/// A token of a SQL statement, with where it starts and ends (unicode-scalar offsets), so that a clause
/// can be cut out of the statement exactly as it was written.
struct SQLToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// A bare word, upper-cased (keywords, bare names, numbers).
        case word(String)
        /// A quoted name (`"a b"`, `[a]`, `` `a` ``), unquoted.
        case quoted(String)
        /// A string literal (`'it''s'`) or a blob (`X'00'` is a word then a string).
        case string
        /// Any other character: `(`, `)`, `,`, `-`, `+`, operators.
        case punct(Unicode.Scalar)
    }

    var kind: Kind
    var start: Int
    var end: Int
    /// The bare word as written (case kept), for names.
    var raw: String = ""

    func isPunct(_ c: Unicode.Scalar) -> Bool { kind == .punct(c) }

    func isWord(_ w: String) -> Bool { kind == .word(w) }

    /// The name this token spells, when it can be a name.
    var identifier: String? {
        switch kind {
        case .word: raw
        case .quoted(let name): name
        default: nil
        }
    }

    /// Keywords that begin a column constraint or a table constraint.
    static let constraintKeywords: Set<String> = [
        "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED", "AS",
        "FOREIGN",
    ]

    var isConstraintStart: Bool {
        guard case .word(let w) = kind else { return false }
        return ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains(w)
    }
}

enum SQLTokens {
    /// The tokens of `s`; nil when a quoted name or string is not closed, unless `lenient` (then the
    /// last token runs to the end, as for ``SQLKeywords/words(of:)``, which reads any SQL text).
    static func tokenize(_ s: [Unicode.Scalar], lenient: Bool = false) -> [SQLToken]? {
        var tokens: [SQLToken] = []
        var i = 0
        while i < s.count {
            let c = s[i]
            if c.properties.isWhitespace {
                i += 1
            } else if c == "-", i + 1 < s.count, s[i + 1] == "-" {
                while i < s.count, s[i] != "\n" { i += 1 }
            } else if c == "/", i + 1 < s.count, s[i + 1] == "*" {
                i += 2
                while i + 1 < s.count, !(s[i] == "*" && s[i + 1] == "/") { i += 1 }
                i += 2
            } else if c == "\"" || c == "`" || c == "[" || c == "'" {
                let close: Unicode.Scalar = c == "[" ? "]" : c
                var j = i + 1
                var text = String.UnicodeScalarView()
                while true {
                    guard j < s.count else {
                        guard lenient else { return nil }
                        tokens.append(SQLToken(kind: c == "'" ? .string : .quoted(String(text)), start: i, end: s.count))
                        return tokens
                    }
                    if s[j] == close {
                        if close != "]", j + 1 < s.count, s[j + 1] == close {
                            text.append(close)
                            j += 2
                            continue
                        }
                        break
                    }
                    text.append(s[j])
                    j += 1
                }
                tokens.append(SQLToken(kind: c == "'" ? .string : .quoted(String(text)), start: i, end: j + 1))
                i = j + 1
            } else if isWordScalar(c) {
                var j = i
                while j < s.count, isWordScalar(s[j]) || (s[j] == "." && isNumberStart(s, i)) { j += 1 }
                let raw = String(String.UnicodeScalarView(s[i..<j]))
                tokens.append(SQLToken(kind: .word(raw.uppercased()), start: i, end: j, raw: raw))
                i = j
            } else {
                tokens.append(SQLToken(kind: .punct(c), start: i, end: i + 1))
                i += 1
            }
        }
        return tokens
    }

    private static func isWordScalar(_ c: Unicode.Scalar) -> Bool {
        c.properties.isAlphabetic || c == "_" || c == "$" || ("0"..."9").contains(c)
    }

    private static func isNumberStart(_ s: [Unicode.Scalar], _ i: Int) -> Bool { ("0"..."9").contains(s[i]) }

    /// The index of the `)` closing the `(` at `open`.
    static func matching(_ tokens: [SQLToken], _ open: Int) -> Int? {
        var depth = 0
        for i in open..<tokens.count {
            if tokens[i].isPunct("(") { depth += 1 }
            if tokens[i].isPunct(")") {
                depth -= 1
                if depth == 0 { return i }
            }
        }
        return nil
    }

    /// The tokens between `from` and `to` (exclusive), split at commas outside parentheses.
    static func split(_ tokens: [SQLToken], from: Int, to: Int) -> [[SQLToken]] {
        var parts: [[SQLToken]] = [[]]
        var depth = 0
        for token in tokens[from..<to] {
            if token.isPunct("(") { depth += 1 }
            if token.isPunct(")") { depth -= 1 }
            if depth == 0, token.isPunct(",") {
                parts.append([])
            } else {
                parts[parts.count - 1].append(token)
            }
        }
        return parts
    }

    static func text(_ s: [Unicode.Scalar], _ start: Int, _ end: Int) -> String {
        String(String.UnicodeScalarView(s[start..<end]))
    }

    /// Cuts a column's (or a table constraint's) tokens into clauses, each starting at a constraint
    /// keyword outside parentheses. With `skippingType`, the tokens before the first clause are the
    /// column's type and are skipped. `DEFAULT` takes one term (so `DEFAULT NULL` is one clause), and
    /// `NOT DEFERRABLE` stays inside the `REFERENCES` clause it belongs to.
    static func clauses(_ tokens: [SQLToken], scalars: [Unicode.Scalar], skippingType: Bool = false) -> [CreateTableText.Clause]? {
        clauseSpans(tokens, scalars: scalars, skippingType: skippingType)?.map(\.clause)
    }

    /// ``clauses(_:scalars:skippingType:)`` with where each clause starts and ends in `scalars`, so
    /// that an edit can cut one out of the statement (``CreateTableText/droppingNotNull(of:in:renamingTo:)``).
    static func clauseSpans(
        _ tokens: [SQLToken], scalars: [Unicode.Scalar], skippingType: Bool = false
    ) -> [(clause: CreateTableText.Clause, span: Range<Int>)]? {
        var starts: [Int] = []
        var depth = 0
        var i = 0
        var pendingName = false
        while i < tokens.count {
            let token = tokens[i]
            if token.isPunct("(") { depth += 1 }
            if token.isPunct(")") { depth -= 1 }
            guard depth == 0, case .word(let w) = token.kind, SQLToken.constraintKeywords.contains(w) else {
                i += 1
                continue
            }
            let inReferences = starts.last.map { tokens[$0].isWord("REFERENCES") || startsWithConstraintNamed(tokens, $0, "REFERENCES") } ?? false
            let deferrable = w == "NOT" && i + 1 < tokens.count && tokens[i + 1].isWord("DEFERRABLE")
            // `ON DELETE SET NULL` / `SET DEFAULT`, `GENERATED ALWAYS AS`: not the start of a clause.
            let continues = i > 0 && (tokens[i - 1].isWord("SET") || tokens[i - 1].isWord("ALWAYS"))
            if continues {
                i += 1
                continue
            }
            if !(deferrable && inReferences) && !pendingName {
                starts.append(i)
            }
            pendingName = false
            if w == "CONSTRAINT" {
                i += 2  // the name
                pendingName = true
                continue
            }
            if w == "DEFAULT" {
                i = skipTerm(tokens, after: i)
                continue
            }
            if w == "NOT" || w == "PRIMARY" || w == "FOREIGN" { i += 2 } else { i += 1 }
        }
        if !skippingType, starts.first != 0 { return nil }
        var result: [(clause: CreateTableText.Clause, span: Range<Int>)] = []
        for (n, start) in starts.enumerated() {
            let end = n + 1 < starts.count ? starts[n + 1] : tokens.count
            guard end > start else { return nil }
            var kindIndex = start
            var name: String?
            if tokens[start].isWord("CONSTRAINT") {
                guard start + 2 < end, let constraintName = tokens[start + 1].identifier else { return nil }
                name = constraintName
                kindIndex = start + 2
            }
            guard case .word(let kind) = tokens[kindIndex].kind else { return nil }
            let span = tokens[start].start..<tokens[end - 1].end
            result.append((CreateTableText.Clause(kind: kind, name: name, text: text(scalars, span.lowerBound, span.upperBound)), span))
        }
        return result
    }

    /// A table constraint is one clause whatever keywords it holds (`FOREIGN KEY … REFERENCES …`).
    static func tableConstraint(_ tokens: [SQLToken], scalars: [Unicode.Scalar]) -> CreateTableText.Clause? {
        var kindIndex = 0
        var name: String?
        if tokens[0].isWord("CONSTRAINT") {
            guard tokens.count > 2, let constraintName = tokens[1].identifier else { return nil }
            name = constraintName
            kindIndex = 2
        }
        guard case .word(let kind) = tokens[kindIndex].kind else { return nil }
        var clause = CreateTableText.Clause(kind: kind, name: name, text: text(scalars, tokens[0].start, tokens.last!.end))
        if let open = tokens.firstIndex(where: { $0.isPunct("(") }), let close = matching(tokens, open) {
            clause.columns = tokens[(open + 1)..<close].filter { !$0.isPunct(",") }.compactMap(\.identifier)
        }
        return clause
    }

    private static func startsWithConstraintNamed(_ tokens: [SQLToken], _ start: Int, _ kind: String) -> Bool {
        tokens[start].isWord("CONSTRAINT") && start + 2 < tokens.count && tokens[start + 2].isWord(kind)
    }

    /// The index after a `DEFAULT`'s term: a signed literal, a word or a parenthesised expression.
    private static func skipTerm(_ tokens: [SQLToken], after i: Int) -> Int {
        var j = i + 1
        if j < tokens.count, tokens[j].isPunct("-") || tokens[j].isPunct("+") { j += 1 }
        guard j < tokens.count else { return j }
        if tokens[j].isPunct("("), let close = matching(tokens, j) { return close + 1 }
        // X'00' is a word followed by a string.
        if tokens[j].isWord("X"), j + 1 < tokens.count, tokens[j + 1].kind == .string { return j + 2 }
        return j + 1
    }
}
