@_spi(Layouts) import InstarSQL

/// Checks a set of entities for consistency and resolves inheritance. Used only by ``Model/init``.
struct ModelValidator {
    struct Result {
        var problems: [ModelProblem]
        var entityIndex: [String: Int]
        var resolvedProperties: [String: [ResolvedProperty]]
    }

    let entities: [Entity]
    let locations: [String: SourceLocation]
    let source: String?
    let validatesDefaultValues: Bool
    private var problems: [ModelProblem] = []
    private var index: [String: Int] = [:]

    init(entities: [Entity], locations: [String: SourceLocation], source: String?, validatesDefaultValues: Bool) {
        self.validatesDefaultValues = validatesDefaultValues
        self.entities = entities
        self.locations = locations
        self.source = source
    }

    mutating func run() -> Result {
        checkNames()
        indexEntities()
        checkParents()
        let resolved = resolveProperties()
        for entity in entities {
            checkAttributes(of: entity)
            checkRelationships(of: entity, resolved: resolved)
            checkConstraintsAndIndexes(of: entity, resolved: resolved)
        }
        return Result(problems: problems, entityIndex: index, resolvedProperties: resolved)
    }

    private func where_(_ entity: String, _ property: String? = nil) -> SourceLocation? {
        if let property, let loc = locations["\(entity).\(property)"] { return loc }
        return locations[entity] ?? source.map { SourceLocation(file: $0) }
    }

    private mutating func report(
        _ kind: ModelProblem.Kind, _ message: String, entity: String, property: String? = nil, hint: String? = nil,
        key: String? = nil
    ) {
        var problem = ModelProblem(
            kind, message, location: where_(entity, property), entity: entity, property: property, hint: hint)
        problem.key = key
        problems.append(problem)
    }

    /// ``NameRule`` for every name that reaches SQL or a file: the entity's, its parent's, its
    /// properties' (and what relationships name), its indexes', and the stored table and column names.
    private mutating func checkNames() {
        func check(_ what: String, _ name: String?, entity: String, property: String? = nil) {
            guard let name, let message = NameRule.violation(what, name) else { return }
            report(.invalidName, message, entity: entity, property: property, hint: NameRule.hint)
        }
        for entity in entities {
            check("entity name", entity.name, entity: entity.name)
            check("parent entity name", entity.parent, entity: entity.name)
            check("table name", entity.stored.table, entity: entity.name)
            check("primary key column", entity.stored.primaryKey, entity: entity.name)
            for index in entity.indexes { check("index name", index.name, entity: entity.name) }
            for attribute in entity.attributes {
                check("attribute name", attribute.name, entity: entity.name, property: attribute.name)
                check("column name", attribute.stored.name, entity: entity.name, property: attribute.name)
            }
            for relationship in entity.relationships {
                let name = relationship.name
                check("relationship name", name, entity: entity.name, property: name)
                check("destination entity name", relationship.destination, entity: entity.name, property: name)
                check("inverse name", relationship.inverse, entity: entity.name, property: name)
                check("column name", relationship.stored.column.name, entity: entity.name, property: name)
                check("join table name", relationship.stored.joinTable?.name, entity: entity.name, property: name)
                for column in relationship.stored.joinTable?.columns ?? [] {
                    check("join table column", column, entity: entity.name, property: name)
                }
            }
        }
    }

    private mutating func indexEntities() {
        for (position, entity) in entities.enumerated() {
            if entity.name.isEmpty {
                report(.invalidName, "an entity has an empty name", entity: "")
                continue
            }
            if index[entity.name] != nil {
                report(
                    .duplicateEntity, "entity '\(entity.name)' is declared more than once", entity: entity.name,
                    hint: "rename one of them, or merge their properties")
                continue
            }
            index[entity.name] = position
        }
    }

    private mutating func checkParents() {
        for entity in entities {
            guard let parent = entity.parent else { continue }
            if index[parent] == nil {
                report(
                    .unknownParent, "parent entity '\(parent)' does not exist", entity: entity.name,
                    hint: Spelling.suggestion(for: parent, among: Array(index.keys)))
                continue
            }
            // Walk up; if we come back to the start, there is a cycle.
            var seen: Set<String> = [entity.name]
            var current: String? = parent
            while let name = current, let position = index[name] {
                if seen.contains(name) {
                    report(
                        .inheritanceCycle,
                        "inheritance cycle: \(([entity.name] + chain(from: parent, until: entity.name)).joined(separator: " → "))",
                        entity: entity.name, hint: "remove the parent of one entity in the cycle")
                    break
                }
                seen.insert(name)
                current = entities[position].parent
            }
        }
    }

    private func chain(from start: String, until stop: String) -> [String] {
        var names: [String] = []
        var current: String? = start
        while let name = current, names.count <= entities.count {
            names.append(name)
            if name == stop { break }
            current = index[name].flatMap { entities[$0].parent }
        }
        return names
    }

