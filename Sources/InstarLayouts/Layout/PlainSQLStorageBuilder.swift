@_spi(Layouts) import InstarModel

/// Builds the ``StorageMap`` of the plain SQL layout (``PlainSQLLayout``) for one model version.
///
/// Names come from ``PlainSQLNames``: the layout's conventions, or the model's naming keys.
struct PlainSQLStorageBuilder {
    let model: Model
    let layout: PlainSQLLayout

    var draft = StorageMapDraft()
    /// Entity name → position in the model file (join tables are named owner first).
    let declarationIndex: [String: Int]
    var naming: PlainSQLNames!

    init(model: Model, layout: PlainSQLLayout) {
        self.model = model
        self.layout = layout
        declarationIndex = Dictionary(
            model.entities.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { a, _ in a })
    }

    mutating func build() throws(LayoutError) -> StorageMap {
        for entity in model.entities where entity.parent != nil {
            throw LayoutError(layout: layout.name, entity: entity.name, .subEntity(parent: entity.parent!))
        }
        naming = try PlainSQLNames(model: model, layout: layout.name)
        for raw in model.rawSQL where raw.kind == .table || raw.kind == .index {
            guard raw.kind == .table ? draft.names.claimExactTable(raw.name) : draft.names.claimExactIndex(raw.name) else {
                throw LayoutError(layout: layout.name, .rawNameTaken(raw.kind, name: raw.name))
            }
        }
        // Tables in declaration order: the order a person wrote the CREATE TABLE statements in.
        for entity in model.entities {
            try buildEntityTable(entity)
        }
        draft.resolveReferencesToTables()
        for entity in model.entities {
            try buildToManyStorage(of: entity)
        }
        try buildIndexes()
        var map = draft.finish()
        map.schema.raw = model.rawSQL
        return map
    }

    private mutating func buildEntityTable(_ entity: Entity) throws(LayoutError) {
        let tableName = try naming.claimTable(
            entity.stored.table ?? entity.name, explicitKey: entity.stored.table.map { _ in "\(entity.name)#table" },
            entity: entity.name, in: &draft.names)
        let primaryKey = PlainSQLNames.primaryKey(of: entity)
        var registry = ColumnRegistry(reserved: [primaryKey])
        var columns: [SchemaColumn] = []
        if !PlainSQLNames.isRowID(primaryKey) {
            var key = SchemaColumn(name: primaryKey, declaredType: "INTEGER", isPrimaryKey: true)
            key.autoincrement = entity.stored.autoincrement
            key.primaryKeyName = entity.stored.primaryKeyConstraint
            columns.append(key)
        }
        var map: [String: String] = [:]
        var appended: [SchemaColumn] = []
        for attribute in entity.attributes where !attribute.isTransient {
            guard let type = try layout.columnType(of: attribute, entity: entity.name) else { continue }
            let column = try naming.claimColumn(
                attribute.stored.name ?? attribute.name,
                explicitKey: attribute.stored.name.map { _ in "\(entity.name).\(attribute.name)#column" },
                entity: entity.name, property: attribute.name, in: &registry)
            map[attribute.name] = column
            var definition = SchemaColumn(
                name: column, declaredType: attribute.stored.type ?? type.rawValue, notNull: !attribute.isOptional,
                defaultValue: layout.storedDefault(of: attribute))
            definition.verbatimClauses = attribute.stored.sql
            if attribute.userInfo[PlainSQLLayout.columnPositionKey] == PlainSQLLayout.appendedValue {
                appended.append(definition)
            } else {
                columns.append(definition)
            }
        }
        for relationship in entity.relationships where !relationship.isTransient && relationship.isToOne {
            let stored = relationship.stored.column
            let column = try naming.claimColumn(
                stored.name ?? "\(relationship.name)_id",
                explicitKey: stored.name.map { _ in "\(entity.name).\(relationship.name)#column" },
                entity: entity.name, property: relationship.name, in: &registry)
            map[relationship.name] = column
            let destinationKey = PlainSQLNames.primaryKey(of: model.entity(named: relationship.destination))
            var definition = SchemaColumn(
                name: column, declaredType: stored.type ?? "INTEGER", notNull: stored.notNull,
                references: ForeignKeyReference(
                    table: relationship.destination, column: destinationKey, onDelete: stored.onDelete,
                    constraintName: stored.constraint))
            definition.verbatimClauses = stored.sql
            columns.append(definition)
            draft.relationships[RelationshipKey(entity: entity.name, name: relationship.name)] = .foreignKey(
                table: tableName, column: column)
        }
        columns += appended
        columns = Self.ordered(columns, by: entity.stored.columnOrder)
        var unique: [[String]] = []
        var uniqueNames: [[String]: String] = [:]
        for constraint in entity.uniquenessConstraints where entity.stored.uniqueIndexNames[constraint] == nil {
            let names = constraint.compactMap { map[$0] }
            guard names.count == constraint.count, !unique.contains(names) else { continue }
            unique.append(names)
            if let name = entity.stored.uniqueConstraintNames[constraint] {
                uniqueNames[names] = name  // written as the table constraint `CONSTRAINT name UNIQUE (…)`
            } else if names.count == 1, let i = columns.firstIndex(where: { $0.name == names[0] }) {
                columns[i].isUnique = true  // written `name TEXT NOT NULL UNIQUE`, read back as the constraint
            }
        }
        draft.entities[entity.name] = EntityStorage(table: tableName, discriminatorValue: nil, columns: map, kinds: [entity.name])
        draft.registries[tableName] = registry
        var table = SchemaTable(name: tableName, columns: columns, uniqueConstraints: unique)
        table.verbatimConstraints = entity.stored.tableSQL
        table.uniqueConstraintNames = uniqueNames
        if !entity.stored.compositeKey.isEmpty {
            table.primaryKey = entity.stored.compositeKey
            table.primaryKeyName = entity.stored.primaryKeyConstraint
        }
        draft.tables[tableName] = table
        draft.tableOrder.append(tableName)
        draft.entityTables[tableName] = EntityTable(
            root: entity.name, primaryKey: primaryKey, discriminator: nil, bookkeeping: [:])
    }

