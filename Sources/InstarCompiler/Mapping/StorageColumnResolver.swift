import InstarMapping
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// Where a mapping expression's `$source.…` values are, in any layout: read from the layout's
/// ``StorageMap`` of the SOURCE version.
///
/// One type serves the three layouts because the storage map is where they differ (Core Data's
/// `Z`-tables, Instar's readable tables, plain SQL tables): `$source.attr` is the source row's column,
/// `$source.rel.attr` for a to-one is a `LEFT JOIN` of the destination's table under an alias named
/// after the key path (the same text each time, so the translator keeps one copy), and a path
/// through a to-many is ``ResolvedPath/toMany(relationship:)``. Tables are named through `table`,
/// because during a mapping step the source tables have been set aside under other names.
package struct StorageColumnResolver: MappingColumnResolver {
    package let model: Model
    package let map: StorageMap
    /// The alias of the source row in the statement the runner builds.
    package let sourceAlias: String
    /// The name a source table has while the step runs.
    package let table: @Sendable (String) -> String
    /// The layout's encoding of dates and UUIDs.
    package let valueEncoding: ValueEncoding

    package init(
        model: Model, map: StorageMap, valueEncoding: ValueEncoding, sourceAlias: String = "src",
        table: @escaping @Sendable (String) -> String = { $0 }
    ) {
        self.model = model
        self.map = map
        self.valueEncoding = valueEncoding
        self.sourceAlias = sourceAlias
        self.table = table
    }

    /// For each layout the same resolver, over that layout's storage map of `model`.
    package static func forLayout(_ layout: any StorageLayout, model: Model, table: @escaping @Sendable (String) -> String)
        throws(LayoutError) -> StorageColumnResolver
    {
        StorageColumnResolver(
            model: model, map: try layout.storageMap(for: model), valueEncoding: layout.valueEncoding, table: table)
    }

    package func resolve(entity: String, keyPath: [String]) -> ResolvedPath? {
        var current = entity
        var alias = sourceAlias
        var joins: [String] = []
        for (index, key) in keyPath.enumerated() {
            guard let resolved = model.property(key, of: current), let storage = map.entities[current] else { return nil }
            let isLast = index == keyPath.count - 1
            switch resolved.property {
            case .attribute(let attribute):
                guard isLast, let column = storage.columns[key] else { return nil }
                return .column(ResolvedColumn(sql: alias.sqlQuoted + "." + column.sqlQuoted, joins: joins, type: attribute.type))
            case .relationship(let relationship):
                if relationship.isToMany { return .toMany(relationship: key) }
                guard let column = storage.columns[key] else { return nil }
                if isLast { return .column(ResolvedColumn(sql: alias.sqlQuoted + "." + column.sqlQuoted, joins: joins)) }
                guard let target = map.entities[relationship.destination], let info = map.entityTables[target.table] else {
                    return nil
                }
                let next = sourceAlias + "." + keyPath[...index].joined(separator: ".")
                joins.append(
                    "LEFT JOIN \(table(target.table).sqlQuoted) AS \(next.sqlQuoted) ON "
                        + "\(next.sqlQuoted).\(info.primaryKey.sqlQuoted) = \(alias.sqlQuoted).\(column.sqlQuoted)")
                alias = next
                current = relationship.destination
            }
        }
        return nil
    }
}
