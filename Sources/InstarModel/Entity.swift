/// A declared index over one or more properties (Xcode's `fetchIndex`, or a legacy compound index).
public struct FetchIndex: Sendable, Hashable, Codable {
    public struct Element: Sendable, Hashable, Codable {
        public var property: String
        public var ascending: Bool
        public init(property: String, ascending: Bool = true) {
            self.property = property
            self.ascending = ascending
        }
    }

    public var name: String
    public var elements: [Element]
    /// The index's name in the store, kept as it is (model files' `name:`; the `sql` layout only).
    /// Like every naming key it is not part of Core Data's version hash: it says where things are
    /// stored, not what the version is.
    public var storedName: String? = nil

    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}

/// One entity as declared: its own properties only. Inherited properties are resolved by ``Model``.
public struct Entity: Sendable, Hashable, Codable {
    public var name: String
    /// Name of the parent entity, if this entity is part of a hierarchy.
    public var parent: String?
    public var isAbstract: Bool
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    /// Each constraint is a list of property names that together must be unique.
    public var uniquenessConstraints: [[String]]
    public var indexes: [FetchIndex]
    public var attributes: [Attribute]
    public var relationships: [Relationship]
    /// Naming keys of the `sql` layout (``StoredNames``): the table, its primary key, names of
    /// unique indexes. Not hashed (see ``StoredNames``).
    public var stored = StoredNames.Entity()

    public init(
        name: String,
        parent: String? = nil,
        isAbstract: Bool = false,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        uniquenessConstraints: [[String]] = [],
        indexes: [FetchIndex] = [],
        attributes: [Attribute] = [],
        relationships: [Relationship] = []
    ) {
        self.name = name
        self.parent = parent
        self.isAbstract = isAbstract
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
        self.attributes = attributes
        self.relationships = relationships
    }

    public var canonicalName: String { renamingIdentifier ?? name }

    public func attribute(named name: String) -> Attribute? { attributes.first { $0.name == name } }
    public func relationship(named name: String) -> Relationship? { relationships.first { $0.name == name } }
}
