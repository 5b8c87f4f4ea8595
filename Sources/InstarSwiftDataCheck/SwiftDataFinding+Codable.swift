@_spi(Layouts) import InstarModel

/// A finding's JSON is the one `instar plan --swiftdata --format json` documents (its goldens and the
/// scripts reading them): `kind`, `message`, the fix as `hint`, the location as one
/// `"file:line:column"` string, and the versions, entity and property when there are some.
///
/// Decoding splits the location string from the right, so a path holding colons reads back whole.
extension SwiftDataFinding {
    private enum CodingKeys: String, CodingKey {
        case kind, message, hint, location, versions, entity, property
    }

    /// Reads a finding written by ``encode(to:)``.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            kind: try c.decode(Kind.self, forKey: .kind), message: try c.decode(String.self, forKey: .message),
            fix: try c.decode(String.self, forKey: .hint),
            location: try c.decodeIfPresent(String.self, forKey: .location).map(Self.location(parsing:)),
            versions: try c.decodeIfPresent([String].self, forKey: .versions),
            entity: try c.decodeIfPresent(String.self, forKey: .entity), property: try c.decodeIfPresent(String.self, forKey: .property))
    }

    /// Writes the finding as `instar plan --swiftdata --format json` does; absent fields are left out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(message, forKey: .message)
        try c.encode(fix, forKey: .hint)
        try c.encodeIfPresent(location?.description, forKey: .location)
        try c.encodeIfPresent(versions, forKey: .versions)
        try c.encodeIfPresent(entity, forKey: .entity)
        try c.encodeIfPresent(property, forKey: .property)
    }

    /// `file`, `file:line` or `file:line:column`, read from the right: trailing numbers are the line and
    /// column, the rest is the path (which may hold colons itself).
    static func location(parsing text: String) -> SourceLocation {
        var parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        var numbers: [Int] = []
        while numbers.count < 2, parts.count > 1, let number = Int(parts[parts.count - 1]) {
            numbers.insert(number, at: 0)
            parts.removeLast()
        }
        return SourceLocation(file: parts.joined(separator: ":"), line: numbers.first, column: numbers.count > 1 ? numbers[1] : nil)
    }
}
