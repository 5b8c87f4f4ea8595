import InstarModel

/// Builds the ``StorageMap`` of the plain SQL layout (``PlainSQLLayout``) for one model version.
struct PlainSQLStorageBuilder {
    let model: Model
    let layout: PlainSQLLayout

    private var draft = StorageMapDraft()
    /// Entity name → position in the model file (join tables are named owner first).
    private let declarationIndex: [String: Int]

    init(model: Model, layout: PlainSQLLayout) {
        self.model = model
        self.layout = layout
        declarationIndex = Dictionary(
            model.entities.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { a, _ in a })
    }

    mutating func build() throws(LayoutError) -> StorageMap {
        for entity in model.entities where entity.parent != nil {
            throw LayoutError(
                layout: layout.name, entity: entity.name,
                message:
                    "sub-entities are not supported (a hand-written schema has no discriminator convention); give '\(entity.name)' its own properties instead of the parent '\(entity.parent!)', or use the instar layout"
            )
        }
        // Tables in declaration order: the order a person wrote the CREATE TABLE statements in.
        for entity in model.entities {
            try buildEntityTable(entity)
        }
        draft.resolveReferencesToTables()
        for entity in model.entities {
            buildToManyStorage(of: entity)
        }
        buildIndexes()
        return draft.finish()
    }

    private mutating func buildEntityTable(_ entity: Entity) throws(LayoutError) {
        let tableName = draft.names.claimTable(entity.name)
        var registry = ColumnRegistry(reserved: [PlainSQLLayout.primaryKey])
        var columns = [ColumnDefinition(name: PlainSQLLayout.primaryKey, declaredType: "INTEGER", isPrimaryKey: true)]
        var map: [String: String] = [:]
        var appended: [ColumnDefinition] = []
        for attribute in entity.attributes where !attribute.isTransient {
            guard let type = try layout.columnType(of: attribute, entity: entity.name) else { continue }
            let column = registry.claim(attribute.name, owner: entity.name)
            map[attribute.name] = column
            let definition = ColumnDefinition(
                name: column, declaredType: type.rawValue, notNull: !attribute.isOptional,
                defaultValue: layout.storedDefault(of: attribute))
            if attribute.userInfo[PlainSQLLayout.columnPositionKey] == PlainSQLLayout.appendedValue {
                appended.append(definition)
            } else {
                columns.append(definition)
            }
        }
        for relationship in entity.relationships where !relationship.isTransient && relationship.isToOne {
            let column = registry.claim("\(relationship.name)_id", owner: entity.name)
            map[relationship.name] = column
            columns.append(
                ColumnDefinition(
                    name: column, declaredType: "INTEGER",
                    references: ForeignKeyReference(table: relationship.destination, column: PlainSQLLayout.primaryKey)))
            draft.relationships[RelationshipKey(entity: entity.name, name: relationship.name)] = .foreignKey(
                table: tableName, column: column)
        }
        columns += appended
        var unique: [[String]] = []
        for constraint in entity.uniquenessConstraints {
            let names = constraint.compactMap { map[$0] }
            guard names.count == constraint.count, !unique.contains(names) else { continue }
            unique.append(names)
            if names.count == 1, let i = columns.firstIndex(where: { $0.name == names[0] }) {
                columns[i].isUnique = true  // written `name TEXT NOT NULL UNIQUE`, read back as the constraint
            }
        }
        draft.entities[entity.name] = EntityStorage(table: tableName, discriminatorValue: nil, columns: map, kinds: [entity.name])
        draft.registries[tableName] = registry
        draft.tables[tableName] = TableDefinition(name: tableName, columns: columns, uniqueConstraints: unique)
        draft.tableOrder.append(tableName)
        draft.entityTables[tableName] = EntityTable(
            root: entity.name, primaryKey: PlainSQLLayout.primaryKey, discriminator: nil, bookkeeping: [:])
    }

