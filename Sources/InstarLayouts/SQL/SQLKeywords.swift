/// The bare words of a SQL statement, upper-cased, outside quoted names, string literals and comments:
/// enough to tell which clauses a `CREATE TABLE` uses (`CHECK`, `COLLATE`, `AUTOINCREMENT`, …) that
/// SQLite's pragmas do not report, without mistaking a column named `"check"` for one.
package enum SQLKeywords {
    package static func words(of sql: String) -> [String] {
        var words: [String] = []
        var current = ""
        var iterator = Array(sql.unicodeScalars)[...]
        func flush() {
            if !current.isEmpty { words.append(current.uppercased()) }
            current = ""
        }
        while let c = iterator.popFirst() {
            switch c {
            case "\"", "'", "`":
                flush()
                skip(until: c, in: &iterator, doubledEscapes: true)
            case "[":
                flush()
                skip(until: "]", in: &iterator, doubledEscapes: false)
            case "-" where iterator.first == "-":
                flush()
                while let n = iterator.popFirst(), n != "\n" {}
            case "/" where iterator.first == "*":
                flush()
                iterator.removeFirst()
                while let n = iterator.popFirst(), !(n == "*" && iterator.first == "/") {}
                _ = iterator.popFirst()
            default:
                if c.properties.isAlphabetic || c == "_" || ("0"..."9").contains(c) {
                    current.unicodeScalars.append(c)
                } else {
                    flush()
                }
            }
        }
        flush()
        return words
    }

    private static func skip(until end: Unicode.Scalar, in iterator: inout ArraySlice<Unicode.Scalar>, doubledEscapes: Bool) {
        while let n = iterator.popFirst() {
            if n == end {
                if doubledEscapes, iterator.first == end { iterator.removeFirst() } else { return }
            }
        }
    }
}
