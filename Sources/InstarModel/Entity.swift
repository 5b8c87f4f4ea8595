/// A declared index over one or more properties (Xcode's `fetchIndex`, or a legacy compound index).
public struct FetchIndex: Sendable, Hashable, Codable {
    /// One indexed property and its sort direction.
    public struct Element: Sendable, Hashable, Codable {
        /// The property's name, as declared on the entity or inherited.
        public var property: String
        /// Whether the index sorts this property ascending (Xcode's default) or descending.
        public var ascending: Bool
        /// Creates an element; ascending unless told otherwise.
        public init(property: String, ascending: Bool = true) {
            self.property = property
            self.ascending = ascending
        }
    }

    /// The index's name in the model (Xcode's `fetchIndex` name); names it in messages and plans.
    public var name: String
    /// The indexed properties, most significant first.
    public var elements: [Element]
    /// The index's name in the store, kept as it is (model files' `name:`; the `sql` layout only).
    /// Like every naming key it is not part of Core Data's version hash: it says where things are
    /// stored, not what the version is.
    @_spi(Layouts) public var storedName: String? = nil

    /// Creates an index with no stored name: the layout names it by its own convention.
    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}

/// One entity as declared: its own properties only. Inherited properties are resolved by ``Model``.
public struct Entity: Sendable, Hashable, Codable {
    /// The entity's name in this version; the name of its class in Core Data.
    public var name: String
    /// Name of the parent entity, if this entity is part of a hierarchy.
    public var parent: String?
    /// An abstract entity has no instances of its own, only of its sub-entities.
    public var isAbstract: Bool
    /// The name this entity had in an earlier version (Xcode's "Renaming ID"); matches it across versions.
    public var renamingIdentifier: String?
    /// Free text that changes the version hash without changing the schema.
    public var versionHashModifier: String?
    /// Each constraint is a list of property names that together must be unique.
    public var uniquenessConstraints: [[String]]
    /// Fetch indexes declared on the entity (Xcode's "Indexes"); the layouts create them as SQL indexes.
    public var indexes: [FetchIndex]
    /// The entity's own attributes, in declaration order (inherited ones are in `Model.properties(of:)`).
    public var attributes: [Attribute]
    /// The entity's own relationships, in declaration order.
    public var relationships: [Relationship]
    /// Naming keys of the `sql` layout (``StoredNames``): the table, its primary key, names of
    /// unique indexes. Not hashed (see ``StoredNames``).
    @_spi(Layouts) public var stored = StoredNames.Entity()

    /// Creates an entity; a ``Model`` validates it together with the others.
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

    /// The identity used to match this entity across versions: its renaming identifier, else its name.
    @_spi(Layouts) public var canonicalName: String { renamingIdentifier ?? name }

    /// The entity's own attribute of that name; inherited ones are found through `Model.property(_:of:)`.
    public func attribute(named name: String) -> Attribute? { attributes.first { $0.name == name } }
    /// The entity's own relationship of that name; inherited ones are found through `Model.property(_:of:)`.
    public func relationship(named name: String) -> Relationship? { relationships.first { $0.name == name } }
}
