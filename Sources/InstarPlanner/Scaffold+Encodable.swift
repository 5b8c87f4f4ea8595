/// A file `--scaffold` wrote: its path and role (its contents are in the file).
extension Scaffold.File: Encodable {
    private enum CodingKeys: String, CodingKey {
        case path, role
    }

    /// Writes the path and the role.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encode(role, forKey: .role)
    }
}
