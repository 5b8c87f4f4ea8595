@_spi(Layouts) import InstarModel

/// Builds the ``StorageMap`` of the Instar layout for one model version.
struct InstarStorageBuilder {
    let model: Model
    let layout: InstarLayout

    private var draft = StorageMapDraft()

    init(model: Model, layout: InstarLayout) {
        self.model = model
        self.layout = layout
    }

    /// Entities of a hierarchy, root first, children in name order (stable whatever the file order).
    private func hierarchy(below name: String) -> [String] {
        let children = model.subentities(of: name).sorted(by: CoreDataOrder.precedes)
        return [name] + children.flatMap { hierarchy(below: $0) }
    }

    mutating func build() throws(LayoutError) -> StorageMap {
        let roots = model.rootEntities.map(\.name).sorted(by: CoreDataOrder.precedes)
        for root in roots {
            try buildEntityTable(root: root)
        }
        draft.resolveReferencesToTables()
        for root in roots {
            for entity in hierarchy(below: root) {
                buildToManyStorage(of: entity)
            }
        }
        buildIndexes(roots: roots)
        return draft.finish()
    }

    private mutating func buildEntityTable(root: String) throws(LayoutError) {
        let members = hierarchy(below: root)
        let tableName = draft.names.claimTable(root)
        var registry = ColumnRegistry(reserved: [InstarLayout.primaryKey, InstarLayout.discriminator])
        var columns = [SchemaColumn(name: InstarLayout.primaryKey, declaredType: "INTEGER", isPrimaryKey: true)]
        let discriminator = members.count > 1 ? InstarLayout.discriminator : nil
        if let discriminator {
            columns.append(SchemaColumn(name: discriminator, declaredType: "TEXT", notNull: true))
        }
        // Sized once for the members' stored attributes and to-one relationships: grown by doubling, the
        // array kept up to twice the room it needed in every map the planner keeps while pricing steps.
        columns.reserveCapacity(
            members.reduce(columns.count) { count, name in
                let entity = model.entity(named: name)!
                return count + entity.attributes.count { !$0.isTransient }
                    + entity.relationships.count { !$0.isTransient && $0.isToOne }
            })
        for name in members {
            let entity = model.entity(named: name)!
            var map = entity.parent.flatMap { draft.entities[$0]?.columns } ?? [:]
            for attribute in entity.attributes where !attribute.isTransient {
                guard let type = try layout.columnType(of: attribute) else { continue }
                let column = registry.claim(attribute.name, owner: name)
                map[attribute.name] = column
                columns.append(
                    SchemaColumn(
                        name: column, declaredType: type.rawValue,
                        notNull: !attribute.isOptional && name == root,
                        defaultValue: layout.storedDefault(of: attribute)))
            }
            for relationship in entity.relationships where !relationship.isTransient && relationship.isToOne {
                let column = registry.claim(relationship.name, owner: name)
                map[relationship.name] = column
                let destinationTable = model.root(of: relationship.destination)
                columns.append(
                    SchemaColumn(
                        name: column, declaredType: "INTEGER",
                        references: ForeignKeyReference(
                            table: destinationTable, column: InstarLayout.primaryKey, onDelete: "SET NULL")))
                draft.relationships[RelationshipKey(entity: name, name: relationship.name)] = .foreignKey(
                    table: tableName, column: column)
            }
            draft.entities[name] = EntityStorage(
                table: tableName, discriminatorValue: discriminator == nil ? nil : .text(name), columns: map,
                kinds: hierarchy(below: name))
        }
        draft.registries[tableName] = registry
        draft.tables[tableName] = SchemaTable(name: tableName, columns: columns)
        draft.tableOrder.append(tableName)
        draft.entityTables[tableName] = EntityTable(
            root: root, primaryKey: InstarLayout.primaryKey, discriminator: discriminator, bookkeeping: [:])
    }

    /// Foreign keys are fixed after every entity table exists: fix the references to root table names.
    private mutating func buildToManyStorage(of entityName: String) {
        let entity = model.entity(named: entityName)!
        for relationship in entity.relationships where !relationship.isTransient && relationship.isToMany {
            let key = RelationshipKey(entity: entityName, name: relationship.name)
            guard draft.relationships[key] == nil else { continue }  // assigned from the other side
            let inverse = relationship.inverse.flatMap { model.property($0, of: relationship.destination) }
            let inverseRelationship = inverse?.property.relationship
            let inverseKey = inverse.map { RelationshipKey(entity: $0.declaringEntity, name: $0.name) }
            if let inverseRelationship, let inverseKey, inverseRelationship.isToOne, !inverseRelationship.isTransient {
                var position: String?
                if relationship.isOrdered, case .foreignKey(let table, let fk)? = draft.relationships[inverseKey] {
                    let column = draft.registries[table]!.claim("\(fk)_position", owner: inverseKey.entity)
                    draft.tables[table]!.columns.append(SchemaColumn(name: column, declaredType: "INTEGER"))
                    position = column
                }
                draft.relationships[key] = .inverseForeignKey(inverse: inverseKey, position: position)
            } else {
                buildJoinTable(key, relationship, inverseKey: inverseRelationship?.isToMany == true ? inverseKey : nil,
                    inverse: inverseRelationship)
            }
        }
    }

