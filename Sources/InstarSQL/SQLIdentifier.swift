/// SQL text building with every identifier quoted.
///
/// Model names reach SQL as identifiers (tables, columns, indexes). They may contain quotes, spaces,
/// keywords or any Unicode letter, so every identifier goes through ``quoted(_:)``; nothing else in
/// Instar splices a model name into SQL. Values are bound as statement arguments; the exceptions are
/// a column's `DEFAULT` clause and the discriminator values of a synthesized hook's filter, where the
/// text is fixed by the model, and which ``SQLLiteral`` renders.
///
/// This is the one place that spells quoting: every module that writes SQL (planner, mapping, store,
/// runtime) uses it.
package enum SQLIdentifier {
    /// `name` → `"name"`, with embedded double quotes doubled.
    package static func quoted(_ name: String) -> String {
        enclosed(name, in: "\"")
    }

    /// `text` between two `quote` characters, each `quote` inside doubled (SQL's only escape), without
    /// Foundation so that this module has no dependencies.
    ///
    /// Scalar by scalar, not Character by Character: SQLite sees bytes, and a quote followed by a
    /// combining mark (`"` + U+0301) is one Character that is not equal to the quote, so a Character
    /// loop would leave that quote undoubled and end the quoted text early.
    static func enclosed(_ text: String, in quote: Unicode.Scalar) -> String {
        var out = String.UnicodeScalarView()
        out.append(quote)
        for scalar in text.unicodeScalars {
            if scalar == quote { out.append(quote) }
            out.append(scalar)
        }
        out.append(quote)
        return String(out)
    }

    /// A comma-separated list of quoted identifiers.
    package static func list(_ names: [String]) -> String {
        names.map(quoted).joined(separator: ", ")
    }
}

/// SQL literals, for the few places SQLite takes no bound parameter (a `DEFAULT` clause, a `CHECK`,
/// the text of a hook written for a person to read).
package enum SQLLiteral {
    /// `'text'`, with embedded single quotes doubled.
    package static func text(_ text: String) -> String {
        SQLIdentifier.enclosed(text, in: "'")
    }
}

extension String {
    /// This string as a quoted SQL identifier.
    package var sqlQuoted: String { SQLIdentifier.quoted(self) }
}
