@_spi(Layouts) import InstarModel

/// Builds the ``StorageMap`` of the Core Data layout for one model version (FORMAT.md §1.3–§1.11).
struct CoreDataStorageBuilder {
    let model: Model
    let layout: CoreDataLayout

    /// Entity → `Z_ENT`.
    private var numbers: [String: Int] = [:]
    private var order: [String] = []
    private var tables: [String: SchemaTable] = [:]
    private var tableOrder: [String] = []
    /// Column names per root table: the hierarchy's one registry, which also names the join columns
    /// that hold its rows' keys (CareKit's `Z_13TAGS` … `Z_13TAGS4` are five claims in the tag's).
    private var registries: [String: CoreDataNameRegistry] = [:]
    private var tableNames = CoreDataNameRegistry()
    /// Each entity's property keys in the order Core Data walks them (``CoreDataKeyOrder``).
    private var keyOrders: [String: [String]] = [:]
    /// Columns of each entity table before ordering: (group, entity number, rank within entity, the
    /// property it stores, column).
    private var pending: [String: [(group: Int, entity: Int, rank: Int, property: String, column: SchemaColumn)]] = [:]
    private var entities: [String: EntityStorage] = [:]
    private var entityTables: [String: EntityTable] = [:]
    private var relationships: [RelationshipKey: RelationshipStorage] = [:]
    private var joinTables: [String: JoinTable] = [:]
    private var indexes: [SchemaIndex] = []
    private var indexNames = Set<String>()
    /// Indexes of the keys of to-many relationships without an inverse (``buildHiddenKey(withoutInverse:_:)``).
    private var hiddenKeys: [SchemaIndex] = []

    /// Whether join tables within one entity take the names the store has (``CoreDataLayout/followsStoreNames(of:)``).
    private let followsStoreNames: Bool

