@_spi(Layouts) import InstarModel

/// The names the plain SQL layout gives one model's tables, columns and indexes: its conventions
/// (``PlainSQLLayout``), or the model's naming keys (``StoredNames``) where it has them.
///
/// A name given by a naming key is taken exactly as written: when it collides with another name of
/// the schema (SQLite compares names without ASCII case) the model is refused, at the key's
/// `file:line:column`, rather than silently moved aside as a convention's name would be.
package struct PlainSQLNames {
    let model: Model
    let layout: String
    /// Folded table and index names given by naming keys → where the key is written.
    private var explicitTables: [String: String] = [:]
    /// Per entity: folded column names given by naming keys → where the key is written.
    private var explicitColumns: [String: [String: (key: String, name: String)]] = [:]

    init(model: Model, layout: String) throws(LayoutError) {
        self.model = model
        self.layout = layout
        for entity in model.entities {
            if let table = entity.stored.table { try reserve(table, key: "\(entity.name)#table", entity: entity.name) }
            for attribute in entity.attributes {
                if let column = attribute.stored.name {
                    explicitColumns[entity.name, default: [:]][column.sqliteFolded] = ("\(entity.name).\(attribute.name)#column", column)
                }
            }
            for relationship in entity.relationships {
                if let column = relationship.stored.column.name {
                    explicitColumns[entity.name, default: [:]][column.sqliteFolded] = ("\(entity.name).\(relationship.name)#column", column)
                }
                if let join = relationship.stored.joinTable {
                    try reserve(join.name, key: "\(entity.name).\(relationship.name)#joinTable", entity: entity.name)
                }
            }
        }
    }

    private mutating func reserve(_ name: String, key: String, entity: String) throws(LayoutError) {
        if let other = explicitTables[name.sqliteFolded], other != key {
            throw collision(name, key: key, entity: entity, with: .explicitName(key: other, at: location(other)))
        }
        explicitTables[name.sqliteFolded] = key
    }

    func location(_ key: String) -> SourceLocation? {
        model.locations[key] ?? model.source.map { SourceLocation(file: $0) }
    }

    func collision(_ name: String, key: String, entity: String, property: String? = nil, with other: LayoutError.NameClash) -> LayoutError {
        LayoutError(
            layout: layout, entity: entity, property: property, .nameCollision(name: name, with: other), location: location(key))
    }

    /// Claims a table (or index) name: exactly the explicit one, or the convention's moved aside.
    func claimTable(_ base: String, explicitKey: String?, entity: String, in names: inout SchemaNames)
        throws(LayoutError) -> String
    {
        if let explicitKey {
            guard names.claimExactTable(base) else {
                throw collision(base, key: explicitKey, entity: entity, with: .tableOrIndex)
            }
            return base
        }
        if let owner = explicitTables[base.sqliteFolded] {
            throw collision(base, key: owner, entity: entity, with: .conventionalTable(entity: entity))
        }
        return names.claimTable(base)
    }

    func claimIndex(_ base: String, explicitKey: String?, entity: String, in names: inout SchemaNames)
        throws(LayoutError) -> String
    {
        guard let explicitKey else { return names.claimIndex(base) }
        guard names.claimExactIndex(base) else {
            throw collision(base, key: explicitKey, entity: entity, with: .tableOrIndex)
        }
        return base
    }

    /// Claims a column of one table: exactly the explicit name, or the convention's moved aside.
    func claimColumn(
        _ base: String, explicitKey: String?, entity: String, property: String, in registry: inout ColumnRegistry
    ) throws(LayoutError) -> String {
        guard let explicitKey else {
            if let owner = explicitColumns[entity]?[base.sqliteFolded] {
                throw collision(
                    owner.name, key: owner.key, entity: entity,
                    with: .conventionalColumn(base, property: property))
            }
            return registry.claim(base, owner: entity)
        }
        guard registry.claimExact(base) else {
            throw collision(base, key: explicitKey, entity: entity, property: property, with: .column)
        }
        return base
    }

    /// An entity's primary key column (`id` unless `primaryKey:` says otherwise; `rowid` = none).
    static func primaryKey(of entity: Entity?) -> String { entity?.stored.primaryKey ?? PlainSQLLayout.primaryKey }

    package static func isRowID(_ name: String) -> Bool {
        ["rowid", "_rowid_", "oid"].contains(name.lowercased())
    }
}

extension SchemaNames {
    /// Claims exactly `name`; false when a table or index has it already.
    mutating func claimExactTable(_ name: String) -> Bool {
        guard !isTaken(name) else { return false }
        return claimTable(name) == name
    }

    mutating func claimExactIndex(_ name: String) -> Bool {
        guard !isTaken(name) else { return false }
        return claimIndex(name) == name
    }
}

extension ColumnRegistry {
    /// Claims exactly `name`; false when the table has a column of that name already.
    mutating func claimExact(_ name: String) -> Bool {
        guard !isTaken(name) else { return false }
        return claim(name, owner: "") == name
    }
}
