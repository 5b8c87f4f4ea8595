@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// Builds the entities of an imported model from the classified tables (``SchemaImporter``), and
/// says for every schema object whether it became part of an entity or is kept as raw SQL.
struct ImportedEntityBuilder {
    let facts: [String: TableFacts]
    let roles: [String: SchemaImporter.Role]
    let indexes: [IndexFacts]
    /// Indexes expressed by the model (as fetch indexes, named unique constraints or a join table's).
    private(set) var expressedIndexes: Set<String> = []
    /// Details the model does not keep (constraint names), reported but blocking nothing.
    private(set) var detailNotes: [AdoptionNote] = []
    private var entities: [String: Entity] = [:]
    /// Property names taken per entity.
    private var taken: [String: Set<String>] = [:]

    init(facts: [String: TableFacts], roles: [String: SchemaImporter.Role], indexes: [IndexFacts]) {
        self.facts = facts
        self.roles = roles
        self.indexes = indexes
    }

    mutating func build(order: [String]) -> [Entity] {
        let entityTables = order.filter { roles[$0] == .entity }
        for table in entityTables { buildColumns(facts[table]!) }
        // Every to-one first, then the inverses: a table's own foreign keys keep the plain names, and an
        // inverse that meets one of them is the one that is moved aside.
        var toOnes: [String: [String]] = [:]
        for table in entityTables { toOnes[table] = claimToOneNames(facts[table]!) }
        for table in entityTables { buildRelationships(facts[table]!, names: toOnes[table]!) }
        for table in order where roles[table] == .link { buildLink(facts[table]!) }
        for table in entityTables { buildIndexes(table) }
        return entityTables.map { entities[$0]! }
    }

    private mutating func buildColumns(_ table: TableFacts) {
        var entity = Entity(name: table.name)
        let key = table.integerPrimaryKey
        entity.stored.primaryKey = key.map { $0.name == PlainSQLLayout.primaryKey ? nil : $0.name } ?? "rowid"
        entity.stored.autoincrement = key?.autoincrement ?? false
        entity.stored.primaryKeyConstraint = key?.primaryKeyName ?? table.definition.primaryKeyName
        entity.stored.compositeKey = table.definition.primaryKey
        let fkColumns = Set(table.foreignKeys.map { $0.from[0] })
        for column in table.definition.columns where !column.isPrimaryKey && !fkColumns.contains(column.name) {
            let type = ImportedColumns.attributeType(forDeclared: column.declaredType)
            var attribute = Attribute(name: column.name, type: type, isOptional: !column.notNull)
            if case .text(let text) = ImportedColumns.defaultText(column.defaultValue, for: type) {
                attribute.defaultValue = text
            }
            if column.declaredType.uppercased() != ImportedColumns.layoutType(of: type) {
                attribute.stored.type = column.declaredType
            }
            attribute.stored.sql = column.verbatimClauses
            entity.attributes.append(attribute)
        }
        entity.stored.tableSQL = table.definition.verbatimConstraints
        entity.stored.columnOrder = Self.columnOrder(of: table)
        taken[table.name] = Set(table.definition.columns.map(\.name))
        entities[table.name] = entity
        if table.namedConstraints {
            detailNotes.append(
                AdoptionNote(
                    kind: "table", name: table.name, reasons: ["constraint names (CONSTRAINT name …) are not kept"],
                    effect: .notKept))
        }
    }

    private mutating func claimToOneNames(_ table: TableFacts) -> [String] {
        table.foreignKeys.map { claim(InverseNames.stem(of: $0.from[0]), in: table.name) }
    }

    private mutating func buildRelationships(_ table: TableFacts, names: [String]) {
        for (fk, name) in zip(table.foreignKeys, names) {
            let column = table.definition.column(named: fk.from[0])!
            var relationship = Relationship(name: name, destination: fk.table, isOptional: !column.notNull)
            if column.name != "\(name)_id" { relationship.stored.column.name = column.name }
            if column.declaredType.uppercased() != "INTEGER" { relationship.stored.column.type = column.declaredType }
            relationship.stored.column.notNull = column.notNull
            relationship.stored.column.sql = column.verbatimClauses
            relationship.stored.column.constraint = column.references?.constraintName
            if fk.onDelete != "NO ACTION" {
                relationship.stored.column.onDelete = fk.onDelete
                relationship.deleteRule = fk.onDelete == "CASCADE" ? .cascade : fk.onDelete == "RESTRICT" ? .deny : .nullify
            }
            let shared = table.foreignKeys.filter { $0.table == fk.table }.count > 1
            let inverseName = claim(
                shared ? InverseNames.qualified(table.name, by: column.name) : InverseNames.plural(table.name), in: fk.table,
                alternative: InverseNames.qualified(table.name, by: column.name))
            relationship.inverse = inverseName
            entities[table.name]!.relationships.append(relationship)
            entities[fk.table]!.relationships.append(
                Relationship(name: inverseName, destination: table.name, inverse: name, isToMany: true))
        }
        let properties = propertyNames(of: table)
        entities[table.name]!.uniquenessConstraints = table.definition.uniqueConstraints.map { $0.map { properties[$0] ?? $0 } }
        for (columns, name) in table.definition.uniqueConstraintNames {
            entities[table.name]!.stored.uniqueConstraintNames[columns.map { properties[$0] ?? $0 }] = name
        }
    }

