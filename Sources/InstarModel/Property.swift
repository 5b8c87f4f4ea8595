/// An attribute or a relationship, as seen from an entity that declares or inherits it.
public enum Property: Sendable, Hashable {
    /// An attribute.
    case attribute(Attribute)
    /// A relationship.
    case relationship(Relationship)

    /// The property's name in this version.
    public var name: String {
        switch self {
        case .attribute(let a): a.name
        case .relationship(let r): r.name
        }
    }

    /// The identity used to match the property across versions: its renaming identifier, else its name.
    public var canonicalName: String {
        switch self {
        case .attribute(let a): a.canonicalName
        case .relationship(let r): r.canonicalName
        }
    }

    /// The name the property had in an earlier version (Xcode's "Renaming ID"), if any.
    public var renamingIdentifier: String? {
        switch self {
        case .attribute(let a): a.renamingIdentifier
        case .relationship(let r): r.renamingIdentifier
        }
    }

    /// Whether the property is transient: never stored, so migrations ignore it.
    public var isTransient: Bool {
        switch self {
        case .attribute(let a): a.isTransient
        case .relationship(let r): r.isTransient
        }
    }

    /// The attribute, or nil when this is a relationship.
    public var attribute: Attribute? {
        if case .attribute(let a) = self { return a }
        return nil
    }

    /// The relationship, or nil when this is an attribute.
    public var relationship: Relationship? {
        if case .relationship(let r) = self { return r }
        return nil
    }

    /// "attribute" or "relationship", for messages.
    public var kindName: String { attribute != nil ? "attribute" : "relationship" }
}

/// A property together with the entity that declares it (which may be an ancestor).
public struct ResolvedProperty: Sendable, Hashable {
    /// The property as declared.
    public var property: Property
    /// The entity that declares it: the entity asked about or one of its ancestors.
    public var declaringEntity: String

    /// The property's name.
    public var name: String { property.name }
}