    /// Inherited properties first, from the root down, then the entity's own.
    private mutating func resolveProperties() -> [String: [ResolvedProperty]] {
        var resolved: [String: [ResolvedProperty]] = [:]
        func resolve(_ name: String, depth: Int) -> [ResolvedProperty] {
            if let done = resolved[name] { return done }
            guard let position = index[name], depth <= entities.count else { return [] }
            let entity = entities[position]
            var properties = entity.parent.map { resolve($0, depth: depth + 1) } ?? []
            properties += entity.attributes.map { ResolvedProperty(property: .attribute($0), declaringEntity: name) }
            properties += entity.relationships.map {
                ResolvedProperty(property: .relationship($0), declaringEntity: name)
            }
            resolved[name] = properties
            return properties
        }
        for entity in entities where index[entity.name] != nil {
            let properties = resolve(entity.name, depth: 0)
            var seen: [String: String] = [:]
            for property in properties {
                if property.name.isEmpty {
                    report(.invalidName, "a property has an empty name", entity: entity.name)
                } else if let first = seen[property.name] {
                    // Report once, at the entity that declares the clash.
                    if property.declaringEntity == entity.name {
                        let inherited = first != entity.name ? " (inherited from '\(first)')" : ""
                        report(
                            .duplicateProperty,
                            "property '\(property.name)' is declared more than once\(inherited)",
                            entity: entity.name, property: property.name,
                            hint: "property names must be unique within an entity and its ancestors")
                    }
                } else {
                    seen[property.name] = property.declaringEntity
                }
            }
        }
        return resolved
    }

    private mutating func checkAttributes(of entity: Entity) {
        for clause in entity.stored.tableSQL where !SQLColumnClause.staysInItsColumn(clause) {
            problems.append(
                ModelProblem(
                    .invalidValue,
                    "tableSQL '\(clause)' does not stay inside its table (unbalanced quotes or parentheses, or a ',', ';' "
                        + "or comment outside them); it is not written into SQL",
                    location: locations["\(entity.name)#tableSQL"] ?? where_(entity.name), entity: entity.name,
                    hint: "each tableSQL entry is one table constraint, e.g. CONSTRAINT loan_dates CHECK (ends >= starts)"))
        }
        for attribute in entity.attributes {
            if attribute.type == .undefined && !attribute.isTransient {
                report(
                    .unknownType, "attribute type is Undefined, which only a transient attribute may have",
                    entity: entity.name, property: attribute.name, hint: "give the attribute a type, or mark it transient")
            }
            if validatesDefaultValues, let value = attribute.defaultValue, let reason = DefaultValue.problem(with: value, for: attribute.type) {
                report(
                    .invalidDefault, "default value '\(value)' is not a valid \(attribute.type.xcodeName): \(reason)",
                    entity: entity.name, property: attribute.name)
            }
            checkSQLWords(of: attribute.stored, entity: entity.name, property: attribute.name)
        }
    }

    /// The stored values a layout writes into DDL as SQL words (a declared type, an `ON DELETE` action,
    /// a verbatim column clause) must be what SQLite's grammar allows there and nothing more: no model
    /// value (hand-written, or read from an adopted database) ever becomes a statement of its own.
    private mutating func checkSQLWords(of column: StoredNames.Column, entity: String, property: String) {
        if let type = column.type, !SQLTypeName.isValid(type) {
            report(
                .invalidValue,
                "columnType '\(type)' is not a SQLite type name (\(SQLTypeName.shape)); it is not written into SQL",
                entity: entity, property: property, hint: "write the declared type alone, e.g. columnType: \"varchar(40)\"",
                key: "columnType")
        }
        if let action = column.onDelete, SQLForeignKeyAction.normalized(action) == nil {
            report(
                .invalidValue,
                "onDelete '\(action)' is not one of SQLite's actions (\(SQLForeignKeyAction.all.joined(separator: ", "))); "
                    + "it is not written into SQL",
                entity: entity, property: property, key: "onDelete")
        }
        if let clause = column.sql, !SQLColumnClause.staysInItsColumn(clause) {
            report(
                .invalidValue,
                "columnSQL '\(clause)' does not stay inside its column (unbalanced quotes or parentheses, or a ',', ';' "
                    + "or comment outside them); it is not written into SQL",
                entity: entity, property: property, hint: "columnSQL holds column clauses only, e.g. CHECK (price >= 0)",
                key: "columnSQL")
        }
    }

