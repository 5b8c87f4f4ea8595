import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

/// The layout of hand-written SQL schemas, so that Instar can adopt an existing store that was never
/// made by Instar or Core Data and migrate it with a plan (`layout: sql`).
///
/// - one table per entity, named exactly as the entity is written in the model (write lowercase entity
///   names for lowercase tables), with `id INTEGER PRIMARY KEY`;
/// - one column per attribute, named as the attribute; required attributes are `NOT NULL`;
/// - a to-one relationship is a column `<relationship>_id INTEGER REFERENCES <table>(id)` (no `ON DELETE`
///   clause, no index: hand-written schemas rarely have either);
/// - column order: attributes in declaration order, then the foreign keys, then the attributes marked
///   `userInfo: {sqlColumn: appended}`: a column that was added later with `ALTER TABLE … ADD COLUMN`
///   sits after the foreign keys in a real store, and a rebuild keeps it there (the comparison of a
///   store with a version ignores column order; only a rebuilt table's order follows this rule);
/// - an ordered one-to-many keeps positions in `<inverse>_position` beside the foreign key;
/// - a many-to-many (or a to-many without inverse) is a join table `<tableA>_<tableB>`, A being the side
///   whose entity is declared first in the model (the owner, as people name link tables: `track_artist`),
///   with columns `<tableA>_id`, `<tableB>_id` (`NOT NULL REFERENCES`), `PRIMARY KEY (a, b)` and an index
///   `<jointable>_<tableB>_idx` on the second column;
/// - a uniqueness constraint on one property is a column `UNIQUE`; on several, a `UNIQUE (a, b)` table
///   constraint; declared fetch indexes are `<table>_<index>_idx`, indexed attributes `<table>_<attr>_idx`;
/// - types: integers and Booleans `INTEGER`, Double/Float `REAL`, Decimal `NUMERIC`, String/URI/UUID
///   `TEXT`, dates `REAL` (seconds since 1970, as most hand-written stores keep them), Binary and
///   Transformable `BLOB`.
///
/// **Naming keys and raw SQL.** These are the conventions; a model imported from an existing database
/// (``SchemaImporter``, `instar model import`) overrides them wherever the database differs, with the
/// naming keys of ``StoredNames`` (`table:`, `primaryKey:`, `column:`, `columnType:`, `joinTable:`,
/// `name:`), resolved in ``PlainSQLNames``: a name given by a key is used exactly, and a collision is
/// an error at the key's `file:line:column`. What no model can express is kept verbatim (``RawSQL``):
/// created with the store, compared by its SQL, carried across steps (``RawSQLSteps``).
///
/// **No bookkeeping in the store.** An adopted store gets no table of Instar's: another program owns
/// the schema and may check it exactly (the peer benchmark's `verify.py` rejects any extra table). So
/// the layout records no metadata: a store's version is always found by comparing its schema with the
/// plan's versions (``SQLiteStore/detectVersion(among:)`` falls back to that), and the journal and lease
/// of a run are removed when it finishes (``keepsMigrationJournal`` is false). The trade-offs: versions
/// whose schemas are identical (a change of a hash modifier or of a delete rule only) cannot be told
/// apart (the earliest matching one is taken), a store cannot be migrated without the file of its
/// current version, and `instar status` has nothing to show once a run has finished.
///
/// Entity inheritance is not supported (hand-written schemas have no discriminator convention); such a
/// model is refused with an explanation. The layout is chosen by name, never detected: it leaves no mark
/// in the store to detect it by.
@_spi(Layouts) public struct PlainSQLLayout: StorageLayout {
    @_spi(Layouts) public var name: String { LayoutName.plainSQL.description }
    /// The conventional primary key column (`id`); a model's `primaryKey:` naming key may override it.
    @_spi(Layouts) public static let primaryKey = "id"
    /// `userInfo` key of an attribute whose column follows the foreign keys (added by `ALTER TABLE`).
    @_spi(Layouts) public static let columnPositionKey = "sqlColumn"
    /// The value of ``columnPositionKey`` that puts the column after the foreign keys.
    @_spi(Layouts) public static let appendedValue = "appended"

    /// The layout; it has no options (a model's naming keys say where a store differs).
    @_spi(Layouts) public init() {}

    @_spi(Layouts) public var toleratesExtraIndexes: Bool { false }

    @_spi(Layouts) public var keepsMigrationJournal: Bool { false }

    /// An adopted database's views and triggers are part of its schema: its model lists them as raw SQL.
    @_spi(Layouts) public var schemaIncludesViewsAndTriggers: Bool { true }

    @_spi(Layouts) public func storageMap(for model: Model) throws(LayoutError) -> StorageMap {
        var builder = PlainSQLStorageBuilder(model: model, layout: self)
        return try builder.build()
    }

    /// Only a running migration's journal and lease (`_instar_…`), removed when the run finishes.
    @_spi(Layouts) public func isBookkeepingTable(_ name: String) -> Bool { name.hasPrefix("_instar_") }

    @_spi(Layouts) public func convert(_ value: ColumnValueExpression, from: Attribute, to: Attribute) -> ColumnValueExpression {
        ValueConversion.convert(value, from: from.type, to: to.type)
    }

    @_spi(Layouts) public var valueEncoding: ValueEncoding { .plainSQL }

    /// As the layout stores values (``ValueEncoding/storedDefault(of:)``).
    @_spi(Layouts) public func storedDefault(of attribute: Attribute) -> SQLValue? { valueEncoding.storedDefault(of: attribute) }

    /// The declared column type of an attribute, or nil when it is not stored.
    package func columnType(of attribute: Attribute, entity: String) throws(LayoutError) -> ColumnType? {
        switch attribute.type {
        case .integer16, .integer32, .integer64, .boolean: return .integer
        case .double, .float, .date: return .real
        case .decimal: return .numeric
        case .string, .uri, .uuid: return .text
        case .binary, .transformable: return .blob
        case .objectID, .undefined: return nil
        case .composite:
            throw LayoutError(
                layout: name, entity: entity, property: attribute.name, .compositeAttribute)
        }
    }
}
