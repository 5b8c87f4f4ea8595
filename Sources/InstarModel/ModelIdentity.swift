import Foundation

/// Core Data's version identity of one model, as `instar model hashes` reports it: the model's name,
/// its version identifier, and its ``VersionHashes``.
package struct ModelIdentity: Sendable, Equatable {
    /// The model's (version's) name.
    package var model: String
    /// The model's version identifier, when it has one (not part of the hashes).
    package var versionIdentifier: String?
    /// The per-entity hashes and the checksum and digest derived from them.
    package var hashes: VersionHashes

    /// The identity of `model`.
    package init(_ model: Model) {
        self.init(model: model.name, versionIdentifier: model.versionIdentifier, hashes: VersionHashes(model: model))
    }

    /// An identity from its parts.
    package init(model: String, versionIdentifier: String?, hashes: VersionHashes) {
        self.model = model
        self.versionIdentifier = versionIdentifier
        self.hashes = hashes
    }
}

/// The JSON of `instar model hashes --format json`: each entity's hash in base64 under `entities`,
/// beside the checksum and digest Core Data's metadata holds. The checksum and digest follow from the
/// entity hashes, so decoding derives them again and refuses JSON whose values disagree with them.
extension ModelIdentity: Codable {
    private enum CodingKeys: String, CodingKey {
        case model, versionIdentifier, entities, versionChecksum, versionHashesDigest
    }

    /// Reads an identity written by ``encode(to:)``.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var entityHashes: [String: Data] = [:]
        for (name, base64) in try c.decode([String: String].self, forKey: .entities) {
            guard let hash = Data(base64Encoded: base64) else {
                throw DecodingError.dataCorruptedError(forKey: .entities, in: c, debugDescription: "\(name)'s hash is not base64")
            }
            entityHashes[name] = hash
        }
        let hashes = VersionHashes(entityHashes: entityHashes)
        guard
            try c.decode(String.self, forKey: .versionChecksum) == hashes.versionChecksum,
            try c.decode(String.self, forKey: .versionHashesDigest) == hashes.versionHashesDigest
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .versionChecksum, in: c, debugDescription: "the checksum or digest does not match the entity hashes")
        }
        self.init(
            model: try c.decode(String.self, forKey: .model),
            versionIdentifier: try c.decodeIfPresent(String.self, forKey: .versionIdentifier), hashes: hashes)
    }

    /// Writes the name, the identifier when there is one, the base64 entity hashes, the checksum and the digest.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(model, forKey: .model)
        try c.encodeIfPresent(versionIdentifier, forKey: .versionIdentifier)
        try c.encode(hashes.base64EntityHashes, forKey: .entities)
        try c.encode(hashes.versionChecksum, forKey: .versionChecksum)
        try c.encode(hashes.versionHashesDigest, forKey: .versionHashesDigest)
    }
}
