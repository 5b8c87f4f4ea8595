import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// A way of storing model versions in SQLite. Layouts are plug-ins: the store, the step compiler
/// and the executor talk to this protocol and never ask which layout they have. What needs no
/// database (storage maps, conversions, encodings) is ``StorageLayout``; this adds a store's bookkeeping.
@_spi(Layouts) public protocol StoreLayout: StorageLayout {
    /// True when the database looks like a store of this layout (its metadata table exists).
    func recognizes(_ db: Database) throws -> Bool

    /// Creates the bookkeeping tables of an empty store.
    func createBookkeeping(_ db: Database, model: Model) throws

    /// What the store says about its version, or nil when it says nothing.
    func readMetadata(_ db: Database) throws -> StoreMetadata?

    /// Records that the store is now at `model`'s version (called inside the step's transaction).
    func writeMetadata(_ db: Database, model: Model) throws

    /// This layout as an existing store of it asks to be continued (Core Data: the conventions of the
    /// framework version recorded in the store); the layout itself by default.
    func adapted(to db: Database) throws -> any StoreLayout
}

extension StoreLayout {
    @_spi(Layouts) public func adapted(to db: Database) throws -> any StoreLayout { self }
}

/// What a store records about its own version.
@_spi(Layouts) public struct StoreMetadata: Sendable, Hashable {
    /// The name of the layout that wrote it.
    @_spi(Layouts) public var layout: String
    /// The version name, when the layout records it.
    @_spi(Layouts) public var versionName: String?
    /// Entity name → version hash.
    @_spi(Layouts) public var entityHashes: [String: Data]
    /// The version checksum (Core Data's), recorded or derived from the hashes; nil when unknown.
    @_spi(Layouts) public var versionChecksum: String?
    /// The model the store was created or last migrated with, as an Instar model file (JSON), when the
    /// layout keeps one: it lets a store be migrated without the file of its current version.
    @_spi(Layouts) public var storedModel: String?
    /// The version identifiers the writing model declared (Core Data's `NSStoreModelVersionIdentifiers`,
    /// Xcode's "Identifier" field of each merged model), when the layout records them. Versions that
    /// differ only in what Core Data does not hash share their entity hashes; these name the one written.
    @_spi(Layouts) public var versionIdentifiers: [String]?

    /// Metadata as a layout read it (layouts build these in ``StoreLayout/readMetadata(_:)``).
    @_spi(Layouts) public init(
        layout: String, versionName: String?, entityHashes: [String: Data], versionChecksum: String?,
        storedModel: String? = nil, versionIdentifiers: [String]? = nil
    ) {
        self.layout = layout
        self.versionName = versionName
        self.entityHashes = entityHashes
        self.versionChecksum = versionChecksum
        self.storedModel = storedModel
        self.versionIdentifiers = versionIdentifiers
    }
}
