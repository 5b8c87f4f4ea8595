@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// What a seed request asks for.
package struct SeedOptions: Sendable, Hashable {
    /// Rows written for every concrete (non-abstract) entity: an entity with sub-entities gets this many
    /// rows of its own, and each sub-entity as many of its own.
    package var rows: Int
    /// Entity name → rows for that entity, overriding ``rows`` (0 leaves an entity empty).
    package var rowsPerEntity: [String: Int]
    /// The seed of every random choice: the same seed on the same store gives the same bytes.
    package var seed: UInt64

    package init(rows: Int, rowsPerEntity: [String: Int] = [:], seed: UInt64 = 1) {
        self.rows = rows
        self.rowsPerEntity = rowsPerEntity
        self.seed = seed
    }
}

/// What a seed wrote.
package struct SeedReport: Sendable, Hashable {
    package var version: String
    /// Entity name → rows written (concrete entities only).
    package var rows: [String: Int]
    /// Join table → link rows written.
    package var linkRows: [String: Int]
}

/// How one column of an entity's rows is filled.
package enum SeedFill: Sendable {
    case key
    case constant(SQLValue)
    case attribute(AttributeSeeder)
    /// The key a to-one points to (index into the entity plan's `toOnes`).
    case link(Int)
    /// The discriminator of the row a to-one points to (Core Data's `Z<n>_<REL>`).
    case linkEntity(Int)
    /// The row's place among its destination's ordered links: an increasing ordinal, NULL without a link.
    case position(Int)
}

/// The rows of one concrete entity.
package struct SeedEntityPlan: Sendable {
    package var block: SeedBlock
    package var table: String
    package var columns: [String]
    package var fills: [SeedFill]
    package var toOnes: [ToOneSeeder]
}

/// The rows of one join table.
package struct SeedJoinPlan: Sendable {
    package var table: String
    package var ownerColumn: String
    package var destinationColumn: String
    package var destinationPosition: String?
    package var ownerPosition: String?
    package var seeder: JoinSeeder
}

/// Keys handed out per root table, for the layout's key counter (Core Data's `Z_PRIMARYKEY.Z_MAX`).
package struct SeedKeyRange: Sendable {
    package var table: String
    package var root: String
    package var lastKey: Int64
}

/// Everything a seed writes, decided before the first row is.
package struct SeedPlan: Sendable {
    package var entities: [SeedEntityPlan]
    package var joins: [SeedJoinPlan]
    package var keyRanges: [SeedKeyRange]
}
