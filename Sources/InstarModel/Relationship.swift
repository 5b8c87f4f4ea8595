/// What happens to related objects when the source object is deleted. Not part of the version hash.
public enum DeleteRule: String, Sendable, Hashable, CaseIterable, Codable {
    /// Set the inverse on related objects to nil.
    case nullify
    /// Delete the related objects too.
    case cascade
    /// Refuse the deletion while related objects exist.
    case deny
    /// Leave related objects as they are, pointing at a deleted object.
    case noAction

    /// The spelling Xcode writes (`deletionRule="No Action"`).
    @_spi(Layouts) public var xcodeName: String {
        switch self {
        case .nullify: "Nullify"
        case .cascade: "Cascade"
        case .deny: "Deny"
        case .noAction: "No Action"
        }
    }

    /// Reads Xcode's spelling (`"No Action"`); nil for one Xcode does not write.
    @_spi(Layouts) public init?(xcodeName: String) {
        guard let match = Self.allCases.first(where: { $0.xcodeName == xcodeName }) else { return nil }
        self = match
    }
}

/// A relationship from one entity to another.
public struct Relationship: Sendable, Hashable, Codable {
    /// The relationship's name in this version.
    public var name: String
    /// Name of the destination entity.
    public var destination: String
    /// Name of the inverse relationship on the destination entity, if any.
    public var inverse: String?
    /// Whether it relates to many objects; a to-one is stored as a key column, a to-many through its inverse
    /// or a join table.
    public var isToMany: Bool
    /// A to-many that keeps its order (`NSOrderedSet`); the store keeps each object's position.
    public var isOrdered: Bool
    /// Minimum count. Xcode writes none for most relationships, which means 0 even when not optional.
    public var minCount: Int
    /// Maximum count: 1 for to-one; 0 means unbounded for to-many.
    public var maxCount: Int
    /// What deleting an object does to the objects it relates to.
    public var deleteRule: DeleteRule
    /// Whether the relationship may be empty (nil for a to-one).
    public var isOptional: Bool
    /// Transient relationships are never stored and are left out of the entity's version hash.
    public var isTransient: Bool
    /// Core Data's read-only flag; it is part of the property hash.
    public var isReadOnly: Bool
    /// The name this relationship had in an earlier version (Xcode's "Renaming ID").
    public var renamingIdentifier: String?
    /// Free text that changes the version hash without changing the schema.
    public var versionHashModifier: String?
    /// Naming keys of the `sql` layout: a to-one's column, a many-to-many's join table. Not hashed.
    @_spi(Layouts) public var stored = StoredNames.Link()

    /// Creates a relationship; `maxCount` defaults to 1 for a to-one and 0 (unbounded) for a to-many.
    public init(
        name: String,
        destination: String,
        inverse: String? = nil,
        isToMany: Bool = false,
        isOrdered: Bool = false,
        minCount: Int = 0,
        maxCount: Int? = nil,
        deleteRule: DeleteRule = .nullify,
        isOptional: Bool = true,
        isTransient: Bool = false,
        isReadOnly: Bool = false,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil
    ) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.minCount = minCount
        self.maxCount = maxCount ?? (isToMany ? 0 : 1)
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isReadOnly = isReadOnly
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
    }

    /// The identity used to match this relationship across versions: its renaming identifier, else its name.
    @_spi(Layouts) public var canonicalName: String { renamingIdentifier ?? name }
    /// Whether it relates to at most one object.
    public var isToOne: Bool { !isToMany }
}