    init(model: Model, layout: CoreDataLayout) {
        self.model = model
        self.layout = layout
        followsStoreNames = layout.followsStoreNames(of: model)
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
        // Second pass, as Core Data's: every entity (sub-entities and abstract ones too) in name order,
        // its relationships in its key order; the first side of a pair met names the join table.
        var paired = Set<RelationshipKey>()
        for entity in model.entities.map(\.name).sorted(by: Self.entityPrecedes) {
            buildToManyStorage(of: entity, paired: &paired)
        }
        // Entity tables take their columns in Core Data's order: INTEGER (attributes, then keys with
        // their entity columns, then ordering keys), FLOAT/TIMESTAMP, DECIMAL, VARCHAR, BLOB; within a
        // group by entity number, then by property name. Only cosmetic: columns are addressed by name.
        for table in tableOrder where entityTables[table] != nil {
            let sorted = pending[table, default: []].enumerated().sorted { a, b in
                let (x, y) = (a.element, b.element)
                if (x.group, x.entity, x.rank) != (y.group, y.entity, y.rank) {
                    return (x.group, x.entity, x.rank) < (y.group, y.entity, y.rank)
                }
                if x.property != y.property { return CoreDataOrder.precedes(x.property, y.property) }
                return a.offset < b.offset
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
        tables[table] = SchemaTable(
            name: table,
            columns: [
                SchemaColumn(name: "Z_PK", declaredType: "INTEGER", isPrimaryKey: true),
                SchemaColumn(name: "Z_ENT", declaredType: "INTEGER"),
                SchemaColumn(name: "Z_OPT", declaredType: "INTEGER"),
            ])
        tableOrder.append(table)
        var bookkeeping: [String: BookkeepingColumn] = ["Z_OPT": .preserved(.integer(1))]
        for name in members {
            let entity = model.entity(named: name)!
            let number = numbers[name]!
            var map = entity.parent.flatMap { entities[$0]?.columns } ?? [:]
            // The keys Core Data hashes for this entity: the parent's (in their table order) or the
            // bookkeeping ones, then each attribute, each key column and each relationship.
            var keys = entity.parent.flatMap { keyOrders[$0] } ?? ["_ent", "_pk", "_opt"]
            // Composite elements share the entity's column names, and there SwiftData claims in property
            // name order (MetaCocktails: `Cocktail.author.id` → ZID before `id` → ZID1, but
            // `IngredientBase.id` → ZID before `prep.id` → ZID1, read off which column every row fills).
            // Without composites the order cannot change a name within one entity, so the walk stays.
            // The hashed key order keeps the walk either way.
            let walk = inWalkOrder(entity.attributes, of: name, name: \.name, names: { model.attributes(of: $0).map(\.name) })
            let attributes =
                entity.attributes.contains { $0.type == .composite }
                ? entity.attributes.sorted { CoreDataOrder.precedes($0.name, $1.name) } : walk
            var stored = Set<String>()
            for attribute in attributes {
                guard !attribute.isTransient else { continue }
                // A composite's elements take columns of their own, named after the element alone and
                // claimed in the hierarchy's registry like any other (MetaCocktails: `author.id` → `ZID`,
                // `Cocktail.id` → `ZID1`); they sort with the composite's name, in element order.
                var claimed = false
                for (key, part) in attribute.storedParts where !part.isTransient {
                    guard let type = try layout.columnType(of: part, entity: name) else { continue }
                    let column = registry.claim("Z" + part.name.coreDataUppercased)
                    map[key] = column
                    claimed = true
                    pending[table, default: []].append(
                        (Self.columnGroup(type, part.type), number, 0, attribute.name,
                         SchemaColumn(name: column, declaredType: type)))
                }
                if claimed { stored.insert(attribute.name) }
            }
            keys += walk.map(\.name).filter(stored.contains)
            for relationship in inWalkOrder(entity.relationships, of: name, name: \.name, names: { model.relationships(of: $0).map(\.name) })
            where !relationship.isTransient {
                if relationship.isToOne {
                    let column = registry.claim("Z" + relationship.name.coreDataUppercased)
                    map[relationship.name] = column
                    keys.append("_" + column)
                    pending[table, default: []].append(
                        (0, number, 1, relationship.name, SchemaColumn(name: column, declaredType: "INTEGER")))
                    relationships[RelationshipKey(entity: name, name: relationship.name)] = .foreignKey(table: table, column: column)
                    // The destination row's entity, when the destination has sub-entities.
                    if !model.subentities(of: relationship.destination).isEmpty, let n = numbers[relationship.destination] {
                        let entityColumn = registry.claim("Z\(n)_" + relationship.name.coreDataUppercased)
                        keys.append("_" + entityColumn)
                        pending[table, default: []].append(
                            (0, number, 1, relationship.name, SchemaColumn(name: entityColumn, declaredType: "INTEGER")))
                        bookkeeping[entityColumn] = .entityOf(foreignKey: column)
                    }
                }
                keys.append(relationship.name)
            }
            keyOrders[name] = CoreDataKeyOrder.leopard(keys)
            entities[name] = EntityStorage(
                table: table, discriminatorValue: .integer(Int64(number)), columns: map, kinds: hierarchy(below: name))
        }
        registries[table] = registry
        entityTables[table] = EntityTable(root: root, primaryKey: "Z_PK", discriminator: "Z_ENT", bookkeeping: bookkeeping)
    }

    /// The `CREATE TABLE` group of a column: INTEGER, FLOAT/TIMESTAMP, DECIMAL, VARCHAR, then BLOBs —
    /// UUID first, Transformable next, Binary last (Wire's ZCONVERSATION shows Transformable before
    /// Binary; MetaCocktails' ZCOCKTAIL and ChefTime's ZSDFOLDER show UUIDs before Binary; PegaseUIData's
    /// ZENTITYRUBRIC (`ZUUID`, `ZCOLOR`) and ChefTime's ZSDSTEP (`ZID`, `ZIMAGEDATA`) show UUID before
    /// Transformable, which no earlier store ordered).
    static func columnGroup(_ declaredType: String, _ type: AttributeType) -> Int {
        switch declaredType {
        case "INTEGER": 0
        case "FLOAT", "TIMESTAMP": 1
        case "DECIMAL": 2
        case "VARCHAR": 3
        default: type == .uuid ? 4 : type == .transformable ? 5 : 6
        }
    }

    // MARK: To-many relationships

    /// An entity's own properties in the order Core Data claims their columns: the first table's slot
    /// order of the names of all of its properties of that kind, inherited and transient ones included.
    private func inWalkOrder<P>(_ own: [P], of entity: String, name: KeyPath<P, String>, names: (String) -> [String]) -> [P] {
        let order = CoreDataKeyOrder.leopard(names(entity).sorted(by: CoreDataOrder.precedes))
        let byName = Dictionary(own.map { ($0[keyPath: name], $0) }, uniquingKeysWith: { first, _ in first })
        return order.compactMap { byName[$0] }
    }

    /// The to-many relationships `entityName` has (its own and inherited), in the second table's slot
    /// order of its keys: each pair is laid out by the first of its sides met in this walk.
    private mutating func buildToManyStorage(of entityName: String, paired: inout Set<RelationshipKey>) {
        for name in CoreDataKeyOrder.tiger(keyOrders[entityName] ?? []) {
            guard let resolved = model.property(name, of: entityName), let relationship = resolved.property.relationship,
                !relationship.isTransient, relationship.isToMany
            else { continue }
            let key = RelationshipKey(entity: resolved.declaringEntity, name: name)
            guard paired.insert(key).inserted, relationships[key] == nil else { continue }
            let inverse = relationship.inverse.flatMap { model.property($0, of: relationship.destination) }
            let inverseRelationship = inverse?.property.relationship.flatMap { $0.isTransient ? nil : $0 }
            let inverseKey = inverse.map { RelationshipKey(entity: $0.declaringEntity, name: $0.name) }
            if let inverseRelationship, let inverseKey, inverseRelationship.isToOne {
                // One-to-many: the links are the inverse's keys; an ordered one adds Z_FOK_<INVERSE>.
                var position: String?
                if relationship.isOrdered, case .foreignKey(let table, _)? = relationships[inverseKey] {
                    let column = registries[table]!.claim("Z_FOK_" + inverseKey.name.coreDataUppercased)
                    let number = numbers[inverseKey.entity] ?? 0
                    pending[table, default: []].append(
                        (0, number, 2, inverseKey.name, SchemaColumn(name: column, declaredType: "INTEGER")))
                    position = column
                }
                relationships[key] = .inverseForeignKey(inverse: inverseKey, position: position)
            } else if let inverseRelationship, let inverseKey {
                paired.insert(inverseKey)
                buildJoinTable(key, relationship, inverseKey: inverseKey, inverse: inverseRelationship)
            } else if !relationship.isOrdered, entities[relationship.destination] != nil {
                buildHiddenKey(withoutInverse: key, relationship)
            } else {
                buildJoinTable(withoutInverse: key, relationship)
            }
        }
    }

    /// A many-to-many pair, laid out from `key`, the side Core Data's walk meets first: the table is
    /// `Z_<e><REL>`; column `Z_<d><REL>` holds the other side's keys and `Z_<e><INVERSE>` this side's,
    /// each named after the relationship that leads to those rows. The columns are claimed in the
    /// registries of the hierarchies whose keys they hold, in Core Data's order: the other side's
    /// column, its position (this side ordered), this side's column, its position (the inverse ordered).
    private mutating func buildJoinTable(
        _ key: RelationshipKey, _ relationship: Relationship, inverseKey: RelationshipKey, inverse: Relationship
    ) {
        if key == inverseKey {
            buildReflexiveJoinTable(key, relationship)
            return
        }
        var (named, namedRelationship, other, otherRelationship) = (key, relationship, inverseKey, inverse)
        if key.entity == inverseKey.entity, let e = numbers[key.entity], followsStoreNames {
            // A store written by a Core Data release whose walk met the other side first keeps its name:
            // the pair is the same either way, so the store's name is honoured rather than called drift
            // (at the store's own version only: a migration writes the name of its target).
            let (chosen, alternative) = ("Z_\(e)" + key.name.coreDataUppercased, "Z_\(e)" + inverseKey.name.coreDataUppercased)
            if layout.storeTables.contains(alternative.sqliteFolded) && !layout.storeTables.contains(chosen.sqliteFolded) {
                (named, namedRelationship, other, otherRelationship) = (inverseKey, inverse, key, relationship)
            }
        }
        let e = numbers[named.entity]!
        let d = numbers[other.entity]!
        let namedTable = entities[named.entity]!.table
        let otherTable = entities[other.entity]!.table
        let table = tableNames.claim("Z_\(e)" + named.name.coreDataUppercased)
        let destinationColumn = registries[otherTable]!.claim("Z_\(d)" + named.name.coreDataUppercased)
        let destinationPosition =
            namedRelationship.isOrdered ? registries[otherTable]!.claim("Z_FOK_\(d)" + named.name.coreDataUppercased) : nil
        let ownerColumn = registries[namedTable]!.claim("Z_\(e)" + other.name.coreDataUppercased)
        let ownerPosition =
            otherRelationship.isOrdered ? registries[namedTable]!.claim("Z_FOK_\(e)" + other.name.coreDataUppercased) : nil
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
        let registry = entities[key.entity]!.table
        let ownerColumn = registries[registry]!.claim("Z_\(e)" + key.name.coreDataUppercased)
        let ownerPosition =
            relationship.isOrdered ? registries[registry]!.claim("Z_FOK_\(e)" + key.name.coreDataUppercased) : nil
        addJoinTable(
            JoinTable(
                name: table, relationship: key, inverse: nil, ownerColumn: ownerColumn, destinationColumn: "REFLEXIVE",
                destinationPosition: relationship.isOrdered ? "FOK_REFLEXIVE" : nil, ownerPosition: ownerPosition))
    }

    /// An unordered to-many without an inverse, as the SwiftData stores show it: a key column
    /// `Z<e><REL>` on the destination's table (with `<T>_<COL>_INDEX`) holding the owner's `Z_PK`, as
    /// if the destination had an unnamed to-one back (MetaCocktails `ZINGREDIENT.Z1SPEC` for
    /// `Cocktail.spec`, SwiftDeveloperBlog `ZPATHPOINT.Z1POINTS` for `Path.points`). The key is
    /// recorded under ``hiddenKeyName(of:)`` so that migrations carry it like any foreign key.
    private mutating func buildHiddenKey(withoutInverse key: RelationshipKey, _ relationship: Relationship) {
        let e = numbers[key.entity]!
        let destinationTable = entities[relationship.destination]!.table
        let column = registries[destinationTable]!.claim("Z\(e)" + key.name.coreDataUppercased)
        let hidden = RelationshipKey(entity: relationship.destination, name: Self.hiddenKeyName(of: key))
        relationships[hidden] = .foreignKey(table: destinationTable, column: column)
        relationships[key] = .inverseForeignKey(inverse: hidden, position: nil)
        pending[destinationTable, default: []].append(
            (0, numbers[relationship.destination] ?? 0, 2, hidden.name, SchemaColumn(name: column, declaredType: "INTEGER")))
        hiddenKeys.append(SchemaIndex(name: "\(destinationTable)_\(column)_INDEX", table: destinationTable, columns: [column]))
    }

    /// The name a hidden key is recorded under: no property can have it (it is not an identifier).
    static func hiddenKeyName(of owner: RelationshipKey) -> String { "(\(owner.entity).\(owner.name))" }

    /// A to-many without an inverse (Core Data warns about these): a join table named after it, with an
    /// owner column named after the owning entity. Not seen in a real store; kept for ordered ones,
    /// whose position column no store shows.
    private mutating func buildJoinTable(withoutInverse key: RelationshipKey, _ relationship: Relationship) {
        let e = numbers[key.entity]!
        let d = numbers[relationship.destination] ?? 0
        let table = tableNames.claim("Z_\(e)" + key.name.coreDataUppercased)
        let ownerTable = entities[key.entity]!.table
        let destinationTable = entities[relationship.destination]?.table ?? ownerTable
        let ownerColumn = registries[ownerTable]!.claim("Z_\(e)" + key.entity.coreDataUppercased)
        let destinationColumn = registries[destinationTable]!.claim("Z_\(d)" + key.name.coreDataUppercased)
        let destinationPosition =
            relationship.isOrdered ? registries[destinationTable]!.claim("Z_FOK_\(d)" + key.name.coreDataUppercased) : nil
        addJoinTable(
            JoinTable(
                name: table, relationship: key, inverse: nil, ownerColumn: ownerColumn,
                destinationColumn: destinationColumn, destinationPosition: destinationPosition, ownerPosition: nil))
    }

    private mutating func addJoinTable(_ join: JoinTable) {
        var columns = [
            SchemaColumn(name: join.ownerColumn, declaredType: "INTEGER"),
            SchemaColumn(name: join.destinationColumn, declaredType: "INTEGER"),
        ]
        for position in [join.ownerPosition, join.destinationPosition].compactMap({ $0 }) {
            columns.append(SchemaColumn(name: position, declaredType: "INTEGER"))
        }
        tables[join.name] = SchemaTable(
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
                SchemaIndex(
                    name: "\(join.name)_\(join.destinationColumn)_INDEX", table: join.name,
                    columns: [join.destinationColumn, join.ownerColumn]))
        }
    }

    // MARK: Indexes

    private mutating func buildIndexes() {
        for table in tableOrder {
            guard let info = entityTables[table] else { continue }
            if hierarchy(below: info.root).count > 1 {
                addIndex(SchemaIndex(name: "\(table)_Z_ENT_INDEX", table: table, columns: ["Z_ENT"]))
            }
        }
        // Keys, in entity order.
        for name in order {
            let entity = model.entity(named: name)!
            for relationship in entity.relationships.sorted(by: { CoreDataOrder.precedes($0.name, $1.name) }) {
                guard case .foreignKey(let table, let column)? = relationships[RelationshipKey(entity: name, name: relationship.name)]
                else { continue }
                addIndex(SchemaIndex(name: "\(table)_\(column)_INDEX", table: table, columns: [column]))
            }
        }
        for index in hiddenKeys { addIndex(index) }
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
                        ? SchemaIndex(name: "Z_\(name)_\(attribute.name)", table: table, columns: [column])
                        : SchemaIndex(name: "\(table)_\(column)_INDEX", table: table, columns: [column]))
            }
            // Fetch indexes, and the compound indexes of older models (read as fetch indexes).
            for index in entity.indexes {
                let elements = index.elements.compactMap { element in
                    storage.columns[element.property].map { SchemaIndex.Element(column: $0, descending: !element.ascending) }
                }
                guard elements.count == index.elements.count, !elements.isEmpty else { continue }
                let indexName =
                    layout.usesFetchIndexes
                    ? "Z_\(name)_\(index.name)" : "\(table)_" + elements.map(\.column).joined(separator: "_")
                addIndex(SchemaIndex(name: indexName, table: table, elements: elements))
            }
            // Uniqueness constraints: unique indexes, or UNIQUE table constraints in older stores.
            for constraint in entity.uniquenessConstraints {
                let columns = constraint.compactMap { storage.columns[$0] }
                guard columns.count == constraint.count, !columns.isEmpty else { continue }
                if layout.usesFetchIndexes {
                    addIndex(
                        SchemaIndex(
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
    private mutating func addIndex(_ index: SchemaIndex) {
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
