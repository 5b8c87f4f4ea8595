@_spi(Layouts) import InstarModel

/// Link tables of the plain SQL layout: named by convention (`track_artist`), or exactly as a
/// relationship's `joinTable:` key says.
extension PlainSQLStorageBuilder {
    /// True when `a` names the join table rather than `b`: its entity is declared first in the model
    /// (within one entity, the relationship name that sorts first).
    func owns(_ a: RelationshipKey, over b: RelationshipKey) -> Bool {
        let ia = declarationIndex[a.entity] ?? 0
        let ib = declarationIndex[b.entity] ?? 0
        if ia != ib { return ia < ib }
        return CoreDataOrder.precedes(a.name, b.name)
    }

    mutating func buildJoinTable(
        _ key: RelationshipKey, _ relationship: Relationship, inverseKey: RelationshipKey?, inverse: Relationship?
    ) throws(LayoutError) {
        var (first, firstRelationship, second, secondRelationship) = (key, relationship, inverseKey, inverse)
        // The side that names the table with `joinTable:` comes first; otherwise the owner does.
        let swap =
            relationship.stored.joinTable == nil
            && (inverse?.stored.joinTable != nil || (inverse != nil && inverseKey.map { owns($0, over: key) } == true))
        if swap, let inverseKey, let inverse {
            (first, firstRelationship, second, secondRelationship) = (inverseKey, inverse, key, relationship)
        }
        let ownerTable = draft.entities[first.entity]!.table
        let destinationTable = draft.entities[firstRelationship.destination]!.table
        let explicit = firstRelationship.stored.joinTable
        let explicitKey = explicit.map { _ in "\(first.entity).\(first.name)#joinTable" }
        var base = explicit?.name ?? "\(ownerTable)_\(destinationTable)"
        // `track_artist`; a second link table between the same two tables, or a reflexive one, is named
        // after the relationship instead (`node_children`).
        if explicit == nil, ownerTable.sqliteFolded == destinationTable.sqliteFolded || draft.names.hasTable(base) {
            base = "\(ownerTable)_\(first.name)"
        }
        let name = try naming.claimTable(base, explicitKey: explicitKey, entity: first.entity, in: &draft.names)
        var ownerColumn = explicit?.columns[0] ?? "\(ownerTable)_id"
        var destinationColumn = explicit?.columns[1] ?? "\(destinationTable)_id"
        if ownerColumn.sqliteFolded == destinationColumn.sqliteFolded {
            if let explicitKey {
                throw naming.collision(
                    destinationColumn, key: explicitKey, entity: first.entity, property: first.name,
                    with: .joinTableColumn)
            }
            destinationColumn = "\(first.name)_id"
            ownerColumn = "\(second?.name ?? "owner")_id"
            if ownerColumn.sqliteFolded == destinationColumn.sqliteFolded { ownerColumn = "owner_id" }
        }
        let ownerKey = PlainSQLNames.primaryKey(of: model.entity(named: first.entity))
        let destinationKey = PlainSQLNames.primaryKey(of: model.entity(named: firstRelationship.destination))
        let actions = explicit?.onDelete.map { $0.uppercased() == "NO ACTION" ? nil : $0 } ?? []
        let columns = [
            SchemaColumn(
                name: ownerColumn, declaredType: "INTEGER", notNull: true,
                references: ForeignKeyReference(table: ownerTable, column: ownerKey, onDelete: actions.first ?? nil)),
            SchemaColumn(
                name: destinationColumn, declaredType: "INTEGER", notNull: true,
                references: ForeignKeyReference(table: destinationTable, column: destinationKey, onDelete: actions.last ?? nil)),
        ]
        var positionNames = ColumnRegistry(reserved: [ownerColumn, destinationColumn])
        let destinationPosition =
            firstRelationship.isOrdered ? positionNames.claim("\(first.name)_position", owner: first.entity) : nil
        let ownerPosition =
            secondRelationship?.isOrdered == true
            ? positionNames.claim("\(second?.name ?? "owner")_position", owner: second?.entity ?? first.entity) : nil
        draft.addJoinTable(
            name, columns: columns, first: first, second: second, ownerColumn: ownerColumn,
            destinationColumn: destinationColumn, destinationPosition: destinationPosition, ownerPosition: ownerPosition)
        if let explicit {
            draft.tables[name]?.primaryKeyName = explicit.primaryKeyConstraint
            if !explicit.columnOrder.isEmpty, let table = draft.tables[name] {
                draft.tables[name]!.columns = PlainSQLStorageBuilder.ordered(table.columns, by: explicit.columnOrder)
            }
            if let index = explicit.index {
                let indexName = try naming.claimIndex(index, explicitKey: explicitKey, entity: first.entity, in: &draft.names)
                draft.indexes.append(SchemaIndex(name: indexName, table: name, columns: [destinationColumn]))
            }
            return
        }
        let suffix = destinationColumn.hasSuffix("_id") ? String(destinationColumn.dropLast(3)) : destinationColumn
        draft.addIndex(SchemaIndex(name: "\(name)_\(suffix)_idx", table: name, columns: [destinationColumn]))
    }
}
