import Crypto
import Foundation

/// Core Data's version identity, computed bit-exactly from a ``Model``.
///
/// Core Data decides whether a store fits a model by comparing per-entity SHA-256 hashes
/// (`NSStoreModelVersionHashes`). Instar uses the very same fingerprint for every model it reads, so
/// an Instar store, a Core Data store and an `.xcdatamodeld` all agree on what "version V" means.
/// The algorithm is in `shared/coredata/FORMAT.md` §2; the test vectors there are in the test suite.
@_spi(Layouts) public struct VersionHashes: Sendable, Hashable {
    /// Entity name → 32-byte SHA-256 (`NSStoreModelVersionHashes`).
    @_spi(Layouts) public let entityHashes: [String: Data]
    /// Base64 of SHA-256 over the entity hashes sorted by name (`NSManagedObjectModel.versionChecksum`).
    @_spi(Layouts) public let versionChecksum: String
    /// Base64 of SHA-512 over name ‖ hash pairs (`NSStoreModelVersionHashesDigest`).
    @_spi(Layouts) public let versionHashesDigest: String

    /// The hashes of a model, computed once per model and cached.
    @_spi(Layouts) public init(model: Model) {
        self = model.versionHashes
    }

    init(computing model: Model) {
        var hasher = EntityHasher(model: model)
        var hashes: [String: Data] = [:]
        for entity in model.entities {
            hashes[entity.name] = hasher.hash(of: entity.name)
        }
        self.init(entityHashes: hashes)
    }

    /// Derives the checksum and digest from entity hashes, for example those read from a store.
    @_spi(Layouts) public init(entityHashes: [String: Data]) {
        self.entityHashes = entityHashes
        let names = entityHashes.keys.sorted(by: CoreDataOrder.precedes)
        var checksum = SHA256()
        var digest = SHA512()
        for name in names {
            let hash = entityHashes[name]!
            checksum.update(data: hash)
            digest.update(data: Data(name.utf8))
            digest.update(data: hash)
        }
        self.versionChecksum = Data(checksum.finalize()).base64EncodedString()
        self.versionHashesDigest = Data(digest.finalize()).base64EncodedString()
    }

    /// Entity hashes as base64 strings, the form Core Data metadata dumps and Instar's JSON use.
    @_spi(Layouts) public var base64EntityHashes: [String: String] {
        entityHashes.mapValues { $0.base64EncodedString() }
    }
}

/// The order of `-[NSString compare:]` for the names Core Data sorts: UTF-16 code units, so for
/// ASCII uppercase sorts before `_`, which sorts before lowercase.
package enum CoreDataOrder {
    /// Whether `a` sorts before `b` in Core Data's order, for sorting entity names as Core Data does.
    package static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf16.lexicographicallyPrecedes(b.utf16)
    }
}

/// Computes entity hashes with memoisation (a sub-entity's hash includes its parent's).
struct EntityHasher {
    let model: Model
    private var cache: [String: Data] = [:]

    init(model: Model) {
        self.model = model
    }

    /// Hashes of entities that depend on nothing but themselves (no parent, no self-inverse
    /// relationship), shared across models: consecutive versions of a long history repeat most of
    /// their entities unchanged, and a plan hashes every version.
    /// A memo of entity → hash, bounded so that a long-running app does not keep every entity it ever hashed.
    private static let standalone = Locked<[Entity: Data]>([:])

    mutating func hash(of entityName: String) -> Data {
        if let cached = cache[entityName] { return cached }
        guard let entity = model.entity(named: entityName) else { return Data() }
        let isStandalone = entity.parent == nil && !entity.relationships.contains { $0.inverse == $0.name }
        if isStandalone, let known = Self.standalone.withLock({ $0[entity] }) {
            cache[entityName] = known
            return known
        }
        var bytes = Data(entity.name.utf8)
        bytes.append(entity.isAbstract ? 1 : 0)
        if let parent = entity.parent {
            bytes.append(hash(of: parent))
        }
        let properties = model.properties(of: entityName)
            .filter { !$0.property.isTransient }
            .sorted { CoreDataOrder.precedes($0.name, $1.name) }
        for resolved in properties {
            switch resolved.property {
            case .attribute(let attribute):
                bytes.append(Self.hash(of: attribute))
            case .relationship(let relationship):
                bytes.append(Self.hash(of: relationship, in: resolved.declaringEntity, model: model))
            }
        }
        if let modifier = entity.versionHashModifier {
            bytes.append(Data(modifier.utf8))
        }
        let constraints = entity.uniquenessConstraints
            .map { $0.joined(separator: ".") }
            .sorted(by: CoreDataOrder.precedes)
        for constraint in constraints where !constraint.isEmpty {
            bytes.append(Data(constraint.utf8))
        }
        let result = Data(SHA256.hash(data: bytes))
        cache[entityName] = result
        if isStandalone {
            Self.standalone.withLock { hashes in
                if hashes.count >= 100_000 { hashes.removeAll(keepingCapacity: true) }
                hashes[entity] = result
            }
        }
        return result
    }