    private mutating func buildToManyStorage(of entity: Entity) {
        for relationship in entity.relationships where !relationship.isTransient && relationship.isToMany {
            let key = RelationshipKey(entity: entity.name, name: relationship.name)
            guard draft.relationships[key] == nil else { continue }  // assigned from the other side
            let inverse = relationship.inverse.flatMap { model.property($0, of: relationship.destination) }
            let inverseRelationship = inverse?.property.relationship
            let inverseKey = inverse.map { RelationshipKey(entity: $0.declaringEntity, name: $0.name) }
            if let inverseRelationship, let inverseKey, inverseRelationship.isToOne, !inverseRelationship.isTransient {
                var position: String?
                if relationship.isOrdered, case .foreignKey(let table, _)? = draft.relationships[inverseKey] {
                    let column = draft.registries[table]!.claim("\(inverseKey.name)_position", owner: inverseKey.entity)
                    draft.tables[table]!.columns.append(ColumnDefinition(name: column, declaredType: "INTEGER"))
                    position = column
                }
                draft.relationships[key] = .inverseForeignKey(inverse: inverseKey, position: position)
            } else {
                buildJoinTable(
                    key, relationship, inverseKey: inverseRelationship?.isToMany == true ? inverseKey : nil,
                    inverse: inverseRelationship)
            }
        }
    }

    /// True when `a` names the join table rather than `b`: its entity is declared first in the model
    /// (within one entity, the relationship name that sorts first).
    private func owns(_ a: RelationshipKey, over b: RelationshipKey) -> Bool {
        let ia = declarationIndex[a.entity] ?? 0
        let ib = declarationIndex[b.entity] ?? 0
        if ia != ib { return ia < ib }
        return CoreDataOrder.precedes(a.name, b.name)
    }

    private mutating func buildJoinTable(
        _ key: RelationshipKey, _ relationship: Relationship, inverseKey: RelationshipKey?, inverse: Relationship?
    ) {
        var (first, firstRelationship, second, secondRelationship) = (key, relationship, inverseKey, inverse)
        if let inverseKey, let inverse, owns(inverseKey, over: key) {
            (first, firstRelationship, second, secondRelationship) = (inverseKey, inverse, key, relationship)
        }
        let ownerTable = draft.entities[first.entity]!.table
        let destinationTable = draft.entities[firstRelationship.destination]!.table
        // `track_artist`; a second link table between the same two tables, or a reflexive one, is named
        // after the relationship instead (`node_children`).
        var base = "\(ownerTable)_\(destinationTable)"
        if ownerTable.sqliteFolded == destinationTable.sqliteFolded || draft.names.hasTable(base) {
            base = "\(ownerTable)_\(first.name)"
        }
        let name = draft.names.claimTable(base)
        var ownerColumn = "\(ownerTable)_id"
        var destinationColumn = "\(destinationTable)_id"
        if ownerColumn.sqliteFolded == destinationColumn.sqliteFolded {
            destinationColumn = "\(first.name)_id"
            ownerColumn = "\(second?.name ?? "owner")_id"
            if ownerColumn.sqliteFolded == destinationColumn.sqliteFolded { ownerColumn = "owner_id" }
        }
        let columns = [
            ColumnDefinition(
                name: ownerColumn, declaredType: "INTEGER", notNull: true,
                references: ForeignKeyReference(table: ownerTable, column: PlainSQLLayout.primaryKey)),
            ColumnDefinition(
                name: destinationColumn, declaredType: "INTEGER", notNull: true,
                references: ForeignKeyReference(table: destinationTable, column: PlainSQLLayout.primaryKey)),
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
        let suffix = destinationColumn.hasSuffix("_id") ? String(destinationColumn.dropLast(3)) : destinationColumn
        addIndex(IndexDefinition(name: "\(name)_\(suffix)_idx", table: name, columns: [destinationColumn]))
    }

    private mutating func buildIndexes() {
        for entity in model.entities {
            let storage = draft.entities[entity.name]!
            for index in entity.indexes {
                let elements = index.elements.compactMap { element in
                    storage.columns[element.property].map {
                        IndexDefinition.Element(column: $0, descending: !element.ascending)
                    }
                }
                guard elements.count == index.elements.count else { continue }
                addIndex(IndexDefinition(name: "\(storage.table)_\(index.name)_idx", table: storage.table, elements: elements))
            }
            for attribute in entity.attributes where attribute.isIndexed && !attribute.isTransient {
                guard let column = storage.columns[attribute.name] else { continue }
                addIndex(IndexDefinition(name: "\(storage.table)_\(column)_idx", table: storage.table, columns: [column]))
            }
        }
    }

    private mutating func addIndex(_ index: IndexDefinition) {
        draft.addIndex(index)
    }
}
