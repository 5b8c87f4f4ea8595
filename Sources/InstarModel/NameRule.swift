/// The one rule every name a model, plan or mapping file gives must pass before it can reach SQL or a
/// file name: no control characters.
///
/// SQLite stops reading an identifier at a NUL (quoting cannot help: the C string ends there), so a
/// name holding one fails later inside SQLite with neither file nor line; other control characters
/// (newlines, tabs, escape) make table names, journal records and printed plans ambiguous. No reader's
/// own syntax stops them: YAML and JSON spell them as `"\0"`/`"\u0000"`, XML as `&#9;` or `&#10;`, a
/// compiled model stores any bytes. Every reader's names meet this rule through ``ModelValidator``
/// (entities, properties, indexes, stored table and column names) or the plan reader (versions, hooks),
/// which report it as ``ModelProblem/Kind/invalidName`` at the name's location.
package enum NameRule {
    /// The first control character (Unicode category Cc: U+0000–U+001F, U+007F–U+009F) in `name`, and
    /// its position in characters counted from 1; nil when there is none.
    package static func controlCharacter(in name: String) -> (scalar: Unicode.Scalar, position: Int)? {
        for (offset, scalar) in name.unicodeScalars.enumerated() where scalar.properties.generalCategory == .control {
            return (scalar, offset + 1)
        }
        return nil
    }

    /// `name` with control characters spelled `\u{0}`, for a message that must not print them.
    package static func visible(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                text += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// The message for `name` (a `what`, e.g. "entity name") when it breaks the rule; nil when it keeps it.
    package static func violation(_ what: String, _ name: String) -> String? {
        guard let (scalar, position) = controlCharacter(in: name) else { return nil }
        let code = "U+" + String(repeating: "0", count: max(0, 4 - String(scalar.value, radix: 16).count))
            + String(scalar.value, radix: 16, uppercase: true)
        return "\(what) '\(visible(name))' holds a control character (\(code) at character \(position)); "
            + "names reach SQL and file names, where it cannot go"
    }

    /// The hint every such problem carries.
    package static let hint = "remove the character: names are letters, digits, '_' and other printable characters"
}
