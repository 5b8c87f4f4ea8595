import InstarModel

/// Builds the ``StorageMap`` of the Core Data layout for one model version (FORMAT.md §1.3–§1.11).
struct CoreDataStorageBuilder {
    let model: Model
    let layout: CoreDataLayout

    /// Entity → `Z_ENT`.
    private var numbers: [String: Int] = [:]
    private var order: [String] = []
    private var tables: [String: TableDefinition] = [:]
    private var tableOrder: [String] = []
    /// Column names per root table (the hierarchy's one registry).
    private var registries: [String: CoreDataNameRegistry] = [:]
    /// Join-table column names, per entity that names them.
    private var joinRegistries: [String: CoreDataNameRegistry] = [:]
    private var tableNames = CoreDataNameRegistry()
    /// Columns of each entity table before ordering: (group, entity number, rank within entity, column).
    private var pending: [String: [(group: Int, entity: Int, rank: Int, column: ColumnDefinition)]] = [:]
    private var entities: [String: EntityStorage] = [:]
    private var entityTables: [String: EntityTable] = [:]
    private var relationships: [RelationshipKey: RelationshipStorage] = [:]
    private var joinTables: [String: JoinTable] = [:]
    private var indexes: [IndexDefinition] = []
    private var indexNames = Set<String>()

    init(model: Model, layout: CoreDataLayout) {
        self.model = model
        self.layout = layout
    }

    /// Entities in `Z_ENT` order: roots by name, each followed by its sub-entities depth-first, siblings
    /// by name, ignoring case (``entityPrecedes(_:_:)``).
    static func numbering(_ model: Model) -> [String] {
        func below(_ name: String) -> [String] {
            [name] + model.subentities(of: name).sorted(by: entityPrecedes).flatMap(below)
        }
        return model.rootEntities.map(\.name).sorted(by: entityPrecedes).flatMap(below)
    }

    /// The order of entity names in Core Data's numbering: without ASCII case, then by UTF-16 units.
    /// A real store shows it (DuckDuckGo SyncMetadata: 1 `SyncableSettingsMetadata`, 2
    /// `SyncFeatureEntity`, where `compare:`, used for the version hashes, puts `F` before `a`).
    static func entityPrecedes(_ a: String, _ b: String) -> Bool {
        let (fa, fb) = (a.sqliteFolded, b.sqliteFolded)
        return fa != fb ? CoreDataOrder.precedes(fa, fb) : CoreDataOrder.precedes(a, b)
    }

    private func hierarchy(below name: String) -> [String] {
        [name] + model.subentities(of: name).sorted(by: Self.entityPrecedes).flatMap { hierarchy(below: $0) }
    }

    mutating func build() throws(LayoutError) -> StorageMap {
        order = Self.numbering(model)
        for (index, name) in order.enumerated() { numbers[name] = index + 1 }
        let roots = order.filter { model.entity(named: $0)?.parent == nil }
        for root in roots {
            try buildEntityTable(root: root)
        }
        for entity in order {
            buildToManyStorage(of: entity)
        }
        // Entity tables take their columns in Core Data's order: INTEGER (attributes, then keys with
        // their entity columns, then ordering keys), FLOAT/TIMESTAMP, DECIMAL, VARCHAR, BLOB; within a
        // group by entity number, then by name. Only cosmetic: columns are always addressed by name.
        for table in tableOrder where entityTables[table] != nil {
            let sorted = pending[table, default: []].enumerated().sorted { a, b in
                (a.element.group, a.element.entity, a.element.rank, a.offset)
                    < (b.element.group, b.element.entity, b.element.rank, b.offset)
            }
            tables[table]!.columns += sorted.map(\.element.column)
        }
        buildIndexes()
        let schema = StoreSchema(tables: tableOrder.map { tables[$0]! }, indexes: indexes)
        return StorageMap(
            schema: schema, entities: entities, entityTables: entityTables, relationships: relationships,
            joinTables: joinTables)
    }

