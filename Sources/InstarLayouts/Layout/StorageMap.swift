@_spi(Layouts) import InstarModel

/// Identifies a relationship by the entity that declares it (sub-entities share their ancestor's storage).
@_spi(Layouts) public struct RelationshipKey: Sendable, Hashable, CustomStringConvertible {
    /// The entity that declares the relationship (for an inherited one, the ancestor).
    @_spi(Layouts) public var entity: String
    /// The relationship's name.
    @_spi(Layouts) public var name: String

    /// The key of relationship `name` declared on `entity`.
    @_spi(Layouts) public init(entity: String, name: String) {
        self.entity = entity
        self.name = name
    }

    @_spi(Layouts) public var description: String { "\(entity).\(name)" }
}

/// Where one model version keeps everything: the contract between a layout and the step compiler.
///
/// A layout (Instar's readable one, Core Data's `Z…` one) decides names and types; the compiler only
/// reads this map, which is why adding a layout needs no change to migration logic.
@_spi(Layouts) public struct StorageMap: Sendable {
    /// The tables and indexes a store of this version has (bookkeeping tables excluded).
    @_spi(Layouts) public var schema: StoreSchema
    /// Where each entity's rows live, by entity name (abstract and sub-entities included).
    @_spi(Layouts) public var entities: [String: EntityStorage]
    /// Facts about each entity table, by table name.
    @_spi(Layouts) public var entityTables: [String: EntityTable]
    /// How each relationship's links are stored, by the declaring entity and name.
    @_spi(Layouts) public var relationships: [RelationshipKey: RelationshipStorage]
    /// The link tables of to-many relationships without a to-one inverse, by table name.
    @_spi(Layouts) public var joinTables: [String: JoinTable]

    /// A map from its parts; layouts build these.
    @_spi(Layouts) public init(
        schema: StoreSchema, entities: [String: EntityStorage], entityTables: [String: EntityTable],
        relationships: [RelationshipKey: RelationshipStorage], joinTables: [String: JoinTable]
    ) {
        self.schema = schema
        self.entities = entities
        self.entityTables = entityTables
        self.relationships = relationships
        self.joinTables = joinTables
    }

    /// The table holding the entity's rows (its root's table), or nil for an unknown entity.
    @_spi(Layouts) public func table(of entity: String) -> String? { entities[entity]?.table }
}

/// Where the rows of one entity live.
@_spi(Layouts) public struct EntityStorage: Sendable, Hashable {
    /// The table of the entity's root.
    @_spi(Layouts) public var table: String
    /// The discriminator value of this entity's rows (nil when the table holds only this entity).
    @_spi(Layouts) public var discriminatorValue: SQLValue?
    /// Property name → column, for attributes and to-one relationships, inherited ones included.
    @_spi(Layouts) public var columns: [String: String]
    /// Entity names whose rows belong to this entity: itself and all its descendants.
    @_spi(Layouts) public var kinds: [String]
}

/// One table holding an entity hierarchy.
@_spi(Layouts) public struct EntityTable: Sendable, Hashable {
    /// The root entity of the hierarchy the table holds.
    @_spi(Layouts) public var root: String
    /// The table's integer primary key column.
    @_spi(Layouts) public var primaryKey: String
    /// The column telling entities apart, when the hierarchy has several.
    @_spi(Layouts) public var discriminator: String?
    /// Layout bookkeeping columns (Core Data's `Z_OPT`) and how a migration fills them.
    @_spi(Layouts) public var bookkeeping: [String: BookkeepingColumn]
}

/// How a migration fills a layout's bookkeeping column.
@_spi(Layouts) public enum BookkeepingColumn: Sendable, Hashable {
    /// Copied from the same column of the source row; this value when the source has none.
    case preserved(SQLValue)
    /// Holds the discriminator of the row a foreign-key column points to (Core Data's `Z<n>_REL`).
    case entityOf(foreignKey: String)
}

/// How a relationship's links are stored.
@_spi(Layouts) public enum RelationshipStorage: Sendable, Hashable {
    /// A to-one: a column of the entity's table holding the destination's primary key.
    case foreignKey(table: String, column: String)
    /// A to-many whose inverse is a to-one: the links are the inverse's foreign keys; an ordered one
    /// also has a position column beside that foreign key.
    case inverseForeignKey(inverse: RelationshipKey, position: String?)
    /// A link table, seen from this relationship.
    case joinTable(name: String, ownerColumn: String, destinationColumn: String, position: String?)
}

/// A link table for a to-many relationship whose inverse is to-many or absent.
@_spi(Layouts) public struct JoinTable: Sendable, Hashable {
    @_spi(Layouts) public var name: String
    /// The relationship this table was named after, and its inverse (if any).
    @_spi(Layouts) public var relationship: RelationshipKey
    /// The inverse relationship, when it has one (a many-to-many).
    @_spi(Layouts) public var inverse: RelationshipKey?
    /// Holds primary keys of the relationship's owner (the inverse's destination).
    @_spi(Layouts) public var ownerColumn: String
    /// Holds primary keys of the relationship's destination.
    @_spi(Layouts) public var destinationColumn: String
    /// Position of the destination within the owner's ordered set, when `relationship` is ordered.
    @_spi(Layouts) public var destinationPosition: String?
    /// Position of the owner within the destination's ordered set, when the inverse is ordered.
    @_spi(Layouts) public var ownerPosition: String?
}
