@_spi(Layouts) import InstarModel

/// A syntax error in expression or predicate text, at a 1-based character column of that text.
public struct ExpressionSyntaxError: InstarError, Hashable, CustomStringConvertible {
    /// What is wrong, in a sentence.
    public var message: String
    /// The 1-based character column in ``text`` where reading failed.
    public var column: Int
    /// The text that was being read, so that the message can show where.
    public var text: String
    /// The nesting limit the text went past, when that is why it was refused (`nil` for other syntax
    /// errors): a fact a caller can act on (simplify the text, or compute the value in a hook) without
    /// reading the message.
    package var nestingLimit: Int? = nil

    /// A syntax error at `column` of `text`.
    package init(message: String, column: Int, text: String) {
        self.message = message
        self.column = column
        self.text = text
    }

    public var description: String { "column \(column): \(message) in '\(excerpt)'" }

    /// The text, or for long text (a generated or corrupted file) the part around ``column``, so a
    /// message stays readable.
    var excerpt: String {
        let characters = Array(text)
        guard characters.count > 120 else { return text }
        let start = max(0, min(column - 1, characters.count) - 60)
        let end = min(characters.count, start + 120)
        return (start > 0 ? "…" : "") + String(characters[start..<end]) + (end < characters.count ? "…" : "")
    }
}

/// A token of NSPredicate / NSExpression format text.
struct ExpressionToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case identifier(String)
        /// `#name`: an identifier that would otherwise be a reserved word.
        case escapedIdentifier(String)
        /// `@count`, `@distinctUnionOfSets`: a collection operator in a key path.
        case collectionOperator(String)
        case variable(String)
        case string(String)
        case integer(Int64)
        case real(Double)
        case symbol(String)
        case end
    }

    var kind: Kind
    /// 1-based character column of the token's first character.
    var column: Int

    /// The identifier in upper case when the token is one, to match keywords case-insensitively.
    var keyword: String? {
        if case .identifier(let name) = kind { return name.uppercased() }
        return nil
    }
}

