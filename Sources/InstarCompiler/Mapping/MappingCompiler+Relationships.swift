import InstarMapping
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// The relationship pass: links between destination rows, found by following the source rows' links
/// through the key map (`destinationInstancesForEntityMappingNamed:sourceInstances:`).
extension MappingCompiler {
    mutating func relationshipPass(_ entityMapping: EntityMapping) throws(MappingStepError) -> MappingPass {
        let name = prefix(entityMapping)
        let sourceEntity = entityMapping.sourceEntity!, destinationEntity = entityMapping.destinationEntity!
        let translator = SQLTranslator(entity: sourceEntity, resolver: resolver)
        var actions: [MappingAction] = []
        for property in entityMapping.relationshipMappings {
            let hookName = "\(name).\(property.name)"
            switch translator.translate(value: property.valueExpression, hookName: hookName) {
            case .none:
                continue
            case .needsHook(let hook, let reason):
                actions.append(require(hook, entityMapping, property: property.name, point: .relationship, reason: reason.description))
            case .sql:
                actions.append(
                    require(
                        hookName, entityMapping, property: property.name, point: .relationship,
                        reason: "the expression is not a lookup of destination instances"))
            case .relationshipFromMapping(let other, let keyPath):
                guard mapping.entityMapping(named: other) != nil else {
                    throw error(entityMapping, property.name, "it names the entity mapping '\(other)', which the mapping model does not have")
                }
                guard let links = links(from: sourceEntity, path: keyPath) else {
                    actions.append(
                        require(
                            hookName, entityMapping, property: property.name, point: .relationship,
                            reason: "the key path $source.\(keyPath.joined(separator: ".")) is not stored in version \(from.name)"))
                    continue
                }
                guard let statement = try link(property.name, of: destinationEntity, entityMapping, other, links) else { continue }
                actions.append(.statement(statement))
            }
        }
        return MappingPass(entityMapping: entityMapping.name, actions: actions)
    }

    /// `SELECT owner, target, position` pairs of source keys along `path` (empty: each row itself).
    func links(from entity: String, path: [String]) -> String? {
        guard let storage = source.entities[entity], let info = source.entityTables[storage.table] else { return nil }
        let aside = { (table: String) in MappingProgram.asideName(table).sqlQuoted }
        guard !path.isEmpty else {
            let key = info.primaryKey.sqlQuoted
            return "SELECT \(key) AS \"owner\", \(key) AS \"target\", NULL AS \"position\" FROM \(aside(storage.table))"
        }
        var current = entity
        var query: String?
        for key in path {
            // `countries.@distinctUnionOfSets.moods`: the union of the sets along the path, which is what
            // following the links step by step gives (duplicates collapse when the links are written).
            if Self.unionOperators.contains(key) { continue }
            guard let resolved = from.property(key, of: current), let relationship = resolved.property.relationship,
                let step = linkStep(RelationshipKey(entity: resolved.declaringEntity, name: key))
            else { return nil }
            query = query.map {
                "SELECT \"a\".\"owner\", \"b\".\"target\", \"b\".\"position\" FROM (\($0)) AS \"a\" JOIN (\(step)) AS \"b\" ON \"b\".\"owner\" = \"a\".\"target\""
            } ?? step
            current = relationship.destination
        }
        return query
    }

    /// Collection operators that flatten a path of to-many steps into one set of instances.
    static let unionOperators: Set<String> = [
        "@distinctUnionOfSets", "@unionOfSets", "@distinctUnionOfObjects", "@unionOfObjects", "@distinctUnionOfArrays",
        "@unionOfArrays",
    ]

    /// The links of one source relationship, however the source layout stores them.
    func linkStep(_ key: RelationshipKey) -> String? {
        let aside = { (table: String) in MappingProgram.asideName(table).sqlQuoted }
        func primaryKey(_ table: String) -> String? { source.entityTables[table]?.primaryKey.sqlQuoted }
        switch source.relationships[key] {
        case .foreignKey(let table, let column)?:
            guard let pk = primaryKey(table) else { return nil }
            return "SELECT \(pk) AS \"owner\", \(column.sqlQuoted) AS \"target\", NULL AS \"position\" FROM \(aside(table)) WHERE \(column.sqlQuoted) IS NOT NULL"
        case .inverseForeignKey(let inverse, let position)?:
            guard case .foreignKey(let table, let column)? = source.relationships[inverse], let pk = primaryKey(table) else {
                return nil
            }
            return "SELECT \(column.sqlQuoted) AS \"owner\", \(pk) AS \"target\", \(position?.sqlQuoted ?? "NULL") AS \"position\" FROM \(aside(table)) WHERE \(column.sqlQuoted) IS NOT NULL"
        case .joinTable(let name, let owner, let target, let position)?:
            return "SELECT \(owner.sqlQuoted) AS \"owner\", \(target.sqlQuoted) AS \"target\", \(position?.sqlQuoted ?? "NULL") AS \"position\" FROM \(aside(name))"
        case nil:
            return nil
        }
    }

