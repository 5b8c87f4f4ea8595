/// A ``StorageMap`` being built: the state every layout builder accumulates, and the assembly.
///
/// Layout builders decide names and types; what they produce (tables in creation order, entity and
/// relationship storage, join tables, indexes, and the names already claimed) is the same for all.
struct StorageMapDraft {
    var tables: [String: TableDefinition] = [:]
    var tableOrder: [String] = []
    /// Column names claimed per table.
    var registries: [String: ColumnRegistry] = [:]
    var entities: [String: EntityStorage] = [:]
    var entityTables: [String: EntityTable] = [:]
    var relationships: [RelationshipKey: RelationshipStorage] = [:]
    var joinTables: [String: JoinTable] = [:]
    var indexes: [IndexDefinition] = []
    var names = SchemaNames()

    mutating func addTable(_ table: TableDefinition) {
        tables[table.name] = table
        tableOrder.append(table.name)
    }

    /// Adds an index under a name no other index or table has.
    mutating func addIndex(_ index: IndexDefinition) {
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