    private mutating func checkRelationships(of entity: Entity, resolved: [String: [ResolvedProperty]]) {
        for relationship in entity.relationships {
            let name = relationship.name
            checkSQLWords(of: relationship.stored.column, entity: entity.name, property: name)
            for action in relationship.stored.joinTable?.onDelete ?? [] where SQLForeignKeyAction.normalized(action) == nil {
                report(
                    .invalidValue,
                    "joinTable onDelete '\(action)' is not one of SQLite's actions (\(SQLForeignKeyAction.all.joined(separator: ", "))); "
                        + "it is not written into SQL",
                    entity: entity.name, property: name)
            }
            guard index[relationship.destination] != nil else {
                report(
                    .danglingDestination, "destination entity '\(relationship.destination)' does not exist",
                    entity: entity.name, property: name,
                    hint: Spelling.suggestion(for: relationship.destination, among: Array(index.keys)))
                continue
            }
            if relationship.isToMany {
                if relationship.maxCount != 0 && relationship.minCount > relationship.maxCount {
                    report(
                        .invalidCount,
                        "minimum count \(relationship.minCount) exceeds maximum count \(relationship.maxCount)",
                        entity: entity.name, property: name)
                }
            } else {
                if relationship.maxCount != 1 {
                    report(
                        .invalidCount, "a to-one relationship must have maximum count 1, not \(relationship.maxCount)",
                        entity: entity.name, property: name, hint: "mark it to-many, or remove the maximum count")
                }
                if relationship.isOrdered {
                    report(
                        .invalidValue, "only a to-many relationship can be ordered", entity: entity.name, property: name)
                }
            }
            if relationship.minCount < 0 || relationship.maxCount < 0 {
                report(.invalidCount, "counts must not be negative", entity: entity.name, property: name)
            }
            if relationship.minCount > Int(Int32.max) || relationship.maxCount > Int(Int32.max) {
                // Core Data keeps counts in 32 bits (the version hash has room for no more).
                report(.invalidCount, "counts must not exceed \(Int32.max)", entity: entity.name, property: name)
            }
            guard let inverseName = relationship.inverse else { continue }
            let destinationProperties = resolved[relationship.destination] ?? []
            guard let inverse = destinationProperties.first(where: { $0.name == inverseName }) else {
                report(
                    .unknownInverse,
                    "inverse '\(inverseName)' does not exist on destination '\(relationship.destination)'",
                    entity: entity.name, property: name,
                    hint: Spelling.suggestion(
                        for: inverseName, among: destinationProperties.compactMap(\.property.relationship?.name)))
                continue
            }
            guard let inverseRelationship = inverse.property.relationship else {
                report(
                    .inverseMismatch,
                    "inverse '\(relationship.destination).\(inverseName)' is an attribute, not a relationship",
                    entity: entity.name, property: name)
                continue
            }
            // The inverse must lead back to this entity (or an ancestor that declares it for us).
            let ancestry = chain(from: entity.name, until: "")
            let pointsBack = ancestry.contains(inverseRelationship.destination)
                || isDescendant(inverseRelationship.destination, of: entity.name)
            if !pointsBack {
                report(
                    .inverseMismatch,
                    "inverse '\(relationship.destination).\(inverseName)' leads to '\(inverseRelationship.destination)', not back to '\(entity.name)'",
                    entity: entity.name, property: name,
                    hint: "make the inverse's destination '\(entity.name)', or choose another inverse")
            } else if let back = inverseRelationship.inverse, back != name {
                report(
                    .inverseMismatch,
                    "inverse '\(relationship.destination).\(inverseName)' names '\(back)' as its own inverse, not '\(name)'",
                    entity: entity.name, property: name, hint: "the two relationships must name each other")
            }
        }
    }

    private func isDescendant(_ entity: String, of ancestor: String) -> Bool {
        chain(from: entity, until: ancestor).contains(ancestor)
    }

    private mutating func checkConstraintsAndIndexes(of entity: Entity, resolved: [String: [ResolvedProperty]]) {
        let properties = resolved[entity.name] ?? []
        let names = Set(properties.map(\.name))
        for constraint in entity.uniquenessConstraints {
            if constraint.isEmpty {
                report(.invalidValue, "a uniqueness constraint lists no property", entity: entity.name)
            }
            for property in constraint where !names.contains(property) {
                report(
                    .unknownConstraintProperty, "uniqueness constraint names unknown property '\(property)'",
                    entity: entity.name, hint: Spelling.suggestion(for: property, among: Array(names)))
            }
            for property in constraint {
                if let rel = properties.first(where: { $0.name == property })?.property.relationship, rel.isToMany {
                    report(
                        .invalidValue, "uniqueness constraint names to-many relationship '\(property)'",
                        entity: entity.name, hint: "constraints may use attributes and to-one relationships only")
                }
            }
        }
        for index in entity.indexes {
            if index.elements.isEmpty {
                report(.invalidValue, "index '\(index.name)' lists no property", entity: entity.name)
            }
            for element in index.elements where !names.contains(element.property) {
                report(
                    .unknownIndexProperty, "index '\(index.name)' names unknown property '\(element.property)'",
                    entity: entity.name, hint: Spelling.suggestion(for: element.property, among: Array(names)))
            }
        }
    }
}
