import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

/// Core Data's own SQLite layout (`NSSQLiteStoreType`), so that Instar reads, creates and migrates the
/// stores an Apple app ships, and Core Data opens the result (`shared/coredata/FORMAT.md` §1):
///
/// - entities are numbered 1…n: roots in name order, each followed by its sub-entities depth-first,
///   siblings in name order (`Z_ENT`); adding or renaming an entity renumbers the ones after it;
/// - one table `Z<ROOT>` per root entity (ASCII-uppercased) with `Z_PK INTEGER PRIMARY KEY`, `Z_ENT`
///   (the discriminator, always present) and `Z_OPT` (optimistic-locking counter, kept by migrations);
/// - a column `Z<NAME>` per attribute and to-one relationship; the names of a hierarchy share one
///   registry (root first, then sub-entities in entity order), a clash takes a suffix `1`, `2`, …;
/// - declared types `INTEGER` (integers, Booleans, keys), `FLOAT` (Double, Float), `TIMESTAMP` (dates, as
///   seconds since 2001-01-01), `DECIMAL`, `VARCHAR` (String, URI), `BLOB` (Binary, Transformable, UUID);
///   no `NOT NULL`, no `DEFAULT`, no `REFERENCES`: Core Data checks all that itself;
/// - a to-one's key `Z<REL>`, plus `Z<n>_<REL>` holding the destination row's `Z_ENT` when the
///   destination `n` has sub-entities; `Z_FOK_<INVERSE>` beside the key for an ordered one-to-many;
/// - many-to-many join tables `Z_<e><REL>` with columns `Z_<e><INVERSE>` / `Z_<d><REL>`, a composite key,
///   `Z_FOK_…` columns for ordered sides, and an index on the second column;
/// - indexes `<T>_Z_ENT_INDEX` (several entities in the table), `<T>_<KEY>_INDEX` per to-one key, and the
///   model's indexes and uniqueness constraints in the form of the framework version (below);
/// - bookkeeping `Z_PRIMARYKEY` (entity numbers, names, parents, highest key per root), `Z_METADATA` (the
///   metadata property list: hashes, identifiers, digest, checksum, and the app's own keys, kept),
///   `Z_MODELCACHE`.
///
/// **Framework versions.** Core Data's conventions changed over the years; a layout carries the
/// `NSPersistenceFrameworkVersion` it follows. A store opened from disk is continued in the conventions
/// of the version recorded in it (``adapted(to:)``), so a store Instar migrates looks like one that
/// framework migrated. The differences the corpus shows:
/// - before 600 (seen: 419, 479; 637 has them) join tables have no index and there is no `Z_MODELCACHE`;
/// - before 800 (seen up to 754; 1044 has the newer form) indexed attributes get `<T>_<COL>_INDEX`, compound
///   indexes `<T>_<COL1>_<COL2>`, and uniqueness constraints are `UNIQUE` table constraints; from then on
///   all three are fetch indexes `Z_<Entity>_<name>` (uniqueness: `UNIQUE` indexes `Z_<Entity>_UNIQUE_<a>_<b>`).
///   The cut-over points between observed versions are inferred (Xcode 9 introduced fetch indexes).
///
/// **`Z_MODELCACHE`.** Core Data (framework 600 on) keeps there an archived copy of the model that last
/// wrote the store (`NSKeyedArchiver`, the `.mom` format, raw DEFLATE); it migrates from it when the
/// store's model is no longer bundled with the app. Instar writes the target version's model there in the
/// transaction that records the version (InstarStore's `ModelCacheWriter`), checked by decoding it back to
/// the version's hashes; a model the writer cannot express leaves the row the store had, and the run says so.
@_spi(Layouts) public struct CoreDataLayout: StorageLayout {
    /// `coredata`, the name every framework version's layout has.
    @_spi(Layouts) public static let layoutName = LayoutName.coreData(frameworkVersion: nil).description
    @_spi(Layouts) public var name: String { Self.layoutName }
    /// The `NSPersistenceFrameworkVersion` whose conventions the layout follows.
    @_spi(Layouts) public let frameworkVersion: Int
    /// Tables of the store this layout was adapted to (folded names): a join table between two
    /// relationships of one entity may carry either relationship's name in real stores, and the one
    /// the store has wins — for the version the store is at only (``storeEntityHashes``): a version a
    /// migration writes gets the name Core Data gives it, or Core Data at that version would look for
    /// a table that does not exist.
    let storeTables: Set<String>
    /// The entity hashes recorded in the store this layout was adapted to (nil: none recorded, and
    /// every version reads the store's names).
    let storeEntityHashes: [String: Data]?
    /// ``storeTables`` as part of a cache key, made once (storage maps are asked for on hot paths).
    private let storeTablesKey: String

    /// The version new stores claim by default: a recent one (macOS 15 / iOS 18 era).
    @_spi(Layouts) public static let defaultFrameworkVersion = 1448
    /// Join-table indexes and `Z_MODELCACHE` appear between 479 and 637.
    static let joinIndexesSince = 600
    /// Fetch-index naming (and unique indexes for uniqueness constraints) appears between 754 and 1044.
    static let fetchIndexesSince = 800

    /// Core Data's table of each entity's highest primary key (`Z_MAX`), which new rows continue from.
    @_spi(Layouts) public static let primaryKeyTable = "Z_PRIMARYKEY"
    /// Core Data's one-row table with the store's UUID and metadata dictionary.
    @_spi(Layouts) public static let metadataTable = "Z_METADATA"
    /// Core Data's cache of the compiled model that wrote the store (newer framework versions only).
    @_spi(Layouts) public static let modelCacheTable = "Z_MODELCACHE"

