import InstarMapping
@_spi(Layouts) import InstarModel

/// App code a mapping step cannot do without: a custom policy, or an expression or filter that SQL
/// cannot compute. Named as `MappingReport` names hooks (`Model.EntityMapping`,
/// `Model.EntityMapping.property`, `Model.EntityMapping.$filter`), so the name in a report is the name
/// to declare in a plan's `hooks:` or to register on a `Migrator`.
public struct MappingHookRequirement: Sendable, Hashable, CustomStringConvertible {
    /// Where in the step the hook runs, which is also what it is expected to do.
    public enum Point: String, Sendable, Hashable {
        /// After the key map (`temp._instar_keymap`) holds every source row of the entity mapping and
        /// before any destination row exists: the hook deletes the key-map rows its filter rejects.
        case filter
        /// After the entity mapping's destination rows exist: the hook sets the attribute (an `UPDATE`
        /// of the destination table, joining the key map and the source tables set aside). Until then
        /// the column holds the attribute's default, so in the instar and sql layouts a required
        /// attribute computed by a hook needs a default (its `NOT NULL` is checked on insert).
        case attribute
        /// After the entity mapping's rows and attribute hooks: the custom policy's work on them.
        case policy
        /// In the relationship pass, after the relationships SQL could set.
        case relationship
    }

    /// The name to declare in the plan or register on the `Migrator`, e.g. `Model.EntityMapping.property`.
    public var name: String
    /// The mapping model's name.
    public var mappingModel: String
    /// The entity mapping's name within the mapping model.
    public var entityMapping: String
    /// The destination property, `$filter`, or nil for a custom policy.
    public var property: String?
    /// Where in the step the hook runs.
    public var point: Point
    /// Why SQL cannot do it (`HookReason`'s text).
    public var reason: String

    public var description: String {
        let subject = property.map { "property '\($0)' of entity mapping '\(entityMapping)'" }
            ?? "entity mapping '\(entityMapping)'"
        return "hook '\(name)' (\(subject) of mapping model '\(mappingModel)'): \(reason)"
    }
}

/// A mapping step that cannot run as it is: what, where, and why.
public struct MappingStepError: InstarError, CustomStringConvertible {
    /// The mapping model's name.
    public var mappingModel: String
    /// The entity mapping at fault; nil when the mapping model as a whole is.
    public var entityMapping: String?
    /// The destination property at fault; nil when the entity mapping as a whole is.
    public var property: String?
    /// What is wrong, in words.
    public var message: String

    /// Makes the error; narrow it with `entityMapping` and `property` where they are known.
    package init(mappingModel: String, entityMapping: String? = nil, property: String? = nil, message: String) {
        self.mappingModel = mappingModel
        self.entityMapping = entityMapping
        self.property = property
        self.message = message
    }

    public var description: String {
        var subject = "mapping model '\(mappingModel)'"
        if let entityMapping { subject += ", entity mapping '\(entityMapping)'" }
        if let property { subject += ", property '\(property)'" }
        return "\(subject): \(message)"
    }
}