    /// The statement writing the mapped links into the destination relationship's storage.
    func link(
        _ relationshipName: String, of entity: String, _ entityMapping: EntityMapping, _ other: String, _ links: String
    ) throws(MappingStepError) -> MappingStatement? {
        guard let resolved = to.property(relationshipName, of: entity), let relationship = resolved.property.relationship else {
            throw error(entityMapping, relationshipName, "the destination entity '\(entity)' has no relationship of that name")
        }
        if relationship.isTransient { return nil }
        let keyMap = "\"temp\".\(MappingProgram.keyMap.sqlQuoted)"
        let mapped =
            "SELECT \"km1\".\"destination_pk\" AS \"owner\", \"km2\".\"destination_pk\" AS \"target\", "
            + "coalesce(\"l\".\"position\", row_number() OVER (PARTITION BY \"km1\".\"destination_pk\" ORDER BY \"km2\".\"destination_pk\")) AS \"position\" "
            + "FROM (\(links)) AS \"l\" JOIN \(keyMap) AS \"km1\" ON \"km1\".\"mapping\" = ? AND \"km1\".\"source_pk\" = \"l\".\"owner\" "
            + "JOIN \(keyMap) AS \"km2\" ON \"km2\".\"mapping\" = ? AND \"km2\".\"source_pk\" = \"l\".\"target\""
        let arguments: [SQLValue] = [.text(entityMapping.name), .text(other)]
        let purpose = "\(entityMapping.name): \(entity).\(relationshipName) through \(other)"
        let key = RelationshipKey(entity: resolved.declaringEntity, name: relationshipName)
        func primaryKey(_ table: String) -> String { (destination.entityTables[table]?.primaryKey ?? "rowid").sqlQuoted }
        switch destination.relationships[key] {
        case .foreignKey(let table, let column)?:
            return MappingStatement(
                "UPDATE \(table.sqlQuoted) SET \(column.sqlQuoted) = \"m\".\"target\" FROM (\(mapped)) AS \"m\" "
                    + "WHERE \(table.sqlQuoted).\(primaryKey(table)) = \"m\".\"owner\"",
                arguments: arguments, purpose: purpose)
        case .inverseForeignKey(let inverse, let position)?:
            guard case .foreignKey(let table, let column)? = destination.relationships[inverse] else { return nil }
            let positionSet = position.map { ", \($0.sqlQuoted) = \"m\".\"position\"" } ?? ""
            return MappingStatement(
                "UPDATE \(table.sqlQuoted) SET \(column.sqlQuoted) = \"m\".\"owner\"\(positionSet) FROM (\(mapped)) AS \"m\" "
                    + "WHERE \(table.sqlQuoted).\(primaryKey(table)) = \"m\".\"target\"",
                arguments: arguments, purpose: purpose)
        case .joinTable(let name, let owner, let target, let position)?:
            var columns = [owner, target]
            var values = ["\"m\".\"owner\"", "\"m\".\"target\""]
            if let position {
                columns.append(position)
                values.append("\"m\".\"position\"")
            }
            return MappingStatement(
                "INSERT INTO \(name.sqlQuoted) (\(SQLIdentifier.list(columns))) SELECT \(values.joined(separator: ", ")) "
                    + "FROM (\(mapped)) AS \"m\" WHERE NOT EXISTS (SELECT 1 FROM \(name.sqlQuoted) AS \"j\" "
                    + "WHERE \"j\".\(owner.sqlQuoted) = \"m\".\"owner\" AND \"j\".\(target.sqlQuoted) = \"m\".\"target\")",
                arguments: arguments, purpose: purpose)
        case nil:
            return nil
        }
    }

    /// Columns that hold the entity number of the row a key points to (Core Data's `Z<n>_<REL>`), set
    /// once every link is in place.
    func entityColumnUpdates() -> [MappingStatement] {
        var statements: [MappingStatement] = []
        for (table, info) in destination.entityTables.sorted(by: { $0.key < $1.key }) {
            for (column, treatment) in info.bookkeeping.sorted(by: { $0.key < $1.key }) {
                guard case .entityOf(let foreignKey) = treatment,
                    let relationship = destination.relationships.first(where: {
                        $0.value == .foreignKey(table: table, column: foreignKey)
                    }),
                    let target = to.property(relationship.key.name, of: relationship.key.entity)?.property.relationship?.destination,
                    let storage = destination.entities[target], let targetInfo = destination.entityTables[storage.table],
                    let discriminator = targetInfo.discriminator
                else { continue }
                statements.append(
                    MappingStatement(
                        "UPDATE \(table.sqlQuoted) SET \(column.sqlQuoted) = (SELECT \"t\".\(discriminator.sqlQuoted) FROM "
                            + "\(storage.table.sqlQuoted) AS \"t\" WHERE \"t\".\(targetInfo.primaryKey.sqlQuoted) = \(table.sqlQuoted).\(foreignKey.sqlQuoted)) "
                            + "WHERE \(foreignKey.sqlQuoted) IS NOT NULL",
                        purpose: "the entity of the rows \(table).\(foreignKey) points to"))
            }
        }
        return statements
    }
}
