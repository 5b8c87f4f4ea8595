/// One target table of a step, as a function of at most one source table.
///
/// This is the unit the executor works with: it decides from the expressions whether the table can be
/// altered in place (`ADD`/`RENAME`/`DROP COLUMN`, `RENAME TABLE`) or must be rebuilt with one
/// `INSERT … SELECT`. Fusing consecutive steps composes transformations of the same table.
public struct TableTransformation: Sendable, Hashable {
    public enum Role: Sendable, Hashable {
        case entityTable
        case joinTable
    }

    public var target: TableDefinition
    public var role: Role
    /// The table of the older version that the rows come from; nil for a table that starts empty.
    public var source: String?
    /// Target column → its value over the source row. A column absent here is NULL.
    public var columns: [String: ColumnExpression]
    /// Which source rows are carried over (all when empty).
    public var filter: [RowPredicate]
    /// True when this target table is the same table as `source`, continued (possibly renamed); false
    /// when it is filled from another table's rows (a join table made from a foreign key).
    public var continuesSource: Bool

    public init(
        target: TableDefinition, role: Role, source: String?, columns: [String: ColumnExpression],
        filter: [RowPredicate] = [], continuesSource: Bool
    ) {
        self.target = target
        self.role = role
        self.source = source
        self.columns = columns
        self.filter = filter
        self.continuesSource = continuesSource
    }

    public func expression(for column: String) -> ColumnExpression {
        columns[column] ?? .null
    }
}

/// Everything one step does to a store, before it is turned into SQL.
public struct StepProgram: Sendable {
    public var fromVersion: String
    public var toVersion: String
    public var transformations: [TableTransformation]
    /// Tables of the older version that nothing continues.
    public var droppedTables: [String]
    /// The new version's schema, which the store must have after the step.
    public var targetSchema: StoreSchema
    /// Surviving entities: older entity → (its table and discriminator, the newer one's).
    public var survivingEntities: [SurvivingEntity]

    public struct SurvivingEntity: Sendable, Hashable {
        public var sourceEntity: String
        public var sourceTable: String
        public var sourceDiscriminator: (column: String, value: SQLValue)?
        public var destinationEntity: String
        public var destinationTable: String
        public var destinationDiscriminator: (column: String, value: SQLValue)?

        public static func == (a: Self, b: Self) -> Bool {
            a.sourceEntity == b.sourceEntity && a.destinationEntity == b.destinationEntity
        }
        public func hash(into hasher: inout Hasher) {
            hasher.combine(sourceEntity)
            hasher.combine(destinationEntity)
        }
    }
}
