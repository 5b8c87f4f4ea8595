/// An attribute or a relationship, as seen from an entity that declares or inherits it.
public enum Property: Sendable, Hashable {
    case attribute(Attribute)
    case relationship(Relationship)

    public var name: String {
        switch self {
        case .attribute(let a): a.name
        case .relationship(let r): r.name
        }
    }

    public var canonicalName: String {
        switch self {
        case .attribute(let a): a.canonicalName
        case .relationship(let r): r.canonicalName
        }
    }

    public var renamingIdentifier: String? {
        switch self {
        case .attribute(let a): a.renamingIdentifier
        case .relationship(let r): r.renamingIdentifier
        }
    }

    public var isTransient: Bool {
        switch self {
        case .attribute(let a): a.isTransient
        case .relationship(let r): r.isTransient
        }
    }

    public var attribute: Attribute? {
        if case .attribute(let a) = self { return a }
        return nil
    }

    public var relationship: Relationship? {
        if case .relationship(let r) = self { return r }
        return nil
    }

    /// "attribute" or "relationship", for messages.
    public var kindName: String { attribute != nil ? "attribute" : "relationship" }
}

/// A property together with the entity that declares it (which may be an ancestor).
public struct ResolvedProperty: Sendable, Hashable {
    public var property: Property
    public var declaringEntity: String

    public var name: String { property.name }
}
