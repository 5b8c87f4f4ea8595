/// SQL text building with every identifier quoted.
///
/// Model names reach SQL as identifiers (tables, columns, indexes). They may contain quotes, spaces,
/// keywords or any Unicode letter, so every identifier goes through ``quoted(_:)``; nothing else in
/// Instar splices a model name into SQL. Values are bound as statement arguments; the only exception is
/// a column's `DEFAULT` clause, where SQLite accepts no parameter, and which ``SQLValue/literal`` renders
/// from a typed value.
public enum SQLIdentifier {
    /// `name` → `"name"`, with embedded double quotes doubled.
    public static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A comma-separated list of quoted identifiers.
    public static func list(_ names: [String]) -> String {
        names.map(quoted).joined(separator: ", ")
    }
}

extension String {
    /// This string as a quoted SQL identifier.
    var sqlQuoted: String { SQLIdentifier.quoted(self) }
}