    /// `P(p)`: name, flags (bit 0 optional, bit 1 transient, bit 2 read-only), modifier.
    static func propertyHash(
        name: String, isOptional: Bool, isTransient: Bool, isReadOnly: Bool, modifier: String?
    ) -> Data {
        var bytes = Data(name.utf8)
        let flags: UInt16 = (isOptional ? 1 : 0) | (isTransient ? 2 : 0) | (isReadOnly ? 4 : 0)
        bytes.appendLittleEndian(flags)
        if let modifier { bytes.append(Data(modifier.utf8)) }
        return Data(SHA256.hash(data: bytes))
    }

    /// `A(a)`: property hash, type code, then one byte each for external storage and history tombstones.
    ///
    /// A composite attribute hashes as SHA-256 over its elements' own `A(e)`, sorted by element name:
    /// its name, optional flag and type code do not enter. Verified against every entity of the six
    /// MetaCocktails SwiftData stores in the corpus (enum and struct composites, optional or not), where
    /// the other candidates (the property hash plus the type code plus the element hashes, flattened
    /// elements in the entity, declaration order) all disagree.
    static func hash(of attribute: Attribute) -> Data {
        if attribute.type == .composite {
            var bytes = Data()
            for element in attribute.elements.sorted(by: { CoreDataOrder.precedes($0.name, $1.name) }) {
                bytes.append(hash(of: element))
            }
            return Data(SHA256.hash(data: bytes))
        }
        var bytes = propertyHash(
            name: attribute.name, isOptional: attribute.isOptional, isTransient: attribute.isTransient,
            isReadOnly: attribute.isReadOnly, modifier: attribute.versionHashModifier)
        bytes.appendLittleEndian(attribute.type.coreDataCode)
        if attribute.allowsExternalBinaryDataStorage { bytes.append(1) }
        if attribute.preservesValueInHistoryOnDeletion { bytes.append(1) }
        return Data(SHA256.hash(data: bytes))
    }

    /// `R(r)`: property hash, destination, inverse (unless self-inverse), max and min counts, ordered.
    static func hash(of relationship: Relationship, in declaringEntity: String, model: Model) -> Data {
        var bytes = propertyHash(
            name: relationship.name, isOptional: relationship.isOptional, isTransient: relationship.isTransient,
            isReadOnly: relationship.isReadOnly, modifier: relationship.versionHashModifier)
        bytes.append(Data(relationship.destination.utf8))
        if let inverse = relationship.inverse {
            // A relationship that is its own inverse does not hash the inverse name.
            let isSelfInverse = inverse == relationship.name
                && model.entity(declaringEntity, isKindOf: relationship.destination)
            if !isSelfInverse { bytes.append(Data(inverse.utf8)) }
        }
        // 32 bits in the hash; the validator refuses larger counts, and a model hashed unvalidated
        // (a compiled one being identified) must not trap on one.
        bytes.appendLittleEndian(Int32(truncatingIfNeeded: relationship.maxCount))
        bytes.appendLittleEndian(Int32(truncatingIfNeeded: relationship.minCount))
        if relationship.isOrdered { bytes.appendLittleEndian(UInt16(1)) }
        return Data(SHA256.hash(data: bytes))
    }
}

extension Data {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

/// SHA-256 of text as lowercase hex: fingerprints of plans and steps.
package enum Fingerprint {
    /// The fingerprint of the text (64 hex digits); equal texts, equal fingerprints.
    package static func of(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
