@_spi(Layouts) import InstarModel

/// The `instar` and `coredata` layouts name every table and column by their own rules (Core Data's
/// `Z…` names must stay exactly Core Data's), so a model with naming keys (``StoredNames``), verbatim
/// SQL or raw objects means something they would silently ignore. They refuse it instead, at the first
/// key's `file:line:column`, pointing to the `sql` layout that honours them.
enum NamingKeyRefusal {
    static func check(_ model: Model, layout: String) throws(LayoutError) {
        guard let (key, entity, property) = firstKey(in: model) else { return }
        let location = model.locations[key.location] ?? model.locations[key.fallback]
            ?? model.source.map { SourceLocation(file: $0) }
        throw LayoutError(
            layout: layout, entity: entity, property: property, .namingKey(key.name), location: location)
    }

    private struct Key {
        var name: String
        var location: String
        var fallback: String
    }

    private static func firstKey(in model: Model) -> (Key, String?, String?)? {
        for entity in model.entities {
            let e = entity.name
            let s = entity.stored
            if s.table != nil { return (Key(name: "table", location: "\(e)#table", fallback: e), e, nil) }
            if s.primaryKey != nil { return (Key(name: "primaryKey", location: "\(e)#primaryKey", fallback: e), e, nil) }
            if s.autoincrement { return (Key(name: "autoincrement", location: "\(e)#autoincrement", fallback: e), e, nil) }
            if s.primaryKeyConstraint != nil {
                return (Key(name: "primaryKeyConstraint", location: "\(e)#primaryKeyConstraint", fallback: e), e, nil)
            }
            if let name = s.uniqueConstraintNames.values.sorted().first {
                return (Key(name: "constraint", location: "\(e)#constraint:\(name)", fallback: e), e, nil)
            }
            if !s.compositeKey.isEmpty {
                return (Key(name: "compositeKey", location: "\(e)#compositeKey", fallback: e), e, nil)
            }
            if !s.tableSQL.isEmpty { return (Key(name: "tableSQL", location: "\(e)#tableSQL", fallback: e), e, nil) }
            if !s.columnOrder.isEmpty { return (Key(name: "columnOrder", location: "\(e)#columnOrder", fallback: e), e, nil) }
            if let name = s.uniqueIndexNames.values.sorted().first {
                return (Key(name: "name", location: "\(e)#unique:\(name)", fallback: e), e, nil)
            }
            for index in entity.indexes where index.storedName != nil {
                return (Key(name: "name", location: "\(e)#index:\(index.name)", fallback: e), e, nil)
            }
            for attribute in entity.attributes where !attribute.stored.isEmpty {
                let p = "\(e).\(attribute.name)"
                let name = columnKeyName(attribute.stored)
                return (Key(name: name, location: "\(p)#\(name)", fallback: p), e, attribute.name)
            }
            for relationship in entity.relationships where !relationship.stored.isEmpty {
                let p = "\(e).\(relationship.name)"
                let name = relationship.stored.joinTable != nil ? "joinTable" : columnKeyName(relationship.stored.column)
                return (Key(name: name, location: "\(p)#\(name)", fallback: p), e, relationship.name)
            }
        }
        if let raw = model.rawSQL.first {
            return (Key(name: "raw", location: "raw", fallback: "raw"), nil, raw.name)
        }
        return nil
    }

    private static func columnKeyName(_ c: StoredNames.Column) -> String {
        if c.name != nil { return "column" }
        if c.type != nil { return "columnType" }
        if c.sql != nil { return "columnSQL" }
        if c.onDelete != nil { return "onDelete" }
        if c.constraint != nil { return "constraint" }
        return "notNull"
    }
}
