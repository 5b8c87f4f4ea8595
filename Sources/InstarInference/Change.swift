import InstarModel

/// One difference between two model versions, with Core Data's verdict on it.
public struct Change: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case entityAdded, entityRemoved, entityRenamed
        case entityParentChanged, entityAbstractChanged, entityHashModifierChanged
        case hierarchyMerged
        case uniquenessChanged, indexesChanged
        case attributeAdded, attributeRemoved, attributeRenamed
        case attributeTypeChanged, attributeOptionalityChanged, attributeDefaultChanged
        case attributeExternalStorageChanged, attributeTransientChanged, attributeFlagsChanged
        case relationshipAdded, relationshipRemoved, relationshipRenamed
        case relationshipCardinalityChanged, relationshipOrderingChanged, relationshipDestinationChanged
        case relationshipInverseChanged, relationshipCountChanged, relationshipOptionalityChanged
        case relationshipDeleteRuleChanged, relationshipTransientChanged
        case propertyMoved, propertyKindChanged, propertyHashModifierChanged
        case renamingConflict
    }

    public var kind: Kind
    /// The entity, by its name in the newer version (the older name for removals).
    public var entity: String
    /// The property, by its name in the newer version (the older name for removals), if any.
    public var property: String?
    /// The older entity or property name, for renames and moves.
    public var oldName: String?
    /// A short rendering of the value before and after (`"String"` → `"Integer 64"`).
    public var before: String?
    public var after: String?
    public var verdict: Verdict
    /// True when the change discards stored data (removed entities, attributes or links), even though
    /// it may be inferable: the report flags these as risks.
    public var dropsData: Bool

    public init(
        _ kind: Kind, entity: String, property: String? = nil, oldName: String? = nil, before: String? = nil,
        after: String? = nil, verdict: Verdict, dropsData: Bool = false
    ) {
        self.kind = kind
        self.entity = entity
        self.property = property
        self.oldName = oldName
        self.before = before
        self.after = after
        self.verdict = verdict
        self.dropsData = dropsData
    }

    public var isInferable: Bool { verdict.isInferable }

    /// `Track.title` or `Track`.
    public var subject: String { property.map { "\(entity).\($0)" } ?? entity }
}

/// Whether Core Data's inferred (lightweight) migration can perform a change, and why.
public enum Verdict: Sendable, Hashable {
    /// Performed in place; the reason says how.
    case inferable(String)
    /// Performed in place, but fails at run time unless the data satisfies the condition.
    case conditional(String, DataCondition)
    /// Not performed by inference; the reason says why and what to do instead.
    case notInferable(String)

    public var isInferable: Bool {
        if case .notInferable = self { return false }
        return true
    }

    public var reason: String {
        switch self {
        case .inferable(let r), .conditional(let r, _), .notInferable(let r): r
        }
    }

    public var condition: DataCondition? {
        if case .conditional(_, let c) = self { return c }
        return nil
    }
}

/// A property of the stored data that a conditional change needs, checkable against a store.
public enum DataCondition: Sendable, Hashable, CustomStringConvertible {
    /// No row of the (older) entity holds NULL in the property.
    case noNulls(entity: String, property: String)
    /// The (older) entity has no rows at all.
    case noRows(entity: String)
    /// No two rows of the entity share values in these properties.
    case unique(entity: String, properties: [String])

    public var description: String {
        switch self {
        case .noNulls(let e, let p): "no NULL in \(e).\(p)"
        case .noRows(let e): "no \(e) rows exist"
        case .unique(let e, let ps): "no duplicate \(e).(\(ps.joined(separator: ", ")))"
        }
    }
}

/// Something probably unintended that Core Data would not mention.
public struct Warning: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case probableRename
        case probableEntityRename
        case dataDropped
        case identicalVersionHashes
    }

    public var kind: Kind
    public var entity: String?
    public var property: String?
    public var message: String

    public init(_ kind: Kind, entity: String? = nil, property: String? = nil, message: String) {
        self.kind = kind
        self.entity = entity
        self.property = property
        self.message = message
    }

    public var description: String { message }
}
