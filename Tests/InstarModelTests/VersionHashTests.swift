import Foundation
import Testing

@_spi(Layouts) @testable import InstarModel

/// The test vectors of `shared/coredata/FORMAT.md` §2.9: hashes that Apple's own tools wrote.
@Suite struct VersionHashTests {
    func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    /// `Haimanu/MobilApp` `Model.momd/VersionInfo.plist`: entity `User` with four optional strings.
    @Test func userEntityMatchesXcodeCompiledModel() throws {
        let user = Entity(
            name: "User",
            attributes: ["email", "password", "phone", "name"].map { Attribute(name: $0, type: .string, isOptional: true) })
        let model = try Model(name: "Model", entities: [user])
        let property = EntityHasher.propertyHash(
            name: "email", isOptional: true, isTransient: false, isReadOnly: false, modifier: nil)
        #expect(hex(property) == "2f8af339563d17703d634db1933935d5e4b7d9c54574f0475cd9616ac9d21d7d")
        let attribute = EntityHasher.hash(of: Attribute(name: "email", type: .string, isOptional: true))
        #expect(hex(attribute) == "922e33818991f625f7fac584b6e919885e7e360a178b93d86c86d941133235d8")
        let hashes = VersionHashes(model: model)
        #expect(hex(hashes.entityHashes["User"]!) == "d788cd085c530397416fb51d5adf503d264e736c2d21a163fb6e66864fb2105e")
    }

    /// Kindle for macOS `BookManifest.kfx`: two entities, the checksum and the SHA-512 digest.
    @Test func kindleStoreChecksumAndDigest() throws {
        let info = Entity(name: "KfxBookBundleInfo", attributes: [Attribute(name: "bookID", type: .string, isOptional: false)])
        let piece = Entity(
            name: "KfxBookPiece",
            attributes: [
                Attribute(name: "rawRequirementLevel", type: .integer16),
                Attribute(name: "rawStatus", type: .integer16),
                Attribute(name: "identifier", type: .string),
                Attribute(name: "relativePath", type: .string),
                Attribute(name: "type", type: .string),
            ])
        let hashes = VersionHashes(model: try Model(name: "Kindle", entities: [piece, info]))
        #expect(hex(hashes.entityHashes["KfxBookBundleInfo"]!) == "4f5ae29e7d00c018a28bac4caf2b29ffd26fb593fbe56293e2ce3b02461a5912")
        #expect(hex(hashes.entityHashes["KfxBookPiece"]!) == "993ed35b3f0ca8080b80544e55fa56079fa99b0d161eb58d55a7adae0397ea67")
        #expect(hashes.versionChecksum == "pidIbZPvQyEzUvC1VFr+FAyYBDfca8p+vvp2/9/xOpI=")
        #expect(
            hashes.versionHashesDigest
                == "IhUTyr9AR+K5Eh9eUsxB62nJfpkkBV8twYT1PlFZjyqeVewioAwZ11GBW9IhQs/jkJMzdsOWto82IzetroHgcw==")
    }

    /// `sceyt-chat-ios-uikit` V3: a to-one and an ordered to-many relationship hash.
    @Test func relationshipHashesMatchSceytModel() throws {
        let message = Entity(
            name: "MessageDTO",
            relationships: [Relationship(name: "attachments", destination: "AttachmentDTO", inverse: "message", isToMany: true)])
        let attachment = Entity(
            name: "AttachmentDTO",
            relationships: [Relationship(name: "message", destination: "MessageDTO", inverse: "attachments")])
        let poll = Entity(
            name: "PollDTO",
            relationships: [
                Relationship(name: "options", destination: "PollOptionDTO", inverse: "poll", isToMany: true, isOrdered: true)
            ])
        let option = Entity(
            name: "PollOptionDTO", relationships: [Relationship(name: "poll", destination: "PollDTO", inverse: "options")])
        let model = try Model(name: "Sceyt", entities: [message, attachment, poll, option])
        let toOne = EntityHasher.hash(of: attachment.relationships[0], in: "AttachmentDTO", model: model)
        #expect(hex(toOne) == "2069e936ad9522a02d145bbe3173c92d06212e6289aa333955a742b7f8180153")
        let ordered = EntityHasher.hash(of: poll.relationships[0], in: "PollDTO", model: model)
        #expect(hex(ordered) == "d9d278f021ef9f99b802c91851be260e812e4d37896da30bde02d4d41a87cd88")
    }

    /// Each hash input must change the hash; each documented non-input must not.
    @Test func hashInputsAndNonInputs() throws {
        func hash(_ attribute: Attribute, entity: (inout Entity) -> Void = { _ in }) throws -> Data {
            var e = Entity(name: "E", attributes: [attribute])
            entity(&e)
            return VersionHashes(model: try Model(name: "M", entities: [e])).entityHashes["E"]!
        }
        let base = Attribute(name: "a", type: .binary)
        let reference = try hash(base)
        var changed = base
        changed.isOptional = false
        #expect(try hash(changed) != reference)
        changed = base
        changed.versionHashModifier = "v2"
        #expect(try hash(changed) != reference)
        changed = base
        changed.allowsExternalBinaryDataStorage = true
        #expect(try hash(changed) != reference)
        changed = base
        changed.type = .transformable
        #expect(try hash(changed) != reference)
        #expect(try hash(base, entity: { $0.isAbstract = true }) != reference)
        #expect(try hash(base, entity: { $0.versionHashModifier = "x" }) != reference)
        #expect(try hash(base, entity: { $0.uniquenessConstraints = [["a"]] }) != reference)
        // Not inputs: default value, renaming identifier, indexes, user info.
        changed = base
        changed.defaultValue = "00"
        changed.renamingIdentifier = "old"
        changed.userInfo = ["k": "v"]
        #expect(try hash(changed) == reference)
        #expect(try hash(base, entity: { $0.indexes = [FetchIndex(name: "i", elements: [.init(property: "a")])] }) == reference)
        #expect(try hash(base, entity: { $0.renamingIdentifier = "Old" }) == reference)
        // Transient properties are left out entirely.
        #expect(
            try hash(base, entity: { $0.attributes.append(Attribute(name: "t", type: .string, isTransient: true)) })
                == reference)
    }

    @Test func subentityHashIncludesParentAndInheritedProperties() throws {
        let parent = Entity(name: "P", isAbstract: true, attributes: [Attribute(name: "x", type: .integer32)])
        let child = Entity(name: "C", parent: "P", attributes: [Attribute(name: "y", type: .string)])
        let hashes = VersionHashes(model: try Model(name: "M", entities: [parent, child]))
        var otherParent = parent
        otherParent.attributes[0].type = .integer64
        let changed = VersionHashes(model: try Model(name: "M", entities: [otherParent, child]))
        #expect(hashes.entityHashes["C"] != changed.entityHashes["C"])
        #expect(hashes.entityHashes["P"] != changed.entityHashes["P"])
    }

    @Test func coreDataOrderPutsUppercaseBeforeUnderscoreBeforeLowercase() {
        let names = ["b", "_a", "B", "a", "Z_"].sorted(by: CoreDataOrder.precedes)
        #expect(names == ["B", "Z_", "_a", "a", "b"])
    }
}