    /// A layout for stores as the given Core Data version writes them (index naming and bookkeeping
    /// differ between versions); an opened store adapts it to what the store has.
    @_spi(Layouts) public init(frameworkVersion: Int = CoreDataLayout.defaultFrameworkVersion) {
        self.init(frameworkVersion: frameworkVersion, storeTables: [], storeEntityHashes: nil)
    }

    package init(frameworkVersion: Int, storeTables: Set<String>, storeEntityHashes: [String: Data]?) {
        self.frameworkVersion = frameworkVersion
        self.storeTables = storeTables
        self.storeEntityHashes = storeEntityHashes
        storeTablesKey = storeTables.sorted().joined(separator: ",")
    }

    /// Whether `model` is the version the adapted store is at, so its storage follows the store's
    /// table names where Core Data's have varied.
    func followsStoreNames(of model: Model) -> Bool {
        guard !storeTables.isEmpty else { return false }
        guard let storeEntityHashes, !storeEntityHashes.isEmpty else { return true }
        return model.versionHashes.entityHashes == storeEntityHashes
    }

    var indexesJoinTables: Bool { frameworkVersion >= Self.joinIndexesSince }
    var usesFetchIndexes: Bool { frameworkVersion >= Self.fetchIndexesSince }
    package var keepsModelCache: Bool { frameworkVersion >= Self.joinIndexesSince }

    @_spi(Layouts) public var toleratesExtraIndexes: Bool { true }

    /// Core Data opens these stores too: a finished run removes Instar's journal and lease tables.
    @_spi(Layouts) public var keepsMigrationJournal: Bool { false }

    @_spi(Layouts) public func storageMap(for model: Model) throws(LayoutError) -> StorageMap {
        try model.derived(storageMapKey(for: model)) { () throws(LayoutError) in try buildStorageMap(for: model) }
    }

    /// The map the model keeps when it has one, else one built and not kept: `plan` with this layout
    /// on 1,000 versions kept every version's map in its model (235 MB, where the Instar layout's,
    /// priced through the planner's own window of maps, took 114 MB).
    @_spi(Layouts) public func storageMapNotKept(for model: Model) throws(LayoutError) -> StorageMap {
        if let kept: StorageMap = model.derivedIfKept(storageMapKey(for: model)) { return kept }
        return try buildStorageMap(for: model)
    }

    /// The map depends on the model and the framework version, and for the store's own version on the
    /// store's table names.
    private func storageMapKey(for model: Model) -> String {
        let tables = followsStoreNames(of: model) ? ":" + storeTablesKey : ""
        return "coredata.storageMap:\(frameworkVersion)\(tables)"
    }

    private func buildStorageMap(for model: Model) throws(LayoutError) -> StorageMap {
        try NamingKeyRefusal.check(model, layout: name)
        var builder = CoreDataStorageBuilder(model: model, layout: self)
        return try builder.build()
    }

    /// Entity numbers of a model version, in `Z_ENT` order: `(number, entity, parent's number or 0)`.
    @_spi(Layouts) public func entityNumbers(for model: Model) -> [(number: Int, entity: String, parent: Int)] {
        let order = CoreDataStorageBuilder.numbering(model)
        let numbers = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0 + 1) })
        return order.enumerated().map { index, name in
            (index + 1, name, model.entity(named: name)?.parent.flatMap { numbers[$0] } ?? 0)
        }
    }

    @_spi(Layouts) public func isBookkeepingTable(_ name: String) -> Bool {
        if [Self.primaryKeyTable, Self.metadataTable, Self.modelCacheTable].contains(name) { return true }
        // Instar's own journal and lease; Core Data's history-tracking and CloudKit tables (`A…`) and
        // R-tree index tables are Core Data's business, not the model's.
        if name.hasPrefix("_instar_") || name.hasPrefix("Z_RT_") || name.hasPrefix("ANSCK") { return true }
        return ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"].contains(name)
    }

    /// Numbers and Booleans as Core Data converts them; a Binary value that may now be stored externally
    /// takes the `0x01` tag of an inline value (Core Data's `_prependExternalBlobToken:`, FORMAT.md §1.12).
    @_spi(Layouts) public func convert(_ value: ColumnValueExpression, from: Attribute, to: Attribute) -> ColumnValueExpression {
        if to.type == .binary, to.allowsExternalBinaryDataStorage, !from.allowsExternalBinaryDataStorage,
            from.type == .binary || from.type == .transformable
        {
            return .prefixed(value, Data([0x01]))
        }
        return ValueConversion.convert(value, from: from.type, to: to.type)
    }

    @_spi(Layouts) public var valueEncoding: ValueEncoding { .coreData }

    /// As the layout stores values (``ValueEncoding/storedDefault(of:)``).
    @_spi(Layouts) public func storedDefault(of attribute: Attribute) -> SQLValue? { valueEncoding.storedDefault(of: attribute) }

    /// The declared column type of an attribute, or nil when it is not stored.
    func columnType(of attribute: Attribute, entity: String) throws(LayoutError) -> String? {
        switch attribute.type {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .double, .float: return "FLOAT"
        case .date: return "TIMESTAMP"
        case .decimal: return "DECIMAL"
        case .string, .uri: return "VARCHAR"
        case .binary, .transformable, .uuid: return "BLOB"
        case .objectID, .undefined: return nil
        case .composite:
            throw LayoutError(
                layout: name, entity: entity, property: attribute.name, .compositeAttribute)
        }
    }
}

extension String {
    /// Core Data's uppercasing of names: `toupper` on each UTF-16 unit, so only ASCII letters change.
    var coreDataUppercased: String {
        String(decoding: utf16.map { $0 >= 97 && $0 <= 122 ? $0 - 32 : $0 }, as: UTF16.self)
    }
}
