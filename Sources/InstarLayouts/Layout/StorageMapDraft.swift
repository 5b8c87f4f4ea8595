/// A ``StorageMap`` being built: the state every layout builder accumulates, and the assembly.
///
/// Layout builders decide names and types; what they produce (tables in creation order, entity and
/// relationship storage, join tables, indexes, and the names already claimed) is the same for all.
struct StorageMapDraft {
    var tables: [String: SchemaTable] = [:]
    var tableOrder: [String] = []
    /// Column names claimed per table.
    var registries: [String: ColumnRegistry] = [:]
    var entities: [String: EntityStorage] = [:]
    var entityTables: [String: EntityTable] = [:]
    var relationships: [RelationshipKey: RelationshipStorage] = [:]
    var joinTables: [String: JoinTable] = [:]
    var indexes: [SchemaIndex] = []
    var names = SchemaNames()

    mutating func addTable(_ table: SchemaTable) {
        tables[table.name] = table
        tableOrder.append(table.name)
    }

    /// Adds a join table for `first` (and its inverse `second`): its definition, its position columns
    /// when a side is ordered, and where each side's links live.
    mutating func addJoinTable(
        _ name: String, columns: [SchemaColumn], first: RelationshipKey, second: RelationshipKey?,
        ownerColumn: String, destinationColumn: String, destinationPosition: String?, ownerPosition: String?
    ) {
        let positions = [destinationPosition, ownerPosition].compactMap { $0 }.map {
            SchemaColumn(name: $0, declaredType: "INTEGER")
        }
        addTable(SchemaTable(name: name, columns: columns + positions, primaryKey: [ownerColumn, destinationColumn]))
        joinTables[name] = JoinTable(
            name: name, relationship: first, inverse: second, ownerColumn: ownerColumn,
            destinationColumn: destinationColumn, destinationPosition: destinationPosition, ownerPosition: ownerPosition)
        relationships[first] = .joinTable(
            name: name, ownerColumn: ownerColumn, destinationColumn: destinationColumn, position: destinationPosition)
        if let second {
            relationships[second] = .joinTable(
                name: name, ownerColumn: destinationColumn, destinationColumn: ownerColumn, position: ownerPosition)
        }
    }

    /// Adds an index under a name no other index or table has.
    mutating func addIndex(_ index: SchemaIndex) {
        var index = index
        index.name = names.claimIndex(index.name)
        indexes.append(index)
    }

    /// Foreign keys are first declared with the destination entity's name; point them at its table,
    /// whose name may differ (a clash moved it aside: `Item` and `ITEM` are one name to SQLite).
    mutating func resolveReferencesToTables() {
        for table in tableOrder {
            for i in tables[table]!.columns.indices {
                if let entity = tables[table]!.columns[i].references?.table, let name = entities[entity]?.table {
                    tables[table]!.columns[i].references!.table = name
                }
            }
        }
    }

    func finish() -> StorageMap {
        StorageMap(
            schema: StoreSchema(tables: tableOrder.map { tables[$0]! }, indexes: indexes), entities: entities,
            entityTables: entityTables, relationships: relationships, joinTables: joinTables)
    }
}
