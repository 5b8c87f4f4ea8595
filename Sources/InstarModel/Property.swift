/// An attribute or a relationship, as seen from an entity that declares or inherits it.
@_spi(Layouts) public enum Property: Sendable, Hashable {
    /// An attribute.
    case attribute(Attribute)
    /// A relationship.
    case relationship(Relationship)

    /// The property's name in this version.
    @_spi(Layouts) public var name: String {
        switch self {
        case .attribute(let a): a.name
        case .relationship(let r): r.name
        }
    }

    /// The identity used to match the property across versions: its renaming identifier, else its name.
    @_spi(Layouts) public var canonicalName: String {
        switch self {
        case .attribute(let a): a.canonicalName
        case .relationship(let r): r.canonicalName
        }
    }

    /// The name the property had in an earlier version (Xcode's "Renaming ID"), if any.
    @_spi(Layouts) public var renamingIdentifier: String? {
        switch self {
        case .attribute(let a): a.renamingIdentifier
        case .relationship(let r): r.renamingIdentifier
        }
    }

    /// Whether the property is transient: never stored, so migrations ignore it.
    @_spi(Layouts) public var isTransient: Bool {
        switch self {
        case .attribute(let a): a.isTransient
        case .relationship(let r): r.isTransient
        }
    }

    /// The attribute, or nil when this is a relationship.
    @_spi(Layouts) public var attribute: Attribute? {
        if case .attribute(let a) = self { return a }
        return nil
    }

    /// The relationship, or nil when this is an attribute.
    @_spi(Layouts) public var relationship: Relationship? {
        if case .relationship(let r) = self { return r }
        return nil
    }

    /// "attribute" or "relationship", for messages.
    @_spi(Layouts) public var kindName: String { attribute != nil ? "attribute" : "relationship" }
}

/// A property together with the entity that declares it (which may be an ancestor).
@_spi(Layouts) public struct ResolvedProperty: Sendable, Hashable {
    /// The property as declared.
    @_spi(Layouts) public var property: Property
    /// The entity that declares it: the entity asked about or one of its ancestors.
    @_spi(Layouts) public var declaringEntity: String

    /// The property's name.
    @_spi(Layouts) public var name: String { property.name }
}
