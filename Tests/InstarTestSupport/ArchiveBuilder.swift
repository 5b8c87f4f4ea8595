import Foundation

/// Builds `NSKeyedArchiver` archives in tests, so the compiled-model reader can be fed exactly the keys
/// under test (and broken archives) without Core Data.
///
/// References are written in the XML-archive spelling `{"CF$UID": n}`, which the reader accepts in
/// both property-list formats; archives from Apple's tools use the binary UID type, which the corpus
/// tests cover.
package struct ArchiveBuilder {
    package typealias Reference = [String: Any]

    package private(set) var objects: [Any] = ["$null"]
    /// An empty archive.
    package init() {}
    private var classRecords: [String: Int] = [:]
    package var version: Any = 100_000
    package var archiver: Any = "NSKeyedArchiver"

    package static func ref(_ index: Int) -> Reference { ["CF$UID": index] }
    package static var null: Reference { ref(0) }

    /// Appends a raw value (string, number, dictionary) and returns a reference to it.
    package mutating func add(_ value: Any) -> Reference {
        objects.append(value)
        return Self.ref(objects.count - 1)
    }

    /// An instance of `chain[0]` (whose superclasses follow) with the given fields.
    package mutating func object(_ chain: [String], _ fields: [String: Any]) -> Reference {
        var fields = fields
        fields["$class"] = classRecord(chain)
        return add(fields)
    }

    /// A string-keyed `NSMutableDictionary`.
    package mutating func dictionary(_ entries: [(String, Reference)]) -> Reference {
        let keys = entries.map { add($0.0) }
        return object(
            ["NSMutableDictionary", "NSDictionary", "NSObject"],
            ["NS.keys": keys, "NS.objects": entries.map(\.1)])
    }

    package mutating func array(_ members: [Reference], className: String = "NSMutableArray") -> Reference {
        let chain = className == "NSSet" ? ["NSSet", "NSObject"] : [className, "NSArray", "NSObject"]
        return object(chain, ["NS.objects": members])
    }

    package mutating func strings(_ texts: [String]) -> Reference { array(texts.map { add($0) }) }

    package mutating func classRecord(_ chain: [String]) -> Reference {
        if let known = classRecords[chain[0]] { return Self.ref(known) }
        let reference = add(["$classname": chain[0], "$classes": chain])
        classRecords[chain[0]] = reference["CF$UID"] as? Int
        return reference
    }

    /// Replaces the object at `reference`, for tests that break an archive after building it.
    package mutating func replace(_ reference: Reference, with value: Any) {
        objects[reference["CF$UID"] as! Int] = value
    }

    package func data(root: Reference, format: PropertyListSerialization.PropertyListFormat = .binary) throws -> Data {
        let frame: [String: Any] = [
            "$archiver": archiver, "$version": version, "$top": ["root": root], "$objects": objects,
        ]
        return try PropertyListSerialization.data(fromPropertyList: frame, format: format, options: 0)
    }
}

/// Builds the archive of a small `NSManagedObjectModel`, with the keys momc writes.
package struct ModelArchiveBuilder {
    package var archive = ArchiveBuilder()
    package var entities: [(String, ArchiveBuilder.Reference)] = []
    /// An empty model archive.
    package init() {}

    package static let attributeClass = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
    package static let relationshipClass = ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"]
    package static let entityClass = ["NSEntityDescription", "NSObject"]

    /// An attribute; `_P` is 0x1 (present) | 0x2 optional | 0xF0 (no predicates, warnings, user info, modifier).
    package mutating func attribute(_ name: String, type: Int, optional: Bool = true, extra: [String: Any] = [:])
        -> (String, ArchiveBuilder.Reference)
    {
        var fields: [String: Any] = [
            "NSPropertyName": archive.add(name), "NSAttributeType": type, "_P": 0xF1 | (optional ? 2 : 0),
            "NSFlagsKey": 0, "NSDefaultValue": ArchiveBuilder.null, "NSRenamingIdentifier": archive.add(name),
        ]
        if optional { fields["NSIsOptional"] = true }
        fields.merge(extra) { $1 }
        return (name, archive.object(Self.attributeClass, fields))
    }

    package mutating func relationship(
        _ name: String, to destination: String, inverse: String?, maxCount: Int, extra: [String: Any] = [:]
    ) -> (String, ArchiveBuilder.Reference) {
        var fields: [String: Any] = [
            "NSPropertyName": archive.add(name), "_NSDestinationEntityName": archive.add(destination),
            "_NSInverseRelationshipName": inverse.map { archive.add($0) } ?? ArchiveBuilder.null,
            "NSMinCount": 0, "NSMaxCount": maxCount, "NSDeleteRule": 1, "_P": 0xF3, "NSIsOptional": true,
        ]
        fields.merge(extra) { $1 }
        return (name, archive.object(Self.relationshipClass, fields))
    }

    @discardableResult
    package mutating func entity(
        _ name: String, properties: [(String, ArchiveBuilder.Reference)], extra: [String: Any] = [:]
    ) -> ArchiveBuilder.Reference {
        var fields: [String: Any] = [
            "NSEntityName": archive.add(name), "NSProperties": archive.dictionary(properties),
            "NSRenamingIdentifier": archive.add(name), "NSVersionHashModifier": ArchiveBuilder.null,
            "NSSuperentity": ArchiveBuilder.null,
        ]
        fields.merge(extra) { $1 }
        let reference = archive.object(Self.entityClass, fields)
        entities.append((name, reference))
        return reference
    }

    package mutating func data(
        versionIdentifier: String? = "1", format: PropertyListSerialization.PropertyListFormat = .binary
    ) throws -> Data {
        let identifiers = archive.array(versionIdentifier.map { [archive.add($0)] } ?? [], className: "NSSet")
        let root = archive.object(
            ["NSManagedObjectModel", "NSObject"],
            ["NSEntities": archive.dictionary(entities), "NSVersionIdentifiers": identifiers])
        return try archive.data(root: root, format: format)
    }
}
