@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

/// Tells the SQL translator where a source row's values are, in whatever layout the store uses.
///
/// The translator never builds identifiers: it asks the resolver, which knows the layout (Core Data's
/// `Z`-tables, Instar's own layout, plain SQL tables), the table aliases of the statement the runtime
/// will build, and how to quote. It returns SQL that is ready to paste — quoted and qualified — plus the
/// joins a to-one key path (`continent.name`) needs. A store layer implements this once per layout; the
/// runtime then writes `SELECT … FROM <source table> AS <alias> <joins> WHERE <filter>`.
package protocol MappingColumnResolver: Sendable {
    /// The value at `keyPath` from a row of `entity` (the entity mapping's source entity).
    ///
    /// - Parameter keyPath: one or more keys as written (`["title"]`, `["continent", "name"]`); may
    ///   contain collection operators (`@count`), which a resolver may decline.
    /// - Returns: nil when the key path does not exist in the layout (the translator then asks for a hook).
    func resolve(entity: String, keyPath: [String]) -> ResolvedPath?

    /// How the store keeps dates and UUIDs, so constant dates and `now()` are written in its form.
    var valueEncoding: ValueEncoding { get }
}

extension MappingColumnResolver {
    /// Core Data's: a mapping model describes a Core Data store unless the resolver says otherwise.
    package var valueEncoding: ValueEncoding { .coreData }
}

/// Where a key path's value lives.
package enum ResolvedPath: Sendable, Hashable {
    /// One value per source row.
    case column(ResolvedColumn)
    /// The key path goes through a to-many relationship (named here): a collection, not one value.
    case toMany(relationship: String)
}

/// A single-valued key path, as SQL.
package struct ResolvedColumn: Sendable, Hashable {
    /// A quoted, qualified column expression such as `"src"."ZTITLE"` or `"j1"."name"`.
    package var sql: String
    /// The joins needed to reach it, each a whole clause such as
    /// `LEFT JOIN "ZCONTINENT" AS "j1" ON "j1"."Z_PK" = "src"."ZCONTINENT"`. A resolver must give the
    /// same clause text (and alias) each time the same relationship is crossed, so that the translator
    /// can keep one copy of each.
    package var joins: [String]
    /// The attribute's type when the key path ends at an attribute (nil for a to-one relationship's key).
    package var type: AttributeType?

    package init(sql: String, joins: [String] = [], type: AttributeType? = nil) {
        self.sql = sql
        self.joins = joins
        self.type = type
    }
}
