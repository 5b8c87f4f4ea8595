/// One attribute of an entity, with every detail that affects storage, version identity or migration.
public struct Attribute: Sendable, Hashable, Codable {
    /// The attribute's name in this version (its column name too, unless `stored` says otherwise).
    public var name: String
    /// The value type; changing it between versions needs a type transformation or a hook.
    public var type: AttributeType
    /// Whether the value may be nil. Making an attribute required needs a default for existing rows.
    public var isOptional: Bool
    /// Transient attributes are never stored and are left out of the entity's version hash.
    public var isTransient: Bool
    /// Core Data's read-only flag; it is part of the property hash (bit 2).
    public var isReadOnly: Bool
    /// The default as written in the model (`defaultValueString`); interpreted per type by the store layer.
    public var defaultValue: String?
    /// The name this attribute had in an earlier version (Xcode's "Renaming ID", XML `elementID`).
    public var renamingIdentifier: String?
    /// Free text that changes the version hash without changing the schema.
    public var versionHashModifier: String?
    /// Core Data's "Allows External Storage": large binary values may live in files beside the store.
    public var allowsExternalBinaryDataStorage: Bool
    /// Core Data's "Preserve After Deletion": the value stays in persistent history as a tombstone.
    public var preservesValueInHistoryOnDeletion: Bool
    /// Legacy per-attribute index flag (`indexed="YES"`); compiled into a fetch index by the layouts.
    public var isIndexed: Bool
    /// `userInfo` entries; Core Data reads `NSMigrationAllowTypeTransformation` from here.
    public var userInfo: [String: String]
    /// Naming keys of the `sql` layout: the column's name and declared type. Not hashed.
    @_spi(Layouts) public var stored = StoredNames.Column()
    /// The named sub-values of a ``AttributeType/composite`` attribute (Core Data's
    /// `NSCompositeAttributeDescription.elements`, Xcode's `<compositeAttribute>`), empty for every other
    /// type. SwiftData stores enums and Codable structs this way; the elements, not the composite's own
    /// name or flags, make up its version hash (see `VersionHashes`).
    public var elements: [Attribute] = []
    /// Sample values for `instar store seed` and `instar test`, for text whose structure the app's
    /// hooks parse (JSON, URLs of a known form): seeded rows take these instead of arbitrary text. Not
    /// hashed, not stored; model files only (`seedValues:`).
    @_spi(Layouts) public var seedValues: [String] = []

    /// Creates an attribute; the defaults are those of a new attribute in Xcode (optional, stored, not indexed).
    public init(
        name: String,
        type: AttributeType,
        isOptional: Bool = true,
        isTransient: Bool = false,
        isReadOnly: Bool = false,
        defaultValue: String? = nil,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        allowsExternalBinaryDataStorage: Bool = false,
        preservesValueInHistoryOnDeletion: Bool = false,
        isIndexed: Bool = false,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isReadOnly = isReadOnly
        self.defaultValue = defaultValue
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        self.isIndexed = isIndexed
        self.userInfo = userInfo
    }

    /// The identity used to match this attribute across versions: its renaming identifier, else its name.
    @_spi(Layouts) public var canonicalName: String { renamingIdentifier ?? name }
}
