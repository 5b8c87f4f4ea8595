import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

/// Instar's own layout, meant to be read by people and other tools.
///
/// - one table per root entity, named after it, with an integer primary key `_pk`;
/// - a discriminator column `_entity` (the entity name) when the root has sub-entities;
/// - one column per attribute, named after it (a sibling's clash becomes `Entity_name`);
/// - a foreign-key column per to-one relationship, named after it, `REFERENCES` the destination's table
///   `ON DELETE SET NULL`;
/// - for an ordered to-many whose inverse is to-one, a position column `<inverse>_position` beside the
///   foreign key;
/// - a join table `<Entity>_<relationship>` for every other to-many (many-to-many, or no inverse), with
///   one column per side named after the relationship leading to it and `ON DELETE CASCADE`;
/// - indexes for foreign keys, the discriminator, uniqueness constraints (unique indexes) and declared
///   indexes;
/// - a metadata table `_instar_metadata` with the version name, entity hashes and checksum.
///
/// Dates are stored as ISO-8601 text in UTC, Booleans as 0/1, UUIDs as text, binary data as blobs.
/// A required attribute declared on the root entity is `NOT NULL`; one declared on a sub-entity cannot
/// be, since sibling rows share the column.
@_spi(Layouts) public struct InstarLayout: StorageLayout {
    @_spi(Layouts) public var name: String { LayoutName.instar.description }
    /// The layout's bookkeeping table: version name, entity hashes, checksum and the stored model.
    @_spi(Layouts) public static let metadataTable = "_instar_metadata"
    /// The integer primary key column of every entity table (`_pk`).
    @_spi(Layouts) public static let primaryKey = "_pk"
    /// The column naming each row's entity (`_entity`), in tables of a root with sub-entities.
    @_spi(Layouts) public static let discriminator = "_entity"
    /// Current version of the layout's own conventions, recorded in the metadata.
    @_spi(Layouts) public static let formatVersion = "1"

    /// The layout; it has no options.
    @_spi(Layouts) public init() {}

    @_spi(Layouts) public var toleratesExtraIndexes: Bool { false }

    @_spi(Layouts) public func storageMap(for model: Model) throws(LayoutError) -> StorageMap {
        try NamingKeyRefusal.check(model, layout: name)
        var builder = InstarStorageBuilder(model: model, layout: self)
        return try builder.build()
    }

    @_spi(Layouts) public func isBookkeepingTable(_ name: String) -> Bool { name.hasPrefix("_instar_") }

    @_spi(Layouts) public func convert(_ value: ColumnValueExpression, from: Attribute, to: Attribute) -> ColumnValueExpression {
        ValueConversion.convert(value, from: from.type, to: to.type)
    }

    @_spi(Layouts) public var valueEncoding: ValueEncoding { .instar }

    /// As the layout stores values (``ValueEncoding/storedDefault(of:)``).
    @_spi(Layouts) public func storedDefault(of attribute: Attribute) -> SQLValue? { valueEncoding.storedDefault(of: attribute) }

    /// The declared column type of an attribute, or nil when it is not stored.
    func columnType(of attribute: Attribute) throws(LayoutError) -> ColumnType? {
        switch attribute.type {
        case .integer16, .integer32, .integer64, .boolean: return .integer
        case .double, .float: return .real
        case .decimal: return .numeric
        case .string, .uri, .uuid, .date: return .text
        case .binary, .transformable: return .blob
        case .objectID, .undefined: return nil
        case .composite:
            throw LayoutError(
                layout: name, property: attribute.name, .compositeAttribute)
        }
    }
}
