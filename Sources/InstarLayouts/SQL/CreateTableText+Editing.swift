extension CreateTableText {
    /// `sql`, a `CREATE TABLE` statement, with the `NOT NULL` clause of each of `columns` cut out and
    /// every other character kept: the text SQLite's documented schema edit writes back ("Making Other
    /// Kinds Of Table Schema Changes": removing a `NOT NULL` constraint leaves the stored rows valid as
    /// they are, so no row is rewritten).
    ///
    /// Nil when the text does not have the expected shape, when a named column has no `NOT NULL` clause
    /// to cut, or when the edited text no longer reads as the same columns: the caller then rebuilds the
    /// table instead. A `CONSTRAINT name` and an `ON CONFLICT` clause go with the `NOT NULL` they belong to.
    package static func droppingNotNull(of columns: [String], in sql: String) -> String? {
        let wanted = Set(columns.map(\.sqliteFolded))
        let scalars = Array(sql.unicodeScalars)
        guard !wanted.isEmpty, let tokens = SQLTokens.tokenize(scalars),
            let open = tokens.firstIndex(where: { $0.isPunct("(") }), let close = SQLTokens.matching(tokens, open)
        else { return nil }
        var cuts: [Range<Int>] = []
        var found = Set<String>()
        for part in SQLTokens.split(tokens, from: open + 1, to: close) {
            guard let first = part.first, !first.isConstraintStart, let name = first.identifier,
                wanted.contains(name.sqliteFolded)
            else { continue }
            guard let spans = SQLTokens.clauseSpans(Array(part.dropFirst()), scalars: scalars, skippingType: true) else {
                return nil
            }
            for (clause, span) in spans where clause.kind == "NOT" {
                // From the end of the token before the clause, so that no doubled space is left behind.
                guard let previous = part.last(where: { $0.end <= span.lowerBound }) else { return nil }
                cuts.append(previous.end..<span.upperBound)
                found.insert(name.sqliteFolded)
            }
        }
        guard found == wanted else { return nil }
        var edited = scalars
        for cut in cuts.sorted(by: { $0.lowerBound > $1.lowerBound }) { edited.removeSubrange(cut) }
        let text = String(String.UnicodeScalarView(edited))
        guard let before = parse(sql), let after = parse(text),
            before.columns.map(\.name) == after.columns.map(\.name), before.constraints == after.constraints,
            before.options == after.options,
            after.columns.allSatisfy({ !wanted.contains($0.name.sqliteFolded) || !$0.clauses.contains { $0.kind == "NOT" } })
        else { return nil }
        return text
    }
}