    // MARK: Entity tables

    private mutating func buildEntityTable(root: String) throws(LayoutError) {
        let members = hierarchy(below: root)
        let table = tableNames.claim("Z" + root.coreDataUppercased)
        var registry = CoreDataNameRegistry(reserved: ["Z_PK", "Z_ENT", "Z_OPT"])
        tables[table] = TableDefinition(
            name: table,
            columns: [
                ColumnDefinition(name: "Z_PK", declaredType: "INTEGER", isPrimaryKey: true),
                ColumnDefinition(name: "Z_ENT", declaredType: "INTEGER"),
                ColumnDefinition(name: "Z_OPT", declaredType: "INTEGER"),
            ])
        tableOrder.append(table)
        var bookkeeping: [String: BookkeepingColumn] = ["Z_OPT": .preserved(.integer(1))]
        for name in members {
            let entity = model.entity(named: name)!
            let number = numbers[name]!
            var map = entity.parent.flatMap { entities[$0]?.columns } ?? [:]
            let attributes = entity.attributes.filter { !$0.isTransient }.sorted { CoreDataOrder.precedes($0.name, $1.name) }
            for attribute in attributes {
                guard let type = try layout.columnType(of: attribute, entity: name) else { continue }
                let column = registry.claim("Z" + attribute.name.coreDataUppercased)
                map[attribute.name] = column
                let group: Int
                switch type {
                case "INTEGER": group = 0
                case "FLOAT", "TIMESTAMP": group = 1
                case "DECIMAL": group = 2
                case "VARCHAR": group = 3
                default: group = attribute.type == .transformable ? 4 : 5
                }
                pending[table, default: []].append((group, number, 0, ColumnDefinition(name: column, declaredType: type)))
            }
            let toOnes = entity.relationships.filter { !$0.isTransient && $0.isToOne }
                .sorted { CoreDataOrder.precedes($0.name, $1.name) }
            for relationship in toOnes {
                let column = registry.claim("Z" + relationship.name.coreDataUppercased)
                map[relationship.name] = column
                pending[table, default: []].append((0, number, 1, ColumnDefinition(name: column, declaredType: "INTEGER")))
                relationships[RelationshipKey(entity: name, name: relationship.name)] = .foreignKey(table: table, column: column)
                // The destination row's entity, when the destination has sub-entities.
                if !model.subentities(of: relationship.destination).isEmpty, let n = numbers[relationship.destination] {
                    let entityColumn = registry.claim("Z\(n)_" + relationship.name.coreDataUppercased)
                    pending[table, default: []].append(
                        (0, number, 1, ColumnDefinition(name: entityColumn, declaredType: "INTEGER")))
                    bookkeeping[entityColumn] = .entityOf(foreignKey: column)
                }
            }
            entities[name] = EntityStorage(
                table: table, discriminatorValue: .integer(Int64(number)), columns: map, kinds: hierarchy(below: name))
        }
        registries[table] = registry
        entityTables[table] = EntityTable(root: root, primaryKey: "Z_PK", discriminator: "Z_ENT", bookkeeping: bookkeeping)
    }

    // MARK: To-many relationships

