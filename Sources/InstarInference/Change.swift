@_spi(Layouts) import InstarModel

/// One difference between two model versions, with Core Data's verdict on it.
public struct Change: Sendable, Hashable {
    /// What changed; the ``Change/entity``, ``Change/property`` and before/after values say where and how.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An entity exists only in the newer version.
        case entityAdded
        /// An entity exists only in the older version; its rows are dropped.
        case entityRemoved
        /// An entity is matched under another name (through its renaming identifier).
        case entityRenamed
        /// An entity moves into, out of or within a hierarchy.
        case entityParentChanged
        /// An entity becomes abstract or concrete.
        case entityAbstractChanged
        /// An entity's version hash modifier changes: a new version with the same schema.
        case entityHashModifierChanged
        /// Entities of separate hierarchies end up in one hierarchy, which would share one table.
        case hierarchyMerged
        /// An entity's uniqueness constraints change.
        case uniquenessChanged
        /// An entity's fetch indexes change.
        case indexesChanged
        /// An attribute exists only in the newer version.
        case attributeAdded
        /// An attribute exists only in the older version; its values are dropped.
        case attributeRemoved
        /// An attribute is matched under another name (through its renaming identifier).
        case attributeRenamed
        /// An attribute's type changes.
        case attributeTypeChanged
        /// An attribute becomes optional or required.
        case attributeOptionalityChanged
        /// An attribute's default value changes.
        case attributeDefaultChanged
        /// An attribute's "Allows External Storage" is turned on or off.
        case attributeExternalStorageChanged
        /// An attribute becomes transient (values dropped) or stored.
        case attributeTransientChanged
        /// Flags that leave the values alone change: read-only, preserve after deletion, indexed.
        case attributeFlagsChanged
        /// A relationship exists only in the newer version.
        case relationshipAdded
        /// A relationship exists only in the older version; its links are dropped.
        case relationshipRemoved
        /// A relationship is matched under another name (through its renaming identifier).
        case relationshipRenamed
        /// A relationship changes between to-one and to-many.
        case relationshipCardinalityChanged
        /// A to-many becomes ordered or unordered.
        case relationshipOrderingChanged
        /// A relationship points at another entity.
        case relationshipDestinationChanged
        /// A relationship's inverse changes.
        case relationshipInverseChanged
        /// A relationship's minimum or maximum count changes.
        case relationshipCountChanged
        /// A relationship becomes optional or required.
        case relationshipOptionalityChanged
        /// A relationship's delete rule changes.
        case relationshipDeleteRuleChanged
        /// A relationship becomes transient (links dropped) or stored.
        case relationshipTransientChanged
        /// A property moves to another entity of the same hierarchy; values are kept.
        case propertyMoved
        /// A property changes between attribute and relationship: removed and added, values dropped.
        case propertyKindChanged
        /// A property's version hash modifier changes: a new version with the same schema.
        case propertyHashModifierChanged
        /// Two elements of the newer version claim the same renaming identifier.
        case renamingConflict
    }

    /// What changed.
    public var kind: Kind
    /// The entity, by its name in the newer version (the older name for removals).
    public var entity: String
    /// The property, by its name in the newer version (the older name for removals), if any.
    public var property: String?
    /// The older entity or property name, for renames and moves.
    public var oldName: String?
    /// A short rendering of the value before and after (`"String"` → `"Integer 64"`).
    public var before: String?
    /// A short rendering of the value after, when the change has one.
    public var after: String?
    /// Whether Core Data's inferred migration can perform this change, and why.
    public var verdict: Verdict
    /// True when the change discards stored data (removed entities, attributes or links), even though
    /// it may be inferable: the report flags these as risks.
    public var dropsData: Bool

    /// Records a change; `dropsData` marks changes that discard stored values even when inferable.
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

    /// True unless the verdict is ``Verdict/notInferable(_:)``: conditional changes count as inferable.
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

    /// True for inferable and conditional verdicts: inference can perform the change (a conditional one may
    /// still fail on the data).
    public var isInferable: Bool {
        if case .notInferable = self { return false }
        return true
    }

    /// The verdict's explanation, for the report.
    public var reason: String {
        switch self {
        case .inferable(let r), .conditional(let r, _), .notInferable(let r): r
        }
    }

    /// What the data must satisfy, for a conditional verdict; nil otherwise.
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
    /// Every row of the (older) entity is linked by the (older) to-many `owner.relationship`, whose
    /// links a new required to-one takes over.
    case linked(entity: String, by: String, relationship: String)

    public var description: String {
        switch self {
        case .noNulls(let e, let p): "no NULL in \(e).\(p)"
        case .noRows(let e): "no \(e) rows exist"
        case .unique(let e, let ps): "no duplicate \(e).(\(ps.joined(separator: ", ")))"
        case .linked(let e, let owner, let relationship): "every \(e) row linked by \(owner).\(relationship)"
        }
    }
}

/// Something probably unintended that Core Data would not mention.
public struct Warning: Sendable, Hashable, CustomStringConvertible {
    /// What the warning is about.
    public enum Kind: String, Sendable, Hashable {
        /// A property removed and one added with the same type look like a rename without a renaming identifier.
        case probableRename
        /// An entity removed and one added look like a rename without a renaming identifier.
        case probableEntityRename
        /// Stored data would be dropped.
        case dataDropped
        /// The versions differ but hash alike, so Core Data would take them for the same version and migrate nothing.
        case identicalVersionHashes
    }

    /// What the warning is about.
    public var kind: Kind
    /// The entity concerned (by its newer name), when there is one.
    public var entity: String?
    /// The property concerned, when there is one.
    public var property: String?
    /// The warning, in a sentence for the user.
    public var message: String
    /// For a probable rename: what the step drops, by the step's older names (the property is nil for a
    /// whole entity). Compared by value wherever a warning is matched with another step's.
    public var dropped: DroppedData?

    /// Stored data a step drops, named as the step's older version names it.
    public struct DroppedData: Sendable, Hashable {
        /// The older entity.
        public var entity: String
        /// The older property; nil when the whole entity goes.
        public var property: String?

        /// Names the dropped entity, or one of its properties.
        package init(entity: String, property: String? = nil) {
            self.entity = entity
            self.property = property
        }
    }

    /// Records a warning.
    package init(_ kind: Kind, entity: String? = nil, property: String? = nil, dropped: DroppedData? = nil, message: String) {
        self.kind = kind
        self.entity = entity
        self.property = property
        self.dropped = dropped
        self.message = message
    }

    public var description: String { message }
}
