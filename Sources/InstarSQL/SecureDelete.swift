/// SQLite's `secure_delete` setting, as a plan's `options: {secureDelete: …}`, the migrator and
/// `instar migrate --secure-delete` ask for it: a fixed set, so an app cannot misspell it.
///
/// A table rebuild frees the old table's pages: with ``on`` every one of them is zero-filled and
/// journaled (Debian's SQLite default), roughly doubling a rebuild's cost; ``fast`` overwrites only
/// pages written anyway; ``off`` none.
public enum SecureDelete: String, Sendable, Hashable, CaseIterable {
    /// Zero-fill every freed page.
    case on
    /// Do not overwrite freed pages.
    case off
    /// Overwrite freed pages only where they are written anyway.
    case fast

    /// Reads the spellings a command line or plan may use (`on`/`true`/`1`, `off`/`false`/`0`, `fast`,
    /// any case); nil for anything else.
    package init?(parsing text: String) {
        switch text.lowercased() {
        case "on", "true", "1": self = .on
        case "off", "false", "0": self = .off
        case "fast": self = .fast
        default: return nil
        }
    }

    /// The value of `PRAGMA secure_delete = …`.
    package var pragmaValue: String {
        switch self {
        case .on: "1"
        case .off: "0"
        case .fast: "FAST"
        }
    }
}
