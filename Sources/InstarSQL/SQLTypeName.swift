/// Values of a model that SQLite's grammar takes as words, not as quoted text: a column's declared type
/// and a foreign key's `ON DELETE` action.
///
/// They cannot be quoted like a name or bound like a value, so they are checked against the grammar
/// before any layout writes them into DDL: a declared type read from an adopted database or written in
/// a model file (`columnType:`) must be a type name, an action one of SQLite's five. Anything else
/// (`TEXT); DROP TABLE t; --` is a valid declaration for SQLite, which keeps a quoted type name as
/// written) is refused where it is read, so no model value ever becomes SQL.
package enum SQLTypeName {
    /// What a declared type may be, in words for messages.
    package static let shape = "words of letters, digits and '_', then an optional (n) or (n, m)"

    /// Words that begin a column constraint: SQLite ends the type name before them, so a "type" holding
    /// one would add a constraint to the column.
    static let constraintWords: Set<String> = [
        "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED", "AS",
        "FOREIGN", "ON",
    ]

    /// True when `text` is a declared type Instar may write as it is: empty, or one or more words
    /// (`UNSIGNED BIG INT`, `varchar`) then optionally `(n)` or `(n, m)` with signed numbers
    /// (`varchar(255)`, `DECIMAL(10, -2)`), spaces anywhere between.
    package static func isValid(_ text: String) -> Bool {
        var scanner = Scanner(Array(text.unicodeScalars))
        scanner.skipSpaces()
        if scanner.atEnd { return true }
        var words = 0
        while let word = scanner.word() {
            if constraintWords.contains(word.uppercased()) { return false }
            words += 1
            scanner.skipSpaces()
        }
        guard words > 0 else { return false }
        if scanner.take("(") {
            guard scanner.signedNumber() else { return false }
            if scanner.take(",") {
                guard scanner.signedNumber() else { return false }
            }
            guard scanner.take(")") else { return false }
            scanner.skipSpaces()
        }
        return scanner.atEnd
    }

    private struct Scanner {
        let scalars: [Unicode.Scalar]
        var position = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var atEnd: Bool { position == scalars.count }

        mutating func skipSpaces() {
            while position < scalars.count, [" ", "\t", "\n", "\r"].contains(scalars[position]) { position += 1 }
        }

        static func isWordStart(_ c: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "_" || (c.value >= 0x80 && c.properties.isAlphabetic)
        }

        static func isWordPart(_ c: Unicode.Scalar) -> Bool { isWordStart(c) || ("0"..."9").contains(c) }

        mutating func word() -> String? {
            guard position < scalars.count, Self.isWordStart(scalars[position]) else { return nil }
            var out = String.UnicodeScalarView()
            while position < scalars.count, Self.isWordPart(scalars[position]) {
                out.append(scalars[position])
                position += 1
            }
            return String(out)
        }

        mutating func take(_ c: Unicode.Scalar) -> Bool {
            skipSpaces()
            guard position < scalars.count, scalars[position] == c else { return false }
            position += 1
            skipSpaces()
            return true
        }

        /// `[+-] digits [. digits]` (or `.digits`), with an optional exponent.
        mutating func signedNumber() -> Bool {
            skipSpaces()
            if position < scalars.count, scalars[position] == "+" || scalars[position] == "-" {
                position += 1
                skipSpaces()
            }
            let digitsStart = position
            while position < scalars.count, ("0"..."9").contains(scalars[position]) { position += 1 }
            var digits = position - digitsStart
            if position < scalars.count, scalars[position] == "." {
                position += 1
                let fraction = position
                while position < scalars.count, ("0"..."9").contains(scalars[position]) { position += 1 }
                digits += position - fraction
            }
            guard digits > 0 else { return false }
            if position < scalars.count, scalars[position] == "e" || scalars[position] == "E" {
                position += 1
                if position < scalars.count, scalars[position] == "+" || scalars[position] == "-" { position += 1 }
                let exponent = position
                while position < scalars.count, ("0"..."9").contains(scalars[position]) { position += 1 }
                guard position > exponent else { return false }
            }
            skipSpaces()
            return true
        }
    }
}

/// A foreign key's `ON DELETE` (or `ON UPDATE`) action: one of SQLite's five, nothing else.
package enum SQLForeignKeyAction {
    /// The five actions, as SQLite spells them.
    package static let all = ["SET NULL", "SET DEFAULT", "CASCADE", "RESTRICT", "NO ACTION"]

    /// The action `text` names (any case, any spaces between the words), as SQLite spells it; nil when
    /// it names none.
    package static func normalized(_ text: String) -> String? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            .map { $0.uppercased() }.joined(separator: " ")
        return all.contains(words) ? words : nil
    }
}

/// A column clause a model keeps verbatim (`columnSQL:`, `CHECK (price >= 0)`, `COLLATE NOCASE`): it
/// is SQL by design, but it must stay inside its column.
package enum SQLColumnClause {
    /// True when `text` cannot end its column's definition or its statement: quotes and parentheses
    /// balanced, and outside them no `,`, `;`, `)` closing more than it opened, and no comment (which
    /// would hide the rest of the statement).
    package static func staysInItsColumn(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        var depth = 0
        var index = 0
        while index < scalars.count {
            let c = scalars[index]
            switch c {
            case "'", "\"", "`", "[":
                let close: Unicode.Scalar = c == "[" ? "]" : c
                index += 1
                while index < scalars.count {
                    if scalars[index] == close {
                        // A doubled quote is an escaped one (not inside [ ]).
                        if close != "]", index + 1 < scalars.count, scalars[index + 1] == close {
                            index += 2
                            continue
                        }
                        break
                    }
                    index += 1
                }
                guard index < scalars.count else { return false }
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth < 0 { return false }
            case ";": return false
            case "," where depth == 0: return false
            case "-" where index + 1 < scalars.count && scalars[index + 1] == "-": return false
            case "/" where index + 1 < scalars.count && scalars[index + 1] == "*": return false
            default: break
            }
            index += 1
        }
        return depth == 0
    }
}
