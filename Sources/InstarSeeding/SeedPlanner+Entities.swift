import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

extension SeedPlanner {
    /// The columns of one concrete entity's rows and how each is filled: key, discriminator and
    /// bookkeeping constants, every stored attribute (inherited ones too), every to-one with the
    /// columns that travel with it (the destination's entity, the position in an ordered inverse).
    mutating func entityPlan(_ block: SeedBlock, table: String, _ db: Database) throws -> SeedEntityPlan? {
        let entity = block.entity
        guard let storage = map.entities[entity], let info = map.entityTables[table] else { return nil }
        var plan = SeedEntityPlan(block: block, table: table, columns: [info.primaryKey], fills: [.key], toOnes: [])
        if let discriminator = info.discriminator, let value = storage.discriminatorValue {
            plan.columns.append(discriminator)
            plan.fills.append(.constant(value))
        }
        for (column, kind) in info.bookkeeping.sorted(by: { $0.key < $1.key }) {
            if case .preserved(let value) = kind {
                plan.columns.append(column)
                plan.fills.append(.constant(value))
            }
        }
        let roles = try uniqueRoles(for: entity, table: table, db)
        // A composite is seeded element by element, each in its own column (``Attribute/storedParts``).
        for (key, attribute) in model.attributes(of: entity).flatMap(\.storedParts) where !attribute.isTransient {
            guard let column = storage.columns[key] else { continue }
            var seeder = AttributeSeeder(
                attribute: attribute, entity: entity, role: roles[key] ?? .plain, layout: layout,
                encoding: encoding, random: random)
            if let definition = map.schema.tables.first(where: { $0.name == table })?.columns.first(where: { $0.name == column }) {
                seeder.check = try SeedColumnCheck(column: definition)
            }
            plan.columns.append(column)
            plan.fills.append(.attribute(seeder))
        }
        addToOnes(to: &plan, entity: entity, info: info)
        return plan
    }

    /// Each to-one the entity has, declared or inherited, as a link column.
    private mutating func addToOnes(to plan: inout SeedEntityPlan, entity: String, info: EntityTable) {
        var positions: [RelationshipKey: String] = [:]
        for case .inverseForeignKey(let inverse, let position?) in map.relationships.values {
            positions[inverse] = position
        }
        var toOnes: [(RelationshipKey, Relationship)] = model.properties(of: entity).compactMap { resolved in
            guard let relationship = resolved.property.relationship, relationship.isToOne, !relationship.isTransient
            else { return nil }
            return (RelationshipKey(entity: resolved.declaringEntity, name: relationship.name), relationship)
        }
        toOnes += hiddenKeys(of: entity)
        for (key, relationship) in toOnes {
            guard case .foreignKey(_, let column)? = map.relationships[key],
                let seeder = toOneSeeder(key, relationship, column: column, entity: entity)
            else { continue }
            let index = plan.toOnes.count
            plan.toOnes.append(seeder)
            plan.columns.append(column)
            plan.fills.append(.link(index))
            for (other, kind) in info.bookkeeping.sorted(by: { $0.key < $1.key }) where kind == .entityOf(foreignKey: column) {
                plan.columns.append(other)
                plan.fills.append(.linkEntity(index))
            }
            if let position = positions[key] {
                plan.columns.append(position)
                plan.fills.append(.position(index))
            }
        }
    }

    /// The keys a layout keeps on `entity`'s rows for to-manys without an inverse (Core Data's
    /// `Z<e><REL>`), each as the to-one back to its owner that it amounts to. Seeded linked on every
    /// row: an app creates such rows to put them in the owner's relationship, and a later version
    /// that gives the relationship a required inverse needs every row linked.
    private func hiddenKeys(of entity: String) -> [(RelationshipKey, Relationship)] {
        map.relationships.compactMap { owner, storage -> (RelationshipKey, Relationship)? in
            guard case .inverseForeignKey(let hidden, _) = storage, model.property(hidden.name, of: hidden.entity) == nil,
                model.entity(entity, isKindOf: hidden.entity), case .foreignKey? = map.relationships[hidden]
            else { return nil }
            return (hidden, Relationship(name: hidden.name, destination: owner.entity, isOptional: false))
        }.sorted { $0.0.description < $1.0.description }
    }

    /// How `entity`'s rows fill the to-one `key`; nil (NULL throughout) when there is nothing to link
    /// to, which a required to-one refuses.
    private mutating func toOneSeeder(
        _ key: RelationshipKey, _ relationship: Relationship, column: String, entity: String
    ) -> ToOneSeeder? {
        let destination = pool(of: relationship.destination)
        let source = pool(of: key.entity)
        guard !destination.isEmpty, let offset = source.offset(of: entity) else {
            if !relationship.isOptional {
                refuse(entity, relationship.name, .requiredToOneWithoutRows(destination: relationship.destination))
            }
            return nil
        }
        var mode = ToOneSeeder.Mode.many
        var pairStream: UInt64 = 0
        if let inverseName = relationship.inverse, let inverse = model.property(inverseName, of: relationship.destination),
            let inverseRelationship = inverse.property.relationship, inverseRelationship.isToOne
        {
            let inverseKey = RelationshipKey(entity: inverse.declaringEntity, name: inverseName)
            let (a, b) = [key.description, inverseKey.description].sorted().pair
            pairStream = random.stream("pair", a, b)
            if inverseKey == key {
                mode = .selfInverse
            } else {
                mode = .oneToOne(
                    first: key.description == a, shift: source == destination ? 1 : 0,
                    bothOptional: relationship.isOptional && inverseRelationship.isOptional)
            }
        }
        return ToOneSeeder(
            column: column, destination: destination, sourceCount: source.count, sourceOffset: offset, mode: mode,
            isOptional: relationship.isOptional, samePool: source == destination,
            stream: random.stream(key.entity, key.name), pairStream: pairStream)
    }
}

extension Array {
    /// The first two elements of a two-element array.
    fileprivate var pair: (Element, Element) { (self[0], self[1]) }
}