    private mutating func buildToManyStorage(of entityName: String) {
        let entity = model.entity(named: entityName)!
        let toMany = entity.relationships.filter { !$0.isTransient && $0.isToMany }
            .sorted { CoreDataOrder.precedes($0.name, $1.name) }
        for relationship in toMany {
            let key = RelationshipKey(entity: entityName, name: relationship.name)
            guard relationships[key] == nil else { continue }  // assigned from the other side
            let inverse = relationship.inverse.flatMap { model.property($0, of: relationship.destination) }
            let inverseRelationship = inverse?.property.relationship.flatMap { $0.isTransient ? nil : $0 }
            let inverseKey = inverse.map { RelationshipKey(entity: $0.declaringEntity, name: $0.name) }
            if let inverseRelationship, let inverseKey, inverseRelationship.isToOne {
                // One-to-many: the links are the inverse's keys; an ordered one adds Z_FOK_<INVERSE>.
                var position: String?
                if relationship.isOrdered, case .foreignKey(let table, _)? = relationships[inverseKey] {
                    let column = registries[table]!.claim("Z_FOK_" + inverseKey.name.coreDataUppercased)
                    let number = numbers[inverseKey.entity] ?? 0
                    pending[table, default: []].append((0, number, 2, ColumnDefinition(name: column, declaredType: "INTEGER")))
                    position = column
                }
                relationships[key] = .inverseForeignKey(inverse: inverseKey, position: position)
            } else if let inverseRelationship, let inverseKey {
                buildJoinTable(key, relationship, inverseKey: inverseKey, inverse: inverseRelationship)
            } else {
                buildJoinTable(withoutInverse: key, relationship)
            }
        }
    }

    /// A many-to-many pair. The table is named after the side "processed first" by Core Data: between
    /// two entities, the one whose name sorts first (seen in every sample, whatever the entity numbers:
    /// Apptentive's `Z_6DISPLAYTYPES` is named from `ATMessage`, number 6, not `ATMessageDisplayType`, 2);
    /// within one entity, the relationship whose name sorts last (DuckDuckGo `favorites` over
    /// `favoriteFolders`, EasyLife `blocking` over `blockedBy`; Core Data's choice there is not stable,
    /// FORMAT.md §1.10). Column `Z_<e><INVERSE>` holds the naming side's owners, `Z_<d><REL>` its
    /// destinations, each named after the relationship that leads to those rows.
    private mutating func buildJoinTable(
        _ key: RelationshipKey, _ relationship: Relationship, inverseKey: RelationshipKey, inverse: Relationship
    ) {
        if key == inverseKey {
            buildReflexiveJoinTable(key, relationship)
            return
        }
        var (named, namedRelationship, other, otherRelationship) = (key, relationship, inverseKey, inverse)
        var swap =
            key.entity == inverseKey.entity
            ? CoreDataOrder.precedes(key.name, inverseKey.name)
            : Self.entityPrecedes(inverseKey.entity, key.entity)
        if key.entity == inverseKey.entity, let e = numbers[key.entity] {
            // The store decides when it has the other name only.
            let (mine, theirs) = swap ? (inverseKey.name, key.name) : (key.name, inverseKey.name)
            let (chosen, alternative) = ("Z_\(e)" + mine.coreDataUppercased, "Z_\(e)" + theirs.coreDataUppercased)
            if layout.storeTables.contains(alternative.sqliteFolded) && !layout.storeTables.contains(chosen.sqliteFolded) {
                swap.toggle()
            }
        }
        if swap { (named, namedRelationship, other, otherRelationship) = (inverseKey, inverse, key, relationship) }
        let e = numbers[named.entity]!
        let d = numbers[other.entity]!
        let table = tableNames.claim("Z_\(e)" + named.name.coreDataUppercased)
        let ownerColumn = joinRegistries[named.entity, default: CoreDataNameRegistry()]
            .claim("Z_\(e)" + other.name.coreDataUppercased)
        let destinationColumn = joinRegistries[other.entity, default: CoreDataNameRegistry()]
            .claim("Z_\(d)" + named.name.coreDataUppercased)
        // Positions: of each owner within its destination's ordered set (the inverse is ordered), of
        // each destination within its owner's ordered set (this side is ordered).
        let ownerPosition =
            otherRelationship.isOrdered
            ? joinRegistries[named.entity, default: CoreDataNameRegistry()].claim("Z_FOK_\(e)" + other.name.coreDataUppercased)
            : nil
        let destinationPosition =
            namedRelationship.isOrdered
            ? joinRegistries[other.entity, default: CoreDataNameRegistry()].claim("Z_FOK_\(d)" + named.name.coreDataUppercased)
            : nil
        addJoinTable(
            JoinTable(
                name: table, relationship: named, inverse: other, ownerColumn: ownerColumn,
                destinationColumn: destinationColumn, destinationPosition: destinationPosition,
                ownerPosition: ownerPosition))
    }

