/// The bare words of a SQL statement, upper-cased, outside quoted names, string literals and comments:
/// enough to tell which clauses a `CREATE TABLE` uses (`CHECK`, `COLLATE`, `AUTOINCREMENT`, …) that
/// SQLite's pragmas do not report, without mistaking a column named `"check"` for one. The words are
/// those of the one SQL lexer (``SQLTokens``), read leniently: text that does not close a quote still
/// has the words before it.
package enum SQLKeywords {
    package static func words(of sql: String) -> [String] {
        (SQLTokens.tokenize(Array(sql.unicodeScalars), lenient: true) ?? []).compactMap { token in
            if case .word(let word) = token.kind { return word }
            return nil
        }
    }
}
