import InstarMapping
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// The instance pass of one entity mapping: which source rows, their destination keys, their values.
extension MappingCompiler {
    mutating func instancePass(_ entityMapping: EntityMapping) throws(MappingStepError) -> MappingPass {
        let name = prefix(entityMapping)
        var actions: [MappingAction] = []
        guard let sourceEntity = entityMapping.sourceEntity else {
            // An added entity: nothing comes from rows; a custom policy may still create some.
            if let policy = entityMapping.customPolicyClass {
                actions.append(require(name, entityMapping, property: nil, point: .policy, reason: "custom migration policy \(policy)"))
            }
            return MappingPass(entityMapping: entityMapping.name, actions: actions)
        }
        let destinationEntity = entityMapping.destinationEntity!
        guard let from = source.entities[sourceEntity], let fromTable = source.entityTables[from.table] else {
            throw error(entityMapping, nil, "the source entity '\(sourceEntity)' is not stored in version \(self.from.name)")
        }
        guard let into = destination.entities[destinationEntity], let intoTable = destination.entityTables[into.table] else {
            throw error(entityMapping, nil, "the destination entity '\(destinationEntity)' is not stored in version \(to.name)")
        }
        let translator = SQLTranslator(entity: sourceEntity, resolver: resolver)
        let sourceRows = MappingProgram.asideName(from.table).sqlQuoted + " AS \"src\""
        let sourceKey = "\"src\".\(fromTable.primaryKey.sqlQuoted)"

        // 1. The key map: every source row of exactly this entity (each entity has its own entity
        //    mapping, as Core Data's source fetch excludes sub-entities) that passes the filter.
        var conditions: [String] = []
        var arguments: [SQLValue] = [.text(entityMapping.name)]
        var joins: [String] = []
        if let discriminator = fromTable.discriminator, let value = from.discriminatorValue {
            conditions.append("\"src\".\(discriminator.sqlQuoted) = ?")
            arguments.append(value)
        }
        var filterHook: MappingAction?
        if let filter = entityMapping.filter {
            switch translator.translate(filter: filter, hookName: name + ".$filter") {
            case .sql(let fragment):
                conditions.append("(\(fragment.sql))")
                arguments += fragment.arguments.map(\.sqlValue)
                joins += fragment.joins
                functions.formUnion(fragment.functions)
            case .needsHook(let hook, let reason):
                filterHook = require(hook, entityMapping, property: "$filter", point: .filter, reason: reason.description)
            default:
                break
            }
        }
        let intoKey = intoTable.primaryKey.sqlQuoted
        let key =
            keepsKeys(destinationTable: into.table)
            ? sourceKey
            : "(SELECT coalesce(max(\(intoKey)), 0) FROM \(into.table.sqlQuoted)) + row_number() OVER (ORDER BY \(sourceKey))"
        let keyMap = "\"temp\".\(MappingProgram.keyMap.sqlQuoted)"
        actions.append(
            .statement(
                MappingStatement(
                    "INSERT INTO \(keyMap) (\"mapping\", \"source_pk\", \"destination_pk\") SELECT ?, \(sourceKey), \(key) FROM \(sourceRows)"
                        + joins.map { " " + $0 }.joined()
                        + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")),
                    arguments: arguments, purpose: "\(entityMapping.name): which \(sourceEntity) rows become \(destinationEntity) rows")))
        if let filterHook { actions.append(filterHook) }

        // 2. The rows, with their translated values.
        var columns: [String] = [intoTable.primaryKey]
        var values: [String] = ["\"km\".\"destination_pk\""]
        var valueArguments: [SQLValue] = []
        joins = []
        if let discriminator = intoTable.discriminator, let value = into.discriminatorValue {
            columns.append(discriminator)
            values.append("?")
            valueArguments.append(value)
        }
        let sourceColumns = Set(source.schema.table(named: from.table)?.columns.map(\.name) ?? [])
        for (column, treatment) in intoTable.bookkeeping.sorted(by: { $0.key < $1.key }) {
            guard case .preserved(let fallback) = treatment else { continue }
            columns.append(column)
            if sourceColumns.contains(column) {
                values.append("coalesce(\"src\".\(column.sqlQuoted), ?)")
            } else {
                values.append("?")
            }
            valueArguments.append(fallback)
        }
        var attributeHooks: [MappingAction] = []
        for attribute in to.attributes(of: destinationEntity) where !attribute.isTransient {
            guard let column = into.columns[attribute.name] else { continue }
            let property = entityMapping.attributeMappings.first { $0.name == attribute.name }
            let translation = translator.translate(value: property?.valueExpression, hookName: "\(name).\(attribute.name)")
            columns.append(column)
            switch translation {
            case .sql(let fragment):
                values.append(fragment.sql)
                valueArguments += fragment.arguments.map(\.sqlValue)
                joins += fragment.joins.filter { !joins.contains($0) }
                functions.formUnion(fragment.functions)
            case .needsHook(let hook, let reason):
                values.append("?")
                valueArguments.append(defaultValue(of: attribute))
                attributeHooks.append(
                    require(hook, entityMapping, property: attribute.name, point: .attribute, reason: reason.description))
            case .relationshipFromMapping, .none:
                values.append("?")
                valueArguments.append(defaultValue(of: attribute))
            }
        }
        valueArguments.append(.text(entityMapping.name))
        actions.append(
            .statement(
                MappingStatement(
                    "INSERT INTO \(into.table.sqlQuoted) (\(SQLIdentifier.list(columns))) SELECT \(values.joined(separator: ", ")) "
                        + "FROM \(keyMap) AS \"km\" JOIN \(sourceRows) ON \(sourceKey) = \"km\".\"source_pk\""
                        + joins.map { " " + $0 }.joined() + " WHERE \"km\".\"mapping\" = ?",
                    arguments: valueArguments, purpose: "\(entityMapping.name): the \(destinationEntity) rows and their values")))
        actions += attributeHooks
        if let policy = entityMapping.customPolicyClass {
            actions.append(require(name, entityMapping, property: nil, point: .policy, reason: "custom migration policy \(policy)"))
        }
        return MappingPass(entityMapping: entityMapping.name, actions: actions)
    }

    /// What a new instance holds for an attribute the mapping does not set: its default, as stored.
    func defaultValue(of attribute: Attribute) -> SQLValue {
        layout.storedDefault(of: attribute) ?? .null
    }
}
