@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

/// A resolver over a model alone, for reports made without a store: tables and columns are named after
/// entities and properties, the source row is `"source"`, and each to-one step is joined on `"rowid"`.
///
/// It shows which key paths exist, which are to-many and what SQL shape an expression takes; a store's
/// layout supplies the real names. It quotes identifiers itself (double quotes, doubled inside) because
/// this module cannot use InstarStore's quoting; the store's resolvers should use theirs.
package struct ModelColumnResolver: MappingColumnResolver {
    package let model: Model

    package init(model: Model) {
        self.model = model
    }

    package func resolve(entity: String, keyPath: [String]) -> ResolvedPath? {
        var current = entity
        var alias = "source"
        var joins: [String] = []
        for (index, key) in keyPath.enumerated() {
            guard let property = model.property(key, of: current)?.property else { return nil }
            let isLast = index == keyPath.count - 1
            switch property {
            case .attribute(let attribute):
                guard isLast else { return nil }
                return .column(ResolvedColumn(sql: Self.quote(alias) + "." + Self.quote(key), joins: joins, type: attribute.type))
            case .relationship(let relationship):
                if relationship.isToMany { return .toMany(relationship: key) }
                if isLast { return .column(ResolvedColumn(sql: Self.quote(alias) + "." + Self.quote(key), joins: joins)) }
                let next = alias + "." + key
                joins.append(
                    "LEFT JOIN \(Self.quote(relationship.destination)) AS \(Self.quote(next)) ON "
                        + "\(Self.quote(next)).\"rowid\" = \(Self.quote(alias)).\(Self.quote(key))")
                alias = next
                current = relationship.destination
            }
        }
        return nil
    }

    static func quote(_ identifier: String) -> String { SQLIdentifier.quoted(identifier) }
}
