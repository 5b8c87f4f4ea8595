/// The parts of a `CREATE TABLE` statement that SQLite's pragmas do not report: column clauses such as
/// `CHECK (…)` and `COLLATE NOCASE`, and table constraints (`CHECK`, named `UNIQUE`, …), each as the
/// exact text the statement has, so that a layout can write them back verbatim and a comparison can
/// tell whether a store still has them.
///
/// A deliberately small reader of SQLite's column-definition grammar: it splits the column list at
/// top-level commas and each column at its constraint keywords. It never evaluates anything; when the
/// text does not have the expected shape it returns nil, and callers treat the table as unreadable
/// (the importer keeps it as raw SQL).
package struct CreateTableText: Sendable, Hashable {
    /// One clause of a column definition (`CONSTRAINT c CHECK (x > 0)`, `COLLATE NOCASE`, `NOT NULL`).
    package struct Clause: Sendable, Hashable {
        /// The clause's keyword, upper-cased: `CHECK`, `COLLATE`, `NOT`, `NULL`, `PRIMARY`, `UNIQUE`,
        /// `DEFAULT`, `REFERENCES`, `GENERATED`, `AS`.
        package var kind: String
        /// The name after `CONSTRAINT`, unquoted, when the clause has one.
        package var name: String?
        /// The clause exactly as written, `CONSTRAINT name` included.
        package var text: String
        /// Of a table constraint: the names in its first parentheses (`UNIQUE (a, b)`, `FOREIGN KEY (a)`).
        package var columns: [String] = []
    }

    package struct Column: Sendable, Hashable {
        package var name: String
        package var clauses: [Clause]
    }

    /// A table constraint: kind `CHECK`, `UNIQUE`, `PRIMARY` or `FOREIGN`, its name and exact text.
    package typealias TableConstraint = Clause

    package var columns: [Column]
    package var constraints: [TableConstraint]
    /// Whatever follows the column list (`WITHOUT ROWID`, `STRICT`), trimmed.
    package var options: String

    /// The clauses a model keeps verbatim on a column: `CHECK` and `COLLATE`, in their order, joined
    /// by one space; nil when the column has none.
    package static func keptClauses(_ column: Column) -> String? {
        let kept = column.clauses.filter { $0.kind == "CHECK" || $0.kind == "COLLATE" }.map(\.text)
        return kept.isEmpty ? nil : kept.joined(separator: " ")
    }

    /// The table's `CHECK` constraints, exactly as written, in order.
    package var checkConstraints: [String] { constraints.filter { $0.kind == "CHECK" }.map(\.text) }

    package func column(named name: String) -> Column? {
        columns.first { $0.name.sqliteFolded == name.sqliteFolded }
    }

    package static func parse(_ sql: String) -> CreateTableText? {
        let scalars = Array(sql.unicodeScalars)
        guard let tokens = SQLTokens.tokenize(scalars) else { return nil }
        guard let open = tokens.firstIndex(where: { $0.isPunct("(") }),
            let close = SQLTokens.matching(tokens, open), close > open + 1
        else { return nil }
        var columns: [Column] = []
        var constraints: [TableConstraint] = []
        for part in SQLTokens.split(tokens, from: open + 1, to: close) {
            guard let first = part.first else { return nil }
            if first.isConstraintStart {
                guard let constraint = SQLTokens.tableConstraint(part, scalars: scalars) else { return nil }
                constraints.append(constraint)
            } else {
                guard let name = first.identifier else { return nil }
                guard let clauses = SQLTokens.clauses(Array(part.dropFirst()), scalars: scalars, skippingType: true)
                else { return nil }
                columns.append(Column(name: name, clauses: clauses))
            }
        }
        let rest = tokens[(close + 1)...]
        let options = rest.isEmpty ? "" : SQLTokens.text(scalars, rest.first!.start, rest.last!.end)
        return CreateTableText(columns: columns, constraints: constraints, options: options)
    }
}