/// Splits format text into tokens. Keywords are case-insensitive, as NSPredicate's are.
struct ExpressionLexer {
    /// Words the format syntax reserves; a key with such a name must be written `#name`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "MATCHES", "BEGINSWITH", "ENDSWITH", "CONTAINS",
        "ANY", "ALL", "NONE", "SOME", "NULL", "NIL", "SELF", "TRUE", "FALSE", "YES", "NO", "FIRST", "LAST",
        "SIZE", "TRUEPREDICATE", "FALSEPREDICATE", "UTI-CONFORMS-TO", "UTI-EQUALS", "SUBQUERY", "FUNCTION",
        "CAST", "FETCH", "TERNARY",
    ]

    static func isReserved(_ word: String) -> Bool { reservedWords.contains(word.uppercased()) }

    let text: String
    private let characters: [Character]
    private var position = 0

    init(_ text: String) {
        self.text = text
        self.characters = Array(text)
    }

    static func tokens(of text: String) throws(ExpressionSyntaxError) -> [ExpressionToken] {
        var lexer = ExpressionLexer(text)
        var tokens: [ExpressionToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func error(_ message: String, at index: Int) -> ExpressionSyntaxError {
        ExpressionSyntaxError(message: message, column: index + 1, text: text)
    }

    private func peek(_ offset: Int = 0) -> Character? {
        position + offset < characters.count ? characters[position + offset] : nil
    }

    mutating func next() throws(ExpressionSyntaxError) -> ExpressionToken {
        while let c = peek(), c.isWhitespace { position += 1 }
        let start = position
        guard let c = peek() else { return ExpressionToken(kind: .end, column: start + 1) }
        func token(_ kind: ExpressionToken.Kind) -> ExpressionToken { ExpressionToken(kind: kind, column: start + 1) }

        if c == "\"" || c == "'" { return token(.string(try string(quote: c))) }
        if c.isNumber && c.isASCII { return token(try number()) }
        if c == "$" || c == "#" || c == "@" {
            position += 1
            let name = identifierRun()
            guard !name.isEmpty else { throw error("a name is expected after '\(c)'", at: start) }
            switch c {
            case "$": return token(.variable(name))
            case "#": return token(.escapedIdentifier(name))
            default: return token(.collectionOperator("@" + name))
            }
        }
        if c.isLetter || c == "_" {
            return token(.identifier(identifierRun()))
        }
        if c == "%" {
            throw error("format arguments (%@, %K) cannot appear in a stored expression", at: start)
        }
        for symbol in ["**", "==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"] where matches(symbol) {
            position += 2
            return token(.symbol(symbol))
        }
        if "()[]{},.+-*/=<>!:".contains(c) {
            position += 1
            return token(.symbol(String(c)))
        }
        throw error("unexpected character '\(c)'", at: start)
    }

    private func matches(_ symbol: String) -> Bool {
        symbol.enumerated().allSatisfy { peek($0.offset) == $0.element }
    }

    private mutating func identifierRun() -> String {
        var name = ""
        while let c = peek(), c.isLetter || c.isNumber || c == "_" {
            name.append(c)
            position += 1
        }
        return name
    }

    /// Reads a quoted string, `"…"` or `'…'`, with backslash escapes (`\n`, `\t`, `\r`, `\\`, `\'`,
    /// `\"`, `\uXXXX`); any other escaped character stands for itself.
    private mutating func string(quote: Character) throws(ExpressionSyntaxError) -> String {
        let start = position
        position += 1
        var value = ""
        while let c = peek() {
            position += 1
            if c == quote { return value }
            guard c == "\\" else {
                value.append(c)
                continue
            }
            guard let escaped = peek() else { break }
            position += 1
            switch escaped {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "u":
                let digits = String((0..<4).compactMap { peek($0) })
                guard digits.count == 4, let code = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(code) else {
                    throw error("'\\u' must be followed by four hexadecimal digits", at: position - 2)
                }
                position += 4
                value.unicodeScalars.append(scalar)
            default: value.append(escaped)
            }
        }
        throw error("the string opened here is not closed", at: start)
    }

    /// Decimal integers and reals (with exponent), and `0x`, `0o`, `0b` integers.
    private mutating func number() throws(ExpressionSyntaxError) -> ExpressionToken.Kind {
        let start = position
        if peek() == "0", let prefix = peek(1), let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][prefix] {
            position += 2
            let digits = identifierRun()
            guard let value = Int64(digits, radix: radix) else {
                throw error("'0\(prefix)\(digits)' is not a number", at: start)
            }
            return .integer(value)
        }
        var literal = ""
        var isReal = false
        while let c = peek(), c.isASCII, c.isNumber {
            literal.append(c)
            position += 1
        }
        if peek() == ".", let after = peek(1), after.isASCII, after.isNumber {
            isReal = true
            literal.append(".")
            position += 1
            while let c = peek(), c.isASCII, c.isNumber {
                literal.append(c)
                position += 1
            }
        }
        if let e = peek(), e == "e" || e == "E" {
            var lookahead = 1
            if let sign = peek(1), sign == "+" || sign == "-" { lookahead = 2 }
            if let digit = peek(lookahead), digit.isASCII, digit.isNumber {
                isReal = true
                literal += String((0..<lookahead).compactMap { peek($0) })
                position += lookahead
                while let c = peek(), c.isASCII, c.isNumber {
                    literal.append(c)
                    position += 1
                }
            }
        }
        if let c = peek(), c.isLetter || c == "_" {
            throw error("a number runs into '\(c)'", at: position)
        }
        if !isReal, let value = Int64(literal) { return .integer(value) }
        guard let value = Double(literal) else { throw error("'\(literal)' is not a number", at: start) }
        return .real(value)
    }
}
