import InstarInference
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts

/// A step that cannot be compiled to SQL: which step, and why, as values (the changes Core Data does not
/// infer, the raw SQL in the way, the tables that would merge). An app meets it as the `underlying` of a
/// `StoreError` of kind `notInferable`; ``description`` is the one place it becomes words.
package struct StepCompileError: InstarError, Hashable {
    /// Why the step cannot be compiled.
    package enum Reason: Sendable, Hashable {
        /// Changes Core Data's inferred migration does not perform, each with its verdict (why, and what
        /// to do instead).
        case changesNotInferable([Change])
        /// Raw SQL of the newer version that a step would have to create, rewrite, or follow through a
        /// rename or drop.
        case rawSQL([RawSQLBlocker])
        /// Rows of entities stored in several tables would go into one table: hierarchies cannot be
        /// merged in place.
        case tablesMerged(table: String, sources: [String])
    }

    /// The version the step starts from.
    package var from: String
    /// The version the step goes to.
    package var to: String
    /// Why the step cannot be compiled.
    package var reason: Reason

    /// Makes the error for the step from `from` to `to`.
    package init(from: String, to: String, reason: Reason) {
        self.from = from
        self.to = to
        self.reason = reason
    }

    package var description: String {
        switch reason {
        case .changesNotInferable(let changes):
            return "the step \(from) → \(to) cannot be inferred:\n  "
                + changes.map { "\($0.subject): \($0.verdict.reason)" }.joined(separator: "\n  ")
        case .rawSQL(let blockers):
            return "the step \(from) → \(to) cannot be inferred:\n  " + blockers.map(\.description).joined(separator: "\n  ")
                + "\n  (keep the raw SQL as the older version has it; model the table as an entity to let steps change it)"
        case .tablesMerged(let table, let sources):
            return "the step \(from) → \(to): table \(table) would take rows from several tables "
                + "(\(sources.joined(separator: ", "))): hierarchies cannot be merged in place"
        }
    }
}

/// Raw SQL (``RawSQL``: an adopted database's tables, indexes, views and triggers) that keeps a step
/// from being compiled: Instar never creates or rewrites raw tables and indexes, and recreates views and
/// triggers from the newer version's text, which must not name what the step renames or drops.
package struct RawSQLBlocker: Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the raw object.
    package enum Problem: Sendable, Hashable {
        /// The raw table or index exists only in the newer version: a step never creates raw SQL.
        case added
        /// The raw table or index is written differently in the newer version: a step never rewrites it.
        case rewritten
        /// The raw SQL names a table the step renames (`renamedTo`) or drops (nil).
        case refersToTable(String, renamedTo: String?)
        /// The raw SQL names a column the step renames (`renamedTo`) or drops (nil).
        case refersToColumn(table: String, column: String, renamedTo: String?)
    }

    /// The raw object, as the newer version lists it.
    package var object: RawSQL
    /// The newer version's name.
    package var version: String
    /// What is wrong with it.
    package var problem: Problem

    /// Makes the blocker for `object` of the newer version `version`.
    package init(object: RawSQL, version: String, problem: Problem) {
        self.object = object
        self.version = version
        self.problem = problem
    }

    package var description: String {
        let raw = "the raw \(object.kind.rawValue) '\(object.name)'"
        switch problem {
        case .added: return "\(raw) is new in \(version): a step never creates raw SQL"
        case .rewritten: return "\(raw) is written differently in \(version): a step never rewrites raw SQL"
        case .refersToTable(let table, let renamed):
            return "\(raw) refers to table '\(table)', and this step " + (renamed.map { "renames it to '\($0)'" } ?? "drops it")
                + " (\(RawSQLReference.hint(object, oldName: table, renamedTo: renamed)))"
        case .refersToColumn(let table, let column, let renamed):
            return "\(raw) refers to column '\(table).\(column)', and this step "
                + (renamed.map { "renames it to '\($0)'" } ?? "drops it")
                + " (\(RawSQLReference.hint(object, oldName: column, renamedTo: renamed)))"
        }
    }
}

