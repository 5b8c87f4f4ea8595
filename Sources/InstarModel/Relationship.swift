/// What happens to related objects when the source object is deleted. Not part of the version hash.
public enum DeleteRule: String, Sendable, Hashable, CaseIterable, Codable {
    case nullify
    case cascade
    case deny
    case noAction

    /// The spelling Xcode writes (`deletionRule="No Action"`).
    public var xcodeName: String {
        switch self {
        case .nullify: "Nullify"
        case .cascade: "Cascade"
        case .deny: "Deny"
        case .noAction: "No Action"
        }
    }

    public init?(xcodeName: String) {
        guard let match = Self.allCases.first(where: { $0.xcodeName == xcodeName }) else { return nil }
        self = match
    }
}

/// A relationship from one entity to another.
public struct Relationship: Sendable, Hashable, Codable {
    public var name: String
    /// Name of the destination entity.
    public var destination: String
    /// Name of the inverse relationship on the destination entity, if any.
    public var inverse: String?
    public var isToMany: Bool
    public var isOrdered: Bool
    /// Minimum count. Xcode writes none for most relationships, which means 0 even when not optional.
    public var minCount: Int
    /// Maximum count: 1 for to-one; 0 means unbounded for to-many.
    public var maxCount: Int
    public var deleteRule: DeleteRule
    public var isOptional: Bool
    public var isTransient: Bool
    public var isReadOnly: Bool
    public var renamingIdentifier: String?
    public var versionHashModifier: String?
    /// Naming keys of the `sql` layout: a to-one's column, a many-to-many's join table. Not hashed.
    public var stored = StoredNames.Link()

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

    public var canonicalName: String { renamingIdentifier ?? name }
    public var isToOne: Bool { !isToMany }
}
