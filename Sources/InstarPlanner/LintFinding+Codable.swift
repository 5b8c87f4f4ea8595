@_spi(Layouts) import InstarModel

/// A finding's JSON (`instar lint --format json`): severity, check, message, its location spread over
/// `file`, `line` and `column`, and the hint, entity, property and value when there are some.
///
/// The other facts a finding carries for the planner and tests (``LintFinding/versions``,
/// ``LintFinding/blocking``, ``LintFinding/stranded``…) are not written: the message says them to
/// people, and scripts have never read them. A decoded finding has none of them, so it equals the
/// original only when that had none either; encoding it again gives the same JSON.
extension LintFinding: Codable {
    private enum CodingKeys: String, CodingKey {
        case severity, check, message, file, line, column, hint, entity, property, value
    }

    /// Reads a finding written by ``encode(to:)``.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let location = SourceLocation(
            file: try c.decode(String.self, forKey: .file), line: try c.decodeIfPresent(Int.self, forKey: .line),
            column: try c.decodeIfPresent(Int.self, forKey: .column))
        self.init(
            try c.decode(Severity.self, forKey: .severity), try c.decode(Check.self, forKey: .check),
            try c.decode(String.self, forKey: .message), location: location, hint: try c.decodeIfPresent(String.self, forKey: .hint))
        entity = try c.decodeIfPresent(String.self, forKey: .entity)
        property = try c.decodeIfPresent(String.self, forKey: .property)
        value = try c.decodeIfPresent(String.self, forKey: .value)
    }

    /// Writes the finding's JSON fields; absent ones are left out.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(severity, forKey: .severity)
        try c.encode(check, forKey: .check)
        try c.encode(message, forKey: .message)
        try c.encode(location.file, forKey: .file)
        try c.encodeIfPresent(location.line, forKey: .line)
        try c.encodeIfPresent(location.column, forKey: .column)
        try c.encodeIfPresent(hint, forKey: .hint)
        try c.encodeIfPresent(entity, forKey: .entity)
        try c.encodeIfPresent(property, forKey: .property)
        try c.encodeIfPresent(value, forKey: .value)
    }
}

extension LintFinding.Severity: Codable {}
extension LintFinding.Check: Codable {}