    /// A to-many that is its own inverse: Core Data names the second column `REFLEXIVE` (and its
    /// position `FOK_REFLEXIVE`). Not seen in a real store; from the framework's behaviour.
    private mutating func buildReflexiveJoinTable(_ key: RelationshipKey, _ relationship: Relationship) {
        let e = numbers[key.entity]!
        let table = tableNames.claim("Z_\(e)" + key.name.coreDataUppercased)
        let ownerColumn = joinRegistries[key.entity, default: CoreDataNameRegistry()]
            .claim("Z_\(e)" + key.name.coreDataUppercased)
        let ownerPosition =
            relationship.isOrdered
            ? joinRegistries[key.entity, default: CoreDataNameRegistry()].claim("Z_FOK_\(e)" + key.name.coreDataUppercased)
            : nil
        addJoinTable(
            JoinTable(
                name: table, relationship: key, inverse: nil, ownerColumn: ownerColumn, destinationColumn: "REFLEXIVE",
                destinationPosition: relationship.isOrdered ? "FOK_REFLEXIVE" : nil, ownerPosition: ownerPosition))
    }

    /// A to-many without an inverse (Core Data warns about these): a join table named after it, with an
    /// owner column named after the owning entity. Not seen in a real store.
    private mutating func buildJoinTable(withoutInverse key: RelationshipKey, _ relationship: Relationship) {
        let e = numbers[key.entity]!
        let d = numbers[relationship.destination] ?? 0
        let table = tableNames.claim("Z_\(e)" + key.name.coreDataUppercased)
        let ownerColumn = joinRegistries[key.entity, default: CoreDataNameRegistry()]
            .claim("Z_\(e)" + key.entity.coreDataUppercased)
        let destinationColumn = joinRegistries[relationship.destination, default: CoreDataNameRegistry()]
            .claim("Z_\(d)" + key.name.coreDataUppercased)
        let destinationPosition =
            relationship.isOrdered
            ? joinRegistries[relationship.destination, default: CoreDataNameRegistry()].claim("Z_FOK_\(d)" + key.name.coreDataUppercased)
            : nil
        addJoinTable(
            JoinTable(
                name: table, relationship: key, inverse: nil, ownerColumn: ownerColumn,
                destinationColumn: destinationColumn, destinationPosition: destinationPosition, ownerPosition: nil))
    }

    private mutating func addJoinTable(_ join: JoinTable) {
        var columns = [
            ColumnDefinition(name: join.ownerColumn, declaredType: "INTEGER"),
            ColumnDefinition(name: join.destinationColumn, declaredType: "INTEGER"),
        ]
        for position in [join.ownerPosition, join.destinationPosition].compactMap({ $0 }) {
            columns.append(ColumnDefinition(name: position, declaredType: "INTEGER"))
        }
        tables[join.name] = TableDefinition(
            name: join.name, columns: columns, primaryKey: [join.ownerColumn, join.destinationColumn])
        tableOrder.append(join.name)
        joinTables[join.name] = join
        relationships[join.relationship] = .joinTable(
            name: join.name, ownerColumn: join.ownerColumn, destinationColumn: join.destinationColumn,
            position: join.destinationPosition)
        if let inverse = join.inverse {
            relationships[inverse] = .joinTable(
                name: join.name, ownerColumn: join.destinationColumn, destinationColumn: join.ownerColumn,
                position: join.ownerPosition)
        }
        if layout.indexesJoinTables {
            addIndex(
                IndexDefinition(
                    name: "\(join.name)_\(join.destinationColumn)_INDEX", table: join.name,
                    columns: [join.destinationColumn, join.ownerColumn]))
        }
    }

