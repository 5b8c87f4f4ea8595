import InstarInference

/// Where no chain leads to the target, as `instar plan --format json` writes it: the failure's
/// sentence and each gap with the changes that block it.
///
/// Encodable only: the JSON has the ``NoChain/message``, not the ``NoChain/reason`` it is worded
/// from, nor the ends of the search, so a failure read back from it could not say why it failed.
extension NoChain: Encodable {
    private enum CodingKeys: String, CodingKey {
        case message, gaps
    }

    /// Writes the message and the gaps.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(message, forKey: .message)
        try c.encode(gaps, forKey: .gaps)
    }
}

/// A gap's ends and its blocking changes; everything a gap holds, so it reads back whole.
extension NoChain.Gap: Codable {
    private enum CodingKeys: String, CodingKey {
        case from, to, blocking
    }

    /// Reads a gap written by ``encode(to:)``.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            from: try c.decode(String.self, forKey: .from), to: try c.decode(String.self, forKey: .to),
            blocking: try c.decode([Change].self, forKey: .blocking))
    }

    /// Writes the gap's ends and the changes that block it.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(from, forKey: .from)
        try c.encode(to, forKey: .to)
        try c.encode(blocking, forKey: .blocking)
    }
}