    private mutating func buildJoinTable(
        _ key: RelationshipKey, _ relationship: Relationship, inverseKey: RelationshipKey?, inverse: Relationship?
    ) {
        // Name the table after the side that sorts first, so both sides agree whichever is seen first.
        var (first, firstRelationship, second, secondRelationship) = (key, relationship, inverseKey, inverse)
        if let inverseKey, let inverse, sortsBefore(inverseKey, key) {
            (first, firstRelationship, second, secondRelationship) = (inverseKey, inverse, key, relationship)
        }
        let name = draft.names.claimTable("\(first.entity)_\(first.name)")
        var destinationColumn = first.name
        var ownerColumn = second?.name ?? "_owner"
        if destinationColumn.sqliteFolded == ownerColumn.sqliteFolded {
            destinationColumn = "\(firstRelationship.destination)_\(first.name)"
            ownerColumn = "\(first.entity)_\(ownerColumn)"
            if destinationColumn.sqliteFolded == ownerColumn.sqliteFolded { ownerColumn += "_inverse" }
        }
        let ownerTable = draft.entities[first.entity]!.table
        let destinationTable = draft.entities[firstRelationship.destination]!.table
        let columns = [
            SchemaColumn(
                name: ownerColumn, declaredType: "INTEGER", notNull: true,
                references: ForeignKeyReference(table: ownerTable, column: InstarLayout.primaryKey, onDelete: "CASCADE")),
            SchemaColumn(
                name: destinationColumn, declaredType: "INTEGER", notNull: true,
                references: ForeignKeyReference(
                    table: destinationTable, column: InstarLayout.primaryKey, onDelete: "CASCADE")),
        ]
        // A position column must not take the other side's name (`x` ordered, inverse called `x_position`).
        var positionNames = ColumnRegistry(reserved: [ownerColumn, destinationColumn])
        let destinationPosition =
            firstRelationship.isOrdered ? positionNames.claim("\(destinationColumn)_position", owner: first.entity) : nil
        let ownerPosition =
            secondRelationship?.isOrdered == true
            ? positionNames.claim("\(ownerColumn)_position", owner: second?.entity ?? first.entity) : nil
        draft.addJoinTable(
            name, columns: columns, first: first, second: second, ownerColumn: ownerColumn,
            destinationColumn: destinationColumn, destinationPosition: destinationPosition, ownerPosition: ownerPosition)
        addIndex(name: "\(name)_\(destinationColumn)_index", table: name, columns: [destinationColumn, ownerColumn])
    }

    private func sortsBefore(_ a: RelationshipKey, _ b: RelationshipKey) -> Bool {
        if a.entity != b.entity { return CoreDataOrder.precedes(a.entity, b.entity) }
        return CoreDataOrder.precedes(a.name, b.name)
    }

    private mutating func buildIndexes(roots: [String]) {
        for table in draft.tableOrder {
            guard let info = draft.entityTables[table] else { continue }
            if let discriminator = info.discriminator {
                addIndex(name: "\(table)_\(discriminator)_index", table: table, columns: [discriminator])
            }
            for column in draft.tables[table]!.columns where column.references != nil {
                addIndex(name: "\(table)_\(column.name)_index", table: table, columns: [column.name])
            }
        }
        for root in roots {
            for name in hierarchy(below: root) {
                let entity = model.entity(named: name)!
                let storage = draft.entities[name]!
                for constraint in entity.uniquenessConstraints {
                    let columns = constraint.compactMap { storage.columns[$0] }
                    guard columns.count == constraint.count else { continue }
                    addIndex(
                        name: "\(name)_unique_\(constraint.joined(separator: "_"))", table: storage.table, columns: columns,
                        unique: true)
                }
                for index in entity.indexes {
                    let elements = index.elements.compactMap { element in
                        storage.columns[element.property].map {
                            SchemaIndex.Element(column: $0, descending: !element.ascending)
                        }
                    }
                    guard elements.count == index.elements.count else { continue }
                    addIndex(SchemaIndex(name: "\(name)_\(index.name)", table: storage.table, elements: elements))
                }
                for attribute in entity.attributes where attribute.isIndexed && !attribute.isTransient {
                    guard let column = storage.columns[attribute.name] else { continue }
                    addIndex(name: "\(name)_\(attribute.name)_index", table: storage.table, columns: [column])
                }
            }
        }
    }

    private mutating func addIndex(name: String, table: String, columns: [String], unique: Bool = false) {
        addIndex(SchemaIndex(name: name, table: table, columns: columns, isUnique: unique))
    }

    private mutating func addIndex(_ index: SchemaIndex) {
        draft.addIndex(index)
    }
}