    // MARK: Indexes

    private mutating func buildIndexes() {
        for table in tableOrder {
            guard let info = entityTables[table] else { continue }
            if hierarchy(below: info.root).count > 1 {
                addIndex(IndexDefinition(name: "\(table)_Z_ENT_INDEX", table: table, columns: ["Z_ENT"]))
            }
        }
        // Keys, in entity order.
        for name in order {
            let entity = model.entity(named: name)!
            for relationship in entity.relationships.sorted(by: { CoreDataOrder.precedes($0.name, $1.name) }) {
                guard case .foreignKey(let table, let column)? = relationships[RelationshipKey(entity: name, name: relationship.name)]
                else { continue }
                addIndex(IndexDefinition(name: "\(table)_\(column)_INDEX", table: table, columns: [column]))
            }
        }
        for name in order {
            let entity = model.entity(named: name)!
            let storage = entities[name]!
            let table = storage.table
            // Attributes marked indexed.
            for attribute in entity.attributes.sorted(by: { CoreDataOrder.precedes($0.name, $1.name) })
            where attribute.isIndexed && !attribute.isTransient {
                guard let column = storage.columns[attribute.name] else { continue }
                addIndex(
                    layout.usesFetchIndexes
                        ? IndexDefinition(name: "Z_\(name)_\(attribute.name)", table: table, columns: [column])
                        : IndexDefinition(name: "\(table)_\(column)_INDEX", table: table, columns: [column]))
            }
            // Fetch indexes, and the compound indexes of older models (read as fetch indexes).
            for index in entity.indexes {
                let elements = index.elements.compactMap { element in
                    storage.columns[element.property].map { IndexDefinition.Element(column: $0, descending: !element.ascending) }
                }
                guard elements.count == index.elements.count, !elements.isEmpty else { continue }
                let indexName =
                    layout.usesFetchIndexes
                    ? "Z_\(name)_\(index.name)" : "\(table)_" + elements.map(\.column).joined(separator: "_")
                addIndex(IndexDefinition(name: indexName, table: table, elements: elements))
            }
            // Uniqueness constraints: unique indexes, or UNIQUE table constraints in older stores.
            for constraint in entity.uniquenessConstraints {
                let columns = constraint.compactMap { storage.columns[$0] }
                guard columns.count == constraint.count, !columns.isEmpty else { continue }
                if layout.usesFetchIndexes {
                    addIndex(
                        IndexDefinition(
                            name: "Z_\(name)_UNIQUE_" + constraint.joined(separator: "_"), table: table, columns: columns,
                            isUnique: true))
                } else if !tables[table]!.uniqueConstraints.contains(columns) {
                    tables[table]!.uniqueConstraints.append(columns)
                }
            }
        }
    }

    /// Indexes are named by the rules above; a second index of the same name (an indexed attribute and a
    /// fetch index over it, say) is the same index to Core Data, so only the first is kept.
    private mutating func addIndex(_ index: IndexDefinition) {
        let key = index.name.sqliteFolded
        guard !indexNames.contains(key), !tableOrder.contains(where: { $0.sqliteFolded == key }) else { return }
        indexNames.insert(key)
        indexes.append(index)
    }
}

/// Core Data's unique names (`uniqueNameWithBase:`): the base when free, else the base with `1`, `2`, …
/// SQLite compares names without ASCII case, so the registry does too.
struct CoreDataNameRegistry {
    private var taken: Set<String>

    init(reserved: Set<String> = []) {
        taken = Set(reserved.map(\.sqliteFolded))
    }

    mutating func claim(_ base: String) -> String {
        var candidate = base
        var suffix = 0
        while taken.contains(candidate.sqliteFolded) {
            suffix += 1
            candidate = "\(base)\(suffix)"
        }
        taken.insert(candidate.sqliteFolded)
        return candidate
    }
}
