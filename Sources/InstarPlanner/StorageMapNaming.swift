@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// The names a layout gives one model version, as synthesized hooks need them (``StorageNaming``):
/// read from the layout's ``StorageMap``, so hooks name exactly the tables and columns a step makes.
package struct StorageMapNaming: StorageNaming {
    package let model: Model
    package let map: StorageMap
    package let valueEncoding: ValueEncoding

    package init(model: Model, map: StorageMap, valueEncoding: ValueEncoding) {
        self.model = model
        self.map = map
        self.valueEncoding = valueEncoding
    }

    package init(model: Model, layout: any StorageLayout) throws(LayoutError) {
        self.init(model: model, map: try layout.storageMap(for: model), valueEncoding: layout.valueEncoding)
    }

    package func table(of entity: String) -> String? { map.entities[entity]?.table }

    package func primaryKey(of entity: String) -> String? {
        map.entities[entity].flatMap { map.entityTables[$0.table]?.primaryKey }
    }

    package func column(of property: String, in entity: String) -> String? { map.entities[entity]?.columns[property] }

    package func rowFilter(of entity: String) -> String? {
        guard let storage = map.entities[entity], let discriminator = map.entityTables[storage.table]?.discriminator
        else { return nil }
        let values = storage.kinds.compactMap { map.entities[$0]?.discriminatorValue?.literal }
        guard !values.isEmpty else { return nil }
        return "\(SQLIdentifier.quoted(discriminator)) IN (\(values.joined(separator: ", ")))"
    }

    package func links(of relationship: String, in entity: String) -> LinkStorage? {
        guard let declaring = model.property(relationship, of: entity)?.declaringEntity else { return nil }
        switch map.relationships[RelationshipKey(entity: declaring, name: relationship)] {
        case .inverseForeignKey(let inverse, let position)?:
            guard case .foreignKey(let table, let column)? = map.relationships[inverse],
                let primaryKey = map.entityTables[table]?.primaryKey
            else { return nil }
            return .inverseForeignKey(table: table, column: column, primaryKey: primaryKey, position: position)
        case .joinTable(let name, let ownerColumn, let destinationColumn, let position)?:
            return .joinTable(name: name, ownerColumn: ownerColumn, destinationColumn: destinationColumn, position: position)
        case .foreignKey?, nil:
            return nil
        }
    }
}

extension Decomposer {
    /// A decomposer whose hooks use the names of `layout`.
    package init(layout: any StorageLayout, expressions: [String: String] = [:]) {
        self.init(naming: { try? StorageMapNaming(model: $0, layout: layout) }, expressions: expressions)
    }
}
