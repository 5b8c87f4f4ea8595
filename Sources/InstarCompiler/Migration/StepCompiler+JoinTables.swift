import InstarInference
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts

/// Join tables of a step: kept, created from a foreign key (to-one → to-many), or moved between
/// storages as relationships change.
extension StepCompiler {
    /// The older storage of a newer relationship, if it existed.
    func oldStorage(of key: RelationshipKey) -> (RelationshipStorage, ResolvedProperty)? {
        guard sourceEntity(of: key.entity) != nil, let sourceProperty = propertyMapping(key.entity, key.name),
            sourceProperty.property.relationship != nil
        else { return nil }
        let oldKey = RelationshipKey(entity: sourceProperty.declaringEntity, name: sourceProperty.name)
        return oldMap.relationships[oldKey].map { ($0, sourceProperty) }
    }

    func joinTable(_ target: SchemaTable, _ join: JoinTable) -> TableTransformation {
        // Try the relationship the table is named after, then its inverse seen from the other side.
        if let (storage, _) = oldStorage(of: join.relationship),
            let t = joinFill(target, join, from: storage, mirrored: false)
        {
            return t
        }
        if let inverse = join.inverse, let (storage, _) = oldStorage(of: inverse),
            let t = joinFill(target, join, from: storage, mirrored: true)
        {
            return t
        }
        return TableTransformation(target: target, role: .joinTable, source: nil, columns: [:], continuesSource: false)
    }

    /// Fills a join table from the old storage of one of its relationships. `mirrored` means the storage
    /// belongs to the inverse, so owner and destination swap.
    private func joinFill(_ target: SchemaTable, _ join: JoinTable, from storage: RelationshipStorage, mirrored: Bool)
        -> TableTransformation?
    {
        let owner = mirrored ? join.destinationColumn : join.ownerColumn
        let destination = mirrored ? join.ownerColumn : join.destinationColumn
        let destinationPosition = mirrored ? join.ownerPosition : join.destinationPosition
        let ownerPosition = mirrored ? join.destinationPosition : join.ownerPosition
        var columns: [String: ColumnValueExpression] = [:]
        switch storage {
        case .joinTable(let name, let oldOwner, let oldDestination, let oldPosition):
            columns[owner] = .column(oldOwner)
            columns[destination] = .column(oldDestination)
            if let destinationPosition {
                columns[destinationPosition] =
                    oldPosition.map { .column($0) } ?? .position(partition: .column(oldOwner), order: [.column(oldDestination)], step: 1)
            }
            if let ownerPosition {
                let oldOwnerPosition = oldMap.joinTables[name].flatMap { j in
                    j.ownerColumn == oldOwner ? j.ownerPosition : j.destinationPosition
                }
                columns[ownerPosition] =
                    oldOwnerPosition.map { .column($0) }
                    ?? .position(partition: .column(oldDestination), order: [.column(oldOwner)], step: 1)
            }
            let continues = oldMap.joinTables[name] != nil
            return TableTransformation(
                target: target, role: .joinTable, source: name, columns: columns, continuesSource: continues)
        case .foreignKey(let table, let fk):
            // A to-one became to-many: each link becomes one row.
            guard let info = oldMap.entityTables[table] else { return nil }
            columns[owner] = .column(info.primaryKey)
            columns[destination] = .column(fk)
            if let destinationPosition { columns[destinationPosition] = .value(.integer(1)) }
            if let ownerPosition {
                // An inverse that was ordered already kept its positions beside this key: keep them.
                let kept = oldMap.relationships.values.lazy.compactMap { old -> String? in
                    guard case .inverseForeignKey(let inverse, let position?) = old,
                        case .foreignKey(let t, let c)? = oldMap.relationships[inverse], t == table, c == fk
                    else { return nil }
                    return position
                }.first
                columns[ownerPosition] =
                    kept.map { .column($0) } ?? .position(partition: .column(fk), order: [.column(info.primaryKey)], step: 1)
            }
            return TableTransformation(
                target: target, role: .joinTable, source: table, columns: columns, filter: [.isNotNull(fk)],
                continuesSource: false)
        case .inverseForeignKey(let inverse, let oldPosition):
            // A one-to-many became many-to-many: the links are the inverse's foreign keys.
            guard case .foreignKey(let table, let fk)? = oldMap.relationships[inverse],
                let info = oldMap.entityTables[table]
            else { return nil }
            columns[owner] = .column(fk)
            columns[destination] = .column(info.primaryKey)
            if let destinationPosition {
                columns[destinationPosition] =
                    oldPosition.map { .column($0) } ?? .position(partition: .column(fk), order: [.column(info.primaryKey)], step: 1)
            }
            if let ownerPosition { columns[ownerPosition] = .value(.integer(1)) }
            return TableTransformation(
                target: target, role: .joinTable, source: table, columns: columns, filter: [.isNotNull(fk)],
                continuesSource: false)
        }
    }
}
