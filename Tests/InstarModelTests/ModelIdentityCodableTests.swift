import Foundation
@_spi(Layouts) import InstarModel
import InstarTestSupport
import Testing

/// `instar model hashes --format json`: a model's version identity, whose checksum and digest decoding
/// derives again from the entity hashes.
@Suite struct ModelIdentityCodableTests {
    let identity: ModelIdentity

    init() throws {
        identity = ModelIdentity(try model("entities:\n  Car:\n    attributes:\n      make: string?\n  Owner:\n    attributes:\n      name: string?\n", name: "Garage"))
    }

    @Test func roundTrips() throws {
        #expect(try JSONDecoder().decode(ModelIdentity.self, from: JSONEncoder().encode(identity)) == identity)
        var identified = identity
        identified.versionIdentifier = "2.0"
        #expect(try JSONDecoder().decode(ModelIdentity.self, from: JSONEncoder().encode(identified)) == identified)
    }

    @Test func writesBase64EntityHashesBesideTheChecksum() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(identity)) as? [String: Any])
        #expect(object.keys.sorted() == ["entities", "model", "versionChecksum", "versionHashesDigest"], "no identifier: no key")
        #expect(object["entities"] as? [String: String] == identity.hashes.base64EntityHashes)
        #expect(object["versionChecksum"] as? String == identity.hashes.versionChecksum)
    }

    /// A checksum that does not follow from the entity hashes is refused rather than carried along.
    @Test func refusesAChecksumTheHashesDoNotGive() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(identity)) as? [String: Any])
        object["versionChecksum"] = "AAAA"
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ModelIdentity.self, from: data) }
    }
}