/// Compiles one inferred step (a ``ModelDiff``) into per-table transformations, using only the two
/// versions' ``StorageMap``s: layout-independent.
package struct StepCompiler {
    let diff: ModelDiff
    let old: Model
    let new: Model
    let oldMap: StorageMap
    let newMap: StorageMap
    let layout: any StorageLayout
    /// Lookups the compiler makes for every table and column, indexed once: entities by table (in
    /// each version) and property mappings by destination entity and property.
    private let newMembers: [String: [String]]
    private let oldMembers: [String: [String]]
    private let sourceProperties: [String: [String: ResolvedProperty]]
    /// Entities some change of the step names.
    private let changedEntities: Set<String>

    package init(diff: ModelDiff, from old: Model, to new: Model, layout: any StorageLayout) throws {
        try self.init(
            diff: diff, from: old, to: new, oldMap: layout.storageMap(for: old), newMap: layout.storageMap(for: new),
            layout: layout)
    }

    /// With storage maps computed beforehand (the planner prices hundreds of steps over the same versions).
    package init(diff: ModelDiff, from old: Model, to new: Model, oldMap: StorageMap, newMap: StorageMap, layout: any StorageLayout) {
        self.diff = diff
        self.old = old
        self.new = new
        self.layout = layout
        self.oldMap = oldMap
        self.newMap = newMap
        newMembers = Dictionary(grouping: newMap.entities.keys) { newMap.entities[$0]!.table }.mapValues { $0.sorted() }
        oldMembers = Dictionary(grouping: oldMap.entities.keys) { oldMap.entities[$0]!.table }.mapValues { $0.sorted() }
        var properties: [String: [String: ResolvedProperty]] = [:]
        for mapping in diff.mappings {
            guard let destination = mapping.destination, mapping.source != nil, properties[destination] == nil else { continue }
            var byName: [String: ResolvedProperty] = [:]
            for property in mapping.properties {
                if let name = property.destination?.name, let source = property.source, byName[name] == nil { byName[name] = source }
            }
            properties[destination] = byName
        }
        sourceProperties = properties
        changedEntities = Set(diff.changes.map(\.entity))
    }

    package func compile() throws -> StepProgram {
        guard diff.isInferable else {
            throw StepCompileError(from: old.name, to: new.name, reason: .changesNotInferable(diff.blockingChanges))
        }
        let rawBlockers =
            RawSQLSteps.blockers(from: old, to: new)
            + RawSQLReference.find(from: old, to: new, diff: diff).map { $0.blocker(version: new.name) }
        guard rawBlockers.isEmpty else {
            throw StepCompileError(from: old.name, to: new.name, reason: .rawSQL(rawBlockers))
        }
        var transformations: [TableTransformation] = []
        for table in newMap.schema.tables {
            if newMap.entityTables[table.name] != nil {
                transformations.append(try entityTable(table))
            } else if let join = newMap.joinTables[table.name] {
                transformations.append(joinTable(table, join))
            }
        }
        let continued = Set(transformations.filter(\.continuesSource).compactMap(\.source))
        let dropped = oldMap.schema.tables.map(\.name).filter { !continued.contains($0) }
        return StepProgram(
            fromVersion: old.name, toVersion: new.name, transformations: transformations, droppedTables: dropped,
            targetSchema: newMap.schema, survivingEntities: survivingEntities())
    }

    // MARK: Entity tables

    func sourceEntity(of destination: String) -> String? { diff.source(ofEntity: destination) }

    func propertyMapping(_ destinationEntity: String, _ property: String) -> ResolvedProperty? {
        sourceProperties[destinationEntity]?[property]
    }

    private func entityTable(_ target: SchemaTable) throws -> TableTransformation {
        let info = newMap.entityTables[target.name]!
        let members = newMembers[target.name] ?? []
        if isUnchanged(target, info: info, members: members) { return .unchanged(target, role: .entityTable) }
        let sources = members.compactMap { d in sourceEntity(of: d).map { (d, $0) } }
        let sourceTables = Set(sources.compactMap { oldMap.table(of: $0.1) })
        guard sourceTables.count <= 1 else {
            throw StepCompileError(from: old.name, to: new.name, reason: .tablesMerged(table: target.name, sources: sourceTables.sorted()))
        }
        guard let sourceTable = sourceTables.first, let sourceInfo = oldMap.entityTables[sourceTable] else {
            return TableTransformation(target: target, role: .entityTable, source: nil, columns: [:], continuesSource: false)
        }
        var columns: [String: ColumnValueExpression] = [:]
        columns[info.primaryKey] = .column(sourceInfo.primaryKey)

        // Rows: those of source entities that map into this table.
        let sourceMembers = oldMembers[sourceTable] ?? []
        let carried = sources.map(\.1)
        var filter: [RowPredicate] = []
        if let oldDiscriminator = sourceInfo.discriminator, Set(carried) != Set(sourceMembers) {
            filter.append(
                .isIn(oldDiscriminator, carried.sorted().compactMap { oldMap.entities[$0]?.discriminatorValue }))
        }
        if let discriminator = info.discriminator {
            let pairs = sources.sorted { $0.1 < $1.1 }.compactMap { d, s -> ColumnValueExpression.ValueMapping? in
                guard let to = newMap.entities[d]?.discriminatorValue else { return nil }
                return .init(from: oldMap.entities[s]?.discriminatorValue ?? .null, to: to)
            }
            if let oldDiscriminator = sourceInfo.discriminator {
                columns[discriminator] =
                    pairs.allSatisfy({ $0.from == $0.to }) && Set(carried) == Set(sourceMembers)
                    ? .column(oldDiscriminator) : .mapping(.column(oldDiscriminator), pairs)
            } else if let only = pairs.first {
                columns[discriminator] = .value(only.to)
            }
        }
        for (column, rule) in info.bookkeeping {
            if case .preserved(let value) = rule {
                columns[column] = sourceInfo.bookkeeping[column] != nil ? .column(column) : .value(value)
            }
        }
        for destination in members {
            try fillOwnColumns(of: destination, into: &columns, sourceTable: sourceTable)
        }
        for (column, rule) in info.bookkeeping {
            if case .entityOf(let foreignKey) = rule {
                columns[column] = entityKey(of: foreignKey, in: target.name, columns: columns, sourceTable: sourceTable)
            }
        }
        // The table continues its source when it keeps the source's root entity; an entity that moves
        // out of a hierarchy fills a new table from the old one's rows.
        let continues = carried.contains(sourceInfo.root)
        return TableTransformation(
            target: target, role: .entityTable, source: sourceTable, columns: columns, filter: filter,
            continuesSource: continues)
    }

    /// A table that the step leaves exactly as it is: same definition, same entities with the same
    /// storage, none of them named by a change, no column that depends on other tables' entities.
    /// Most tables of most steps are like this; saying so directly keeps long histories quick to plan.
    private func isUnchanged(_ target: SchemaTable, info: EntityTable, members: [String]) -> Bool {
        guard oldMap.schema.table(named: target.name) == target, oldMap.entityTables[target.name] == info,
            oldMembers[target.name] == members,
            !info.bookkeeping.values.contains(where: { if case .entityOf = $0 { true } else { false } })
        else { return false }
        return members.allSatisfy { entity in
            !changedEntities.contains(entity) && sourceEntity(of: entity) == entity
                && oldMap.entities[entity] == newMap.entities[entity]
        }
    }

    /// Columns of the properties an entity declares itself (inherited ones are filled by the ancestor).
    ///
    /// A column is shared by every entity that has the property (the declarer and its descendants),
    /// and each of them may have got its value from a different older property (a property moved up
    /// the hierarchy comes from a sub-entity's column). When they differ, the value is chosen per row
    /// by the older discriminator.
    private func fillOwnColumns(of destination: String, into columns: inout [String: ColumnValueExpression], sourceTable: String)
        throws
    {
        let entity = new.entity(named: destination)!
        let storage = newMap.entities[destination]!
        for attribute in entity.attributes {
            // A composite's elements each have a column (``Attribute/storedParts``), filled from the same
            // element of the composite the attribute maps from.
            for (key, part) in attribute.storedParts {
                guard let column = storage.columns[key] else { continue }
                columns[column] = perKind(of: destination, column: column, sourceTable: sourceTable) { member in
                    attributeValue(attribute, part: part, of: member)
                }
            }
        }
        for relationship in entity.relationships where relationship.isToOne {
            guard let column = storage.columns[relationship.name] else { continue }
            columns[column] = perKind(of: destination, column: column, sourceTable: sourceTable) { member in
                foreignKeyValue(relationship, of: member, sourceTable: sourceTable)
            }
        }
        // Keys of to-many relationships without an inverse, kept on this (destination) entity's rows
        // (Core Data layout): carried from the owner relationship's older key when it had one.
        for (owner, storageKind) in newMap.relationships {
            guard case .inverseForeignKey(let hidden, nil) = storageKind, hidden.entity == destination,
                new.entity(named: destination)?.relationship(named: hidden.name) == nil,
                case .foreignKey(_, let column)? = newMap.relationships[hidden]
            else { continue }
            var value = ColumnValueExpression.null
            if let source = propertyMapping(owner.entity, owner.name) {
                switch oldMap.relationships[RelationshipKey(entity: source.declaringEntity, name: source.name)] {
                case .inverseForeignKey(let oldHidden, _)?:
                    // Kept in a key before (its own, or its to-one inverse's).
                    if case .foreignKey(let oldTable, let oldColumn)? = oldMap.relationships[oldHidden], oldTable == sourceTable {
                        value = .column(oldColumn)
                    }
                case .joinTable(let table, let ownerColumn, let destinationColumn, _)?:
                    // A many-to-many whose inverse was removed: each row keeps one of its owners.
                    if let primaryKey = oldMap.entityTables[sourceTable]?.primaryKey {
                        value = .lookup(table: table, value: ownerColumn, key: destinationColumn, equals: .column(primaryKey))
                    }
                default:
                    break
                }
            }
            columns[column] = value
        }
        // Position columns of ordered to-many relationships whose foreign key lives in this entity.
        for (key, storageKind) in newMap.relationships {
            guard case .inverseForeignKey(let inverse, let position?) = storageKind, inverse.entity == destination,
                case .foreignKey(_, let fkColumn)? = newMap.relationships[inverse]
            else { continue }
            columns[position] = positionSource(forOrdered: key, foreignKey: fkColumn, sourceTable: sourceTable, columns: columns)
        }
    }

    /// Combines the value each entity kind (the declarer and its descendants) gives a shared column.
    ///
    /// Rows of entities that do not have the property get what a new row of theirs would get: the
    /// column's declared default (Core Data's tables declare none, so NULL), never another entity's
    /// default value.
    private func perKind(
        of declarer: String, column: String, sourceTable: String, value: (String) -> ColumnValueExpression
    ) -> ColumnValueExpression {
        let members = newMap.entities[declarer]?.kinds ?? [declarer]
        let table = newMap.entities[declarer]?.table
        let fallback = ColumnValueExpression.value(
            table.flatMap { newMap.schema.table(named: $0)?.column(named: column)?.defaultValue } ?? .null)
        var groups: [(ColumnValueExpression, [String])] = []
        for member in members {
            let expression = value(member)
            if let i = groups.firstIndex(where: { $0.0 == expression }) {
                groups[i].1.append(member)
            } else {
                groups.append((expression, [member]))
            }
        }
        // Kinds without rows in the older version (new entities) do not decide anything.
        let withRows = groups.filter { $0.1.contains { sourceEntity(of: $0) != nil } }
        guard withRows.count > 1, let discriminator = oldMap.entityTables[sourceTable]?.discriminator else {
            // No kind of the declarer had rows: every row carried here belongs to another entity.
            guard let (expression, kinds) = withRows.first else { return fallback }
            // A constant (a default) goes to the declarer's rows only, when the table carries others.
            // (Only a constant other than the fallback needs the table's other entities: most columns
            // are copies, and looking at every entity for each of them made long histories slow to plan.)
            guard expression.constant != nil, expression != fallback,
                let discriminator = oldMap.entityTables[sourceTable]?.discriminator
            else { return expression }
            let sources = Set(kinds.compactMap { sourceEntity(of: $0) })
            let carried = Set((table.flatMap { newMembers[$0] } ?? []).compactMap { sourceEntity(of: $0) })
            if !carried.isSubset(of: sources) {
                let values = sources.sorted().compactMap { oldMap.entities[$0]?.discriminatorValue }
                return .choose(discriminator: discriminator, values: values, then: expression, else: fallback)
            }
            return expression
        }
        // CASE old discriminator WHEN kind THEN value … : written as nested COALESCE-free mapping.
        var result: ColumnValueExpression = .null
        for (expression, kinds) in withRows.reversed() {
            let values = kinds.compactMap { sourceEntity(of: $0) }.compactMap { oldMap.entities[$0]?.discriminatorValue }
            result = .choose(discriminator: discriminator, values: values, then: expression, else: result)
        }
        return result
    }

    /// The value of `attribute`'s column (or, for a composite, of its element `part`) in `member`'s rows.
    private func attributeValue(_ attribute: Attribute, part: Attribute, of member: String) -> ColumnValueExpression {
        let fallback: ColumnValueExpression = layout.storedDefault(of: part).map { .value($0) } ?? .null
        guard let source = sourceEntity(of: member), let sourceProperty = propertyMapping(member, attribute.name),
            let sourceWhole = sourceProperty.property.attribute
        else { return fallback }
        let composite = attribute.type == .composite
        // A composite's element comes from the same-named element of the older composite; an element
        // that is new (or a composite that was a plain attribute) starts empty.
        guard composite == (sourceWhole.type == .composite),
            let sourceAttribute = composite ? sourceWhole.elements.first(where: { $0.name == part.name }) : sourceWhole,
            let sourceColumn = oldMap.entities[source]?.columns[
                composite ? "\(sourceProperty.name).\(part.name)" : sourceProperty.name]
        else { return fallback }
        let attribute = part
        var value = layout.convert(.column(sourceColumn), from: sourceAttribute, to: attribute)
        if !attribute.isOptional, fallback != .null, sourceAttribute.isOptional || sourceAttribute.type != attribute.type {
            value = .coalesce(value, fallback)
        }
        return value
    }

    private func foreignKeyValue(_ relationship: Relationship, of member: String, sourceTable: String) -> ColumnValueExpression {
        guard let source = sourceEntity(of: member) else { return .null }
        guard let sourceProperty = propertyMapping(member, relationship.name) else {
            // The to-many side may have kept its links in a join table; they now live in this key.
            return linkFromOldJoinTable(toOne: relationship, sourceTable: sourceTable) ?? .null
        }
        guard let sourceRelationship = sourceProperty.property.relationship, sourceRelationship.isToOne,
            let sourceColumn = oldMap.entities[source]?.columns[sourceProperty.name],
            let mappedDestination = diff.destination(ofEntity: sourceRelationship.destination),
            new.entity(mappedDestination, isKindOf: relationship.destination)
        else { return .null }
        return .column(sourceColumn)
    }

    /// The discriminator of the row a foreign key points to (Core Data's `Z<n>_<REL>` beside `Z<REL>`).
    ///
    /// A key carried over with its older entity column keeps that column, renumbered like the
    /// discriminator when entity numbers change; any other key (a new one, one whose destination gained
    /// sub-entities, one read from a join table) reads the entity from the older table of the rows it
    /// points to, again renumbered.
    private func entityKey(
        of foreignKey: String, in table: String, columns: [String: ColumnValueExpression], sourceTable: String
    ) -> ColumnValueExpression {
        let key = columns[foreignKey] ?? .null
        guard key != .null,
            let relationship = newMap.relationships.first(where: {
                if case .foreignKey(let t, let c) = $0.value { return t == table && c == foreignKey }
                return false
            })?.key,
            let destination = new.entity(named: relationship.entity)?.relationship(named: relationship.name)?.destination,
            let kinds = newMap.entities[destination]?.kinds
        else { return .null }
        let pairs = kinds.sorted().compactMap { kind -> ColumnValueExpression.ValueMapping? in
            guard let source = sourceEntity(of: kind), let from = oldMap.entities[source]?.discriminatorValue,
                let to = newMap.entities[kind]?.discriminatorValue
            else { return nil }
            return .init(from: from, to: to)
        }
        guard !pairs.isEmpty else { return .null }  // no older row can be pointed to
        func renumbered(_ value: ColumnValueExpression) -> ColumnValueExpression {
            pairs.allSatisfy { $0.from == $0.to } ? value : .mapping(value, pairs)
        }
        if case .column(let oldKey) = key,
            let oldColumn = oldMap.entityTables[sourceTable]?.bookkeeping.first(where: { $0.value == .entityOf(foreignKey: oldKey) })?.key
        {
            return renumbered(.column(oldColumn))
        }
        let oldTables = Set(kinds.compactMap { sourceEntity(of: $0) }.compactMap { oldMap.table(of: $0) })
        guard oldTables.count == 1, let oldTable = oldTables.first, let info = oldMap.entityTables[oldTable],
            let discriminator = info.discriminator
        else { return .null }
        return renumbered(.lookup(table: oldTable, value: discriminator, key: info.primaryKey, equals: key))
    }

    /// For a to-one without an older counterpart whose to-many inverse did exist as a join table.
    private func linkFromOldJoinTable(toOne relationship: Relationship, sourceTable: String)
        -> ColumnValueExpression?
    {
        guard let inverseName = relationship.inverse,
            let inverse = new.property(inverseName, of: relationship.destination),
            let (storage, _) = oldStorage(of: RelationshipKey(entity: inverse.declaringEntity, name: inverse.name))
        else { return nil }
        // A to-many that had no inverse kept its links in a key on these very rows (Core Data layout):
        // the new to-one takes them over (SwiftDeveloperBlog V01 → V02 adds `PathPoint.path`).
        if case .inverseForeignKey(let hidden, _) = storage, case .foreignKey(let table, let column)? = oldMap.relationships[hidden],
            table == sourceTable, oldMap.entities[hidden.entity].flatMap({ _ in old.entity(named: hidden.entity)?.relationship(named: hidden.name) }) == nil
        {
            return .column(column)
        }
        guard case .joinTable(let table, let ownerColumn, let destinationColumn, _) = storage,
            let pk = oldMap.entityTables[sourceTable]?.primaryKey
        else { return nil }
        return .lookup(table: table, value: ownerColumn, key: destinationColumn, equals: .column(pk))
    }

    /// Positions for an ordered to-many stored beside its inverse's foreign key: kept when the source
    /// was ordered, otherwise numbered in primary-key order within each owner.
    private func positionSource(
        forOrdered key: RelationshipKey, foreignKey: String, sourceTable: String, columns: [String: ColumnValueExpression]
    ) -> ColumnValueExpression {
        if let sourceProperty = propertyMapping(key.entity, key.name),
            case .inverseForeignKey(_, let oldPosition?)? = oldMap.relationships[
                RelationshipKey(entity: sourceProperty.declaringEntity, name: sourceProperty.name)]
        {
            return .column(oldPosition)
        }
        guard let fkSource = columns[foreignKey], fkSource != .null,
            let pk = oldMap.entityTables[sourceTable]?.primaryKey
        else { return .null }
        return .position(partition: fkSource, order: [.column(pk)], step: 1)
    }

    // MARK: Verification data

    private func survivingEntities() -> [StepProgram.SurvivingEntity] {
        diff.mappings.compactMap { mapping in
            guard let s = mapping.source, let d = mapping.destination, let so = oldMap.entities[s],
                let de = newMap.entities[d]
            else { return nil }
            return StepProgram.SurvivingEntity(
                sourceEntity: s, sourceTable: so.table, sourceDiscriminator: oldMap.countFilter(of: s), destinationEntity: d,
                destinationTable: de.table, destinationDiscriminator: newMap.countFilter(of: d))
        }
    }
}
