@_spi(Layouts) import InstarLayouts

/// One target table of a step, as a function of at most one source table.
///
/// This is the unit the executor works with: it decides from the expressions whether the table can be
/// altered in place (`ADD`/`RENAME`/`DROP COLUMN`, `RENAME TABLE`) or must be rebuilt with one
/// `INSERT … SELECT`. Fusing consecutive steps composes transformations of the same table.
package struct TableTransformation: Sendable, Hashable {
    package enum Role: Sendable, Hashable {
        case entityTable
        case joinTable
    }

    package var target: SchemaTable
    package var role: Role
    /// The table of the older version that the rows come from; nil for a table that starts empty.
    package var source: String?
    /// Target column → its value over the source row. A column absent here is NULL.
    package var columns: [String: ColumnValueExpression]
    /// Which source rows are carried over (all when empty).
    package var filter: [RowPredicate]
    /// True when this target table is the same table as `source`, continued (possibly renamed); false
    /// when it is filled from another table's rows (a join table made from a foreign key).
    package var continuesSource: Bool

    package init(
        target: SchemaTable, role: Role, source: String?, columns: [String: ColumnValueExpression],
        filter: [RowPredicate] = [], continuesSource: Bool
    ) {
        self.target = target
        self.role = role
        self.source = source
        self.columns = columns
        self.filter = filter
        self.continuesSource = continuesSource
    }

    package func expression(for column: String) -> ColumnValueExpression {
        columns[column] ?? .null
    }

    /// The target columns whose order the rows are copied in; empty for the source's rowid order.
    ///
    /// A table filled from another table's rows (a join table made from a foreign key) is filled in its
    /// key's order: inserting into a key index in any other order touches its pages at random, and once
    /// the index outgrows SQLite's page cache each insert writes and rereads pages (at 1M links, 3.2 GB
    /// written for a 297 MB file, four times the CPU of the ordered fill). No hook or app has seen such
    /// a table's rowids, and a fused run fills it as a step-by-step one does. A table that continues its
    /// source keeps the source's rowid order (see StepSQL), and a key that is the rowid needs no sort.
    package var fillOrder: [String] {
        guard source != nil, !continuesSource else { return [] }
        if !target.primaryKey.isEmpty { return target.primaryKey }
        guard let key = target.columns.first(where: \.isPrimaryKey),
            key.declaredType.uppercased() != "INTEGER"
        else { return [] }
        return [key.name]
    }
}

/// Everything one step does to a store, before it is turned into SQL.
package struct StepProgram: Sendable {
    package var fromVersion: String
    package var toVersion: String
    package var transformations: [TableTransformation]
    /// Tables of the older version that nothing continues.
    package var droppedTables: [String]
    /// The new version's schema, which the store must have after the step.
    package var targetSchema: StoreSchema
    /// Surviving entities: older entity → (its table and discriminator, the newer one's), for the
    /// row counts before and after the step; a discriminator is nil where the table holds that entity
    /// alone (``StorageMap/countFilter(of:)``), so that the count does not read every row.
    package var survivingEntities: [SurvivingEntity]

    package init(
        fromVersion: String, toVersion: String, transformations: [TableTransformation], droppedTables: [String],
        targetSchema: StoreSchema, survivingEntities: [SurvivingEntity]
    ) {
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.transformations = transformations
        self.droppedTables = droppedTables
        self.targetSchema = targetSchema
        self.survivingEntities = survivingEntities
    }

    package struct SurvivingEntity: Sendable, Hashable {
        package var sourceEntity: String
        package var sourceTable: String
        package var sourceDiscriminator: (column: String, value: SQLValue)?
        package var destinationEntity: String
        package var destinationTable: String
        package var destinationDiscriminator: (column: String, value: SQLValue)?

        package init(
            sourceEntity: String, sourceTable: String, sourceDiscriminator: (column: String, value: SQLValue)?,
            destinationEntity: String, destinationTable: String, destinationDiscriminator: (column: String, value: SQLValue)?
        ) {
            self.sourceEntity = sourceEntity
            self.sourceTable = sourceTable
            self.sourceDiscriminator = sourceDiscriminator
            self.destinationEntity = destinationEntity
            self.destinationTable = destinationTable
            self.destinationDiscriminator = destinationDiscriminator
        }

        package static func == (a: Self, b: Self) -> Bool {
            a.sourceEntity == b.sourceEntity && a.destinationEntity == b.destinationEntity
        }
        package func hash(into hasher: inout Hasher) {
            hasher.combine(sourceEntity)
            hasher.combine(destinationEntity)
        }
    }
}

extension TableTransformation {
    /// A table carried over as it is (every column copied, every row kept).
    package static func unchanged(_ table: SchemaTable, role: Role) -> TableTransformation {
        TableTransformation(
            target: table, role: role, source: table.name,
            columns: Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, .column($0.name)) }),
            continuesSource: true)
    }
}