    private mutating func buildLink(_ table: TableFacts) {
        let key = table.definition.primaryKey
        let first = table.foreignKeys.first { $0.from[0] == key[0] }!
        let second = table.foreignKeys.first { $0.from[0] == key[1] }!
        let index = indexes.first { $0.table == table.name && $0.rawReasons.isEmpty && !$0.isUnique && $0.elements == [.init(column: key[1])] }
        if let index { expressedIndexes.insert(index.name) }
        let forward = claim(
            InverseNames.plural(InverseNames.stem(of: key[1])), in: first.table,
            alternative: InverseNames.qualified(InverseNames.stem(of: key[1]), in: table.name))
        let backward = claim(
            InverseNames.plural(InverseNames.stem(of: key[0])), in: second.table,
            alternative: InverseNames.qualified(InverseNames.stem(of: key[0]), in: table.name))
        var relationship = Relationship(name: forward, destination: second.table, inverse: backward, isToMany: true)
        let actions = [first.onDelete, second.onDelete]
        relationship.stored.joinTable = StoredNames.JoinTable(
            name: table.name, columns: key, index: index?.name, onDelete: actions.allSatisfy { $0 == "NO ACTION" } ? [] : actions)
        let columnOrder = table.definition.columns.map(\.name)
        if columnOrder != key { relationship.stored.joinTable?.columnOrder = columnOrder }
        relationship.stored.joinTable?.primaryKeyConstraint = table.definition.primaryKeyName
        entities[first.table]!.relationships.append(relationship)
        entities[second.table]!.relationships.append(
            Relationship(name: backward, destination: first.table, inverse: forward, isToMany: true))
    }

    /// The table's column order when the layout's (key, attributes, foreign keys in column order)
    /// would differ from it; empty when they agree.
    static func columnOrder(of table: TableFacts) -> [String] {
        let columns = table.definition.columns
        let foreign = Set(table.foreignKeys.map { $0.from[0] })
        let layoutOrder =
            columns.filter(\.isPrimaryKey) + columns.filter { !$0.isPrimaryKey && !foreign.contains($0.name) }
            + columns.filter { !$0.isPrimaryKey && foreign.contains($0.name) }
        return layoutOrder.map(\.name) == columns.map(\.name) ? [] : columns.map(\.name)
    }

    private mutating func buildIndexes(_ table: String) {
        let properties = propertyNames(of: facts[table]!)
        for index in indexes where index.table == table && index.rawReasons.isEmpty {
            let names = index.elements.compactMap { properties[$0.column] }
            guard names.count == index.elements.count else { continue }
            if index.isUnique {
                guard !entities[table]!.uniquenessConstraints.contains(names) else { continue }
                entities[table]!.uniquenessConstraints.append(names)
                entities[table]!.stored.uniqueIndexNames[names] = index.name
            } else {
                var fetchIndex = FetchIndex(
                    name: index.name,
                    elements: zip(names, index.elements).map { FetchIndex.Element(property: $0, ascending: !$1.descending) })
                fetchIndex.storedName = index.name
                entities[table]!.indexes.append(fetchIndex)
            }
            expressedIndexes.insert(index.name)
        }
    }

    /// How an object appears in the model: nil when entities express it, else a note (and raw SQL).
    func note(for object: RawSQL) -> AdoptionNote? {
        switch object.kind {
        case .table:
            guard case .raw(let reasons)? = roles[object.name] else { return nil }
            return AdoptionNote(
                kind: "table", name: object.name, reasons: reasons,
                effect: .blocks("steps to a version that writes it differently (the dry run names them), and steps that drop or rename a table it refers to"))
        case .index:
            if expressedIndexes.contains(object.name) { return nil }
            if case .raw? = roles[object.table] {
                return AdoptionNote(kind: "index", name: object.name, reasons: ["on the raw table \(object.table)"], effect: .carried)
            }
            let reasons = indexes.first { $0.name == object.name }?.rawReasons ?? []
            return AdoptionNote(
                kind: "index", name: object.name, reasons: reasons.isEmpty ? ["not expressible on this table"] : reasons,
                effect: .carried)
        case .view, .trigger:
            return AdoptionNote(
                kind: object.kind.rawValue, name: object.name, reasons: ["a model has no \(object.kind.rawValue)s"],
                effect: .carried)
        }
    }

    /// Column → property name, for attributes and to-one relationships.
    private func propertyNames(of table: TableFacts) -> [String: String] {
        var names: [String: String] = [:]
        for attribute in entities[table.name]?.attributes ?? [] { names[attribute.name] = attribute.name }
        for relationship in entities[table.name]?.relationships ?? [] where relationship.isToOne {
            names[relationship.stored.column.name ?? "\(relationship.name)_id"] = relationship.name
        }
        return names
    }

    private mutating func claim(_ base: String, in entity: String, alternative: String? = nil) -> String {
        var names = taken[entity] ?? []
        var candidate = base
        if names.contains(candidate), let alternative { candidate = alternative }
        var suffix = 1
        let start = candidate
        while names.contains(candidate) {
            suffix += 1
            candidate = "\(start)_\(suffix)"
        }
        names.insert(candidate)
        taken[entity] = names
        return candidate
    }
}
