import Foundation
@_spi(Layouts) import InstarModel

/// A Core Data mapping model (`.xcmappingmodel`), as its source file records it.
///
/// Xcode's source form (`xcmapping.xml`) names the two models by path and lists entity mappings with
/// their property mappings and expressions; it records no entity version hashes (only the compiled
/// `.cdm` does, which `mapc` takes from the models at those paths). Expressions Xcode generates itself
/// (`$source.name` for an attribute of the same name, the relationship expressions) are not in the file
/// either: Instar adds them (`resolved(source:destination:)`) once the two versions are known.
package struct MappingModel: Sendable, Hashable {
    /// The path of the `xcmapping.xml` file read.
    package var file: String
    /// The mapping model's name: its `.xcmappingmodel` folder name without the extension.
    package var name: String
    /// The model version the mapping migrates from.
    package var source: ModelReference
    /// The model version the mapping migrates to.
    package var destination: ModelReference
    /// In Core Data's order: ascending `mappingnumber`, the order Xcode's editor shows and `mapc` keeps.
    package var entityMappings: [EntityMapping]

    /// A mapping model as read; Instar completes it against the two versions once they are known.
    package init(
        file: String, name: String, source: ModelReference, destination: ModelReference, entityMappings: [EntityMapping]
    ) {
        self.file = file
        self.name = name
        self.source = source
        self.destination = destination
        self.entityMappings = entityMappings
    }

    /// The entity mapping of that name (`"NoteToNote"`), or nil.
    package func entityMapping(named name: String) -> EntityMapping? {
        entityMappings.first { $0.name == name }
    }
}

/// Which model a mapping model maps from or to, as recorded.
package struct ModelReference: Sendable, Hashable, Codable {
    /// The `.xcdatamodel` path as Xcode recorded it (relative to the project, or absolute).
    package var path: String?
    /// The version's name: the last path component without `.xcdatamodel` (`"Moody 3"`).
    package var versionName: String?
    /// Entity name → version hash, when the file records them (a compiled `.cdm` does; `xcmapping.xml`
    /// does not, so this is empty after reading one).
    package var entityVersionHashes: [String: Data]

    /// A reference by path; ``versionName`` is derived from the path's last component.
    package init(path: String?, entityVersionHashes: [String: Data] = [:]) {
        self.path = path
        self.entityVersionHashes = entityVersionHashes
        self.versionName = path.map { path in
            let last = path.split(separator: "/").last.map(String.init) ?? path
            return last.hasSuffix(".xcdatamodel") ? String(last.dropLast(".xcdatamodel".count)) : last
        }
    }
}

/// `NSEntityMappingType`, with Core Data's raw values.
package enum EntityMappingKind: Int, Sendable, Hashable, Codable, CaseIterable {
    /// Not said; Instar derives the kind from the entities and their hashes.
    case undefined = 0
    /// App code (a custom policy) creates the destination instances.
    case custom = 1
    /// The destination entity is new: no source instances.
    case add = 2
    /// The source entity is gone: its instances are not migrated.
    case remove = 3
    /// Source and destination entity are the same version: instances are copied as they are.
    case copy = 4
    /// The entity changed: instances are created from source instances through the property mappings.
    case transform = 5

    /// The name Xcode writes in `mappingtypename` (`Undefined`, `Custom`, `Add`, …).
    package var name: String {
        switch self {
        case .undefined: "Undefined"
        case .custom: "Custom"
        case .add: "Add"
        case .remove: "Remove"
        case .copy: "Copy"
        case .transform: "Transform"
        }
    }

    init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            return nil
        }
        self = kind
    }
}