    /// Columns in the order `columnOrder:` gives (an adopted table's own order, kept on create and on
    /// every rebuild); unlisted columns follow in the layout's order. The primary key is always listed
    /// where the model puts it, or first.
    static func ordered(_ columns: [SchemaColumn], by order: [String]) -> [SchemaColumn] {
        guard !order.isEmpty else { return columns }
        let position = Dictionary(order.enumerated().map { ($1.sqliteFolded, $0) }, uniquingKeysWith: { a, _ in a })
        return columns.enumerated().sorted { a, b in
            let pa = position[a.element.name.sqliteFolded] ?? (a.element.isPrimaryKey ? -1 : order.count + a.offset)
            let pb = position[b.element.name.sqliteFolded] ?? (b.element.isPrimaryKey ? -1 : order.count + b.offset)
            return pa < pb
        }.map(\.element)
    }

    private mutating func buildToManyStorage(of entity: Entity) throws(LayoutError) {
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
                    draft.tables[table]!.columns.append(SchemaColumn(name: column, declaredType: "INTEGER"))
                    position = column
                }
                draft.relationships[key] = .inverseForeignKey(inverse: inverseKey, position: position)
            } else {
                try buildJoinTable(
                    key, relationship, inverseKey: inverseRelationship?.isToMany == true ? inverseKey : nil,
                    inverse: inverseRelationship)
            }
        }
    }

    private mutating func buildIndexes() throws(LayoutError) {
        for entity in model.entities {
            let storage = draft.entities[entity.name]!
            for (constraint, name) in entity.stored.uniqueIndexNames.sorted(by: { $0.value < $1.value }) {
                let columns = constraint.compactMap { storage.columns[$0] }
                guard columns.count == constraint.count, entity.uniquenessConstraints.contains(constraint) else { continue }
                let claimed = try naming.claimIndex(
                    name, explicitKey: "\(entity.name)#unique:\(name)", entity: entity.name, in: &draft.names)
                draft.indexes.append(SchemaIndex(name: claimed, table: storage.table, columns: columns, isUnique: true))
            }
            for index in entity.indexes {
                let elements = index.elements.compactMap { element in
                    storage.columns[element.property].map {
                        SchemaIndex.Element(column: $0, descending: !element.ascending)
                    }
                }
                guard elements.count == index.elements.count else { continue }
                let name = try naming.claimIndex(
                    index.storedName ?? "\(storage.table)_\(index.name)_idx",
                    explicitKey: index.storedName.map { _ in "\(entity.name)#index:\(index.name)" }, entity: entity.name,
                    in: &draft.names)
                draft.indexes.append(SchemaIndex(name: name, table: storage.table, elements: elements))
            }
            for attribute in entity.attributes where attribute.isIndexed && !attribute.isTransient {
                guard let column = storage.columns[attribute.name] else { continue }
                draft.addIndex(SchemaIndex(name: "\(storage.table)_\(column)_idx", table: storage.table, columns: [column]))
            }
        }
    }
}