/// One entity mapping: which source instances become which destination instances, and how.
package struct EntityMapping: Sendable, Hashable {
    /// The name relationship expressions refer to (`"NoteToNote"`): as written, else Xcode's default
    /// `<Source>To<Destination>` (or the destination name alone for a mapping without a source).
    package var name: String
    /// As recorded when the file says more than `Undefined`; otherwise derived: `.add` without a source,
    /// `.remove` without a destination, and `.copy`/`.transform` once version hashes are known.
    package var kind: EntityMappingKind
    /// The source entity's name; nil for an ``EntityMappingKind/add`` mapping.
    package var sourceEntity: String?
    /// The source entity's version hash when recorded (a compiled `.cdm`) or resolved; nil otherwise.
    package var sourceEntityVersionHash: Data?
    /// The destination entity's name; nil for an ``EntityMappingKind/remove`` mapping.
    package var destinationEntity: String?
    /// The destination entity's version hash when recorded (a compiled `.cdm`) or resolved; nil otherwise.
    package var destinationEntityVersionHash: Data?
    /// Which source instances are migrated: `FETCH(…)` of all instances of the source entity, with the
    /// filter, as `mapc` builds it. Nil for a mapping without a source.
    package var sourceExpression: MappingExpression?
    /// The filter predicate (`sourcefilterpredicatestring`), parsed; nil when there is none.
    package var filter: MappingPredicate?
    /// The filter exactly as written.
    package var filterText: String?
    /// `NSEntityMigrationPolicy` subclass that runs app code for this mapping.
    package var customPolicyClass: String?
    /// The entity mapping's user info, which Core Data hands to the custom policy.
    package var userInfo: [String: MappingValue]
    /// How each destination attribute gets its value.
    package var attributeMappings: [PropertyMapping]
    /// How each destination relationship gets its objects.
    package var relationshipMappings: [PropertyMapping]
    /// The position Xcode gave the mapping (`mappingnumber`).
    package var mappingNumber: Int
    /// Where the entity mapping is in the file, for messages.
    package var location: SourceLocation

    /// An entity mapping; only the names, kind and location are required.
    package init(
        name: String, kind: EntityMappingKind, sourceEntity: String?, destinationEntity: String?,
        sourceEntityVersionHash: Data? = nil, destinationEntityVersionHash: Data? = nil,
        sourceExpression: MappingExpression? = nil, filter: MappingPredicate? = nil, filterText: String? = nil,
        customPolicyClass: String? = nil, userInfo: [String: MappingValue] = [:],
        attributeMappings: [PropertyMapping] = [], relationshipMappings: [PropertyMapping] = [],
        mappingNumber: Int = 0, location: SourceLocation
    ) {
        self.name = name
        self.kind = kind
        self.sourceEntity = sourceEntity
        self.destinationEntity = destinationEntity
        self.sourceEntityVersionHash = sourceEntityVersionHash
        self.destinationEntityVersionHash = destinationEntityVersionHash
        self.sourceExpression = sourceExpression
        self.filter = filter
        self.filterText = filterText
        self.customPolicyClass = customPolicyClass
        self.userInfo = userInfo
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.mappingNumber = mappingNumber
        self.location = location
    }
}

/// How a destination attribute or relationship gets its value.
package struct PropertyMapping: Sendable, Hashable {
    /// The destination property's name.
    package var name: String
    /// The value expression; nil when the property is left at its default (nothing written and nothing
    /// for Xcode to generate).
    package var valueExpression: MappingExpression?
    /// Where the value expression comes from: the author, Xcode's generation, or nowhere.
    package var origin: Origin
    /// For a relationship Xcode fills itself: the source key path and entity mapping it names, if set.
    package var sourceKeyPath: String?
    /// The entity mapping whose destination instances the relationship links to, when set.
    package var sourceMappingName: String?
    /// The property mapping's user info.
    package var userInfo: [String: MappingValue]
    /// Where the property mapping is in the file, for messages.
    package var location: SourceLocation

    /// Where a property mapping's value expression comes from.
    package enum Origin: String, Sendable, Hashable, Codable {
        /// The author wrote the expression (it is archived in the file).
        case written
        /// Xcode generates it when compiling (`$source.<name>`, or the relationship expression).
        case generated
        /// The file asks Xcode to generate it, and generation needs the source model (not yet resolved).
        case pendingGeneration
        /// No expression: the destination property keeps its default value.
        case none
    }

    /// The value expression as format text, for reports; nil when absent.
    package var valueExpressionText: String? { valueExpression?.description }

    /// A property mapping.
    package init(
        name: String, valueExpression: MappingExpression?, origin: Origin, sourceKeyPath: String? = nil,
        sourceMappingName: String? = nil, userInfo: [String: MappingValue] = [:], location: SourceLocation
    ) {
        self.name = name
        self.valueExpression = valueExpression
        self.origin = origin
        self.sourceKeyPath = sourceKeyPath
        self.sourceMappingName = sourceMappingName
        self.userInfo = userInfo
        self.location = location
    }
}
