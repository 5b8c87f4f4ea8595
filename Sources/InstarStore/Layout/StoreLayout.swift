import Foundation
import GRDB
import InstarModel
import InstarSQL

/// A way of storing model versions in SQLite. Layouts are plug-ins: the store, the step compiler
/// and the executor talk to this protocol and never ask which layout they have.
public protocol StoreLayout: Sendable {
    /// The layout's name in reports and metadata: `instar`, `coredata`.
    var name: String { get }

    /// Tables, columns and indexes of a store of `model`, and where each entity and link lives.
    func storageMap(for model: Model) throws(LayoutError) -> StorageMap

    /// Tables the layout keeps for itself (metadata, journal), left out of schema comparisons.
    func isBookkeepingTable(_ name: String) -> Bool

    /// True when the database looks like a store of this layout (its metadata table exists).
    func recognizes(_ db: Database) throws -> Bool

    /// Creates the bookkeeping tables of an empty store.
    func createBookkeeping(_ db: Database, model: Model) throws

    /// What the store says about its version, or nil when it says nothing.
    func readMetadata(_ db: Database) throws -> StoreMetadata?

    /// Records that the store is now at `model`'s version (called inside the step's transaction).
    func writeMetadata(_ db: Database, model: Model) throws

    /// An expression converting a stored value of `from` into the storage of `to` (a type change the
    /// inference accepted: numbers and Booleans, or Binary ↔ Transformable).
    func convert(_ value: ColumnExpression, from: Attribute, to: Attribute) -> ColumnExpression

    /// The stored form of an attribute's default, or nil when it has none.
    func storedDefault(of attribute: Attribute) -> SQLValue?

    /// How this layout stores dates and UUIDs, for everything that writes or converts values.
    var valueEncoding: ValueEncoding { get }

    /// True when indexes beyond the expected ones are not drift (Core Data leaves stale ones behind).
    var toleratesExtraIndexes: Bool { get }

    /// Whether a finished migration leaves its journal in the store (see the extension's default).
    var keepsMigrationJournal: Bool { get }

    /// Whether views and triggers are part of a version's schema (see the extension's default).
    var schemaIncludesViewsAndTriggers: Bool { get }

    /// This layout as an existing store of it asks to be continued (Core Data: the conventions of the
    /// framework version recorded in the store); the layout itself by default.
    func adapted(to db: Database) throws -> any StoreLayout
}

extension StoreLayout {
    public func adapted(to db: Database) throws -> any StoreLayout { self }

    /// False: an app may keep views and triggers of its own in a store its model describes; they are
    /// recreated around each step but are not drift. The plain SQL layout's models list them
    /// (``RawSQL``), so there an unlisted one is drift.
    public var schemaIncludesViewsAndTriggers: Bool { false }

    /// Whether a finished migration leaves its journal in the store (for `instar status`). Layouts
    /// that another framework also opens (Core Data) get no extra tables once a run has finished.
    public var keepsMigrationJournal: Bool { true }
}

/// What a store records about its own version.
public struct StoreMetadata: Sendable, Hashable {
    /// The name of the layout that wrote it.
    public var layout: String
    /// The version name, when the layout records it.
    public var versionName: String?
    /// Entity name → version hash.
    public var entityHashes: [String: Data]
    /// The version checksum (Core Data's), recorded or derived from the hashes; nil when unknown.
    public var versionChecksum: String?
    /// The model the store was created or last migrated with, as an Instar model file (JSON), when the
    /// layout keeps one: it lets a store be migrated without the file of its current version.
    public var storedModel: String?
    /// The version identifiers the writing model declared (Core Data's `NSStoreModelVersionIdentifiers`,
    /// Xcode's "Identifier" field of each merged model), when the layout records them. Versions that
    /// differ only in what Core Data does not hash share their entity hashes; these name the one written.
    public var versionIdentifiers: [String]?

    /// Metadata as a layout read it (layouts build these in ``StoreLayout/readMetadata(_:)``).
    public init(
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

/// A model that a layout cannot store.
public struct LayoutError: InstarError, CustomStringConvertible {
    /// The layout's name.
    public var layout: String
    /// The entity that cannot be stored, when it is one entity.
    public var entity: String?
    /// The property that cannot be stored, when it is one property.
    public var property: String?
    /// What cannot be stored, and why.
    public var message: String
    /// Where the model says what cannot be stored (a naming key that collides), when known.
    public var location: SourceLocation?

    /// Makes the error; narrow it with `entity`, `property` and `location` where they are known.
    public init(
        layout: String, entity: String? = nil, property: String? = nil, message: String, location: SourceLocation? = nil
    ) {
        self.layout = layout
        self.entity = entity
        self.property = property
        self.message = message
        self.location = location
    }

    public var description: String {
        if let location { return "\(location): " + plainDescription }
        return plainDescription
    }

    private var plainDescription: String {
        var subject: [String] = []
        if let entity { subject.append("entity '\(entity)'") }
        if let property { subject.append("property '\(property)'") }
        return "the \(layout) layout cannot store " + (subject.isEmpty ? "" : subject.joined(separator: ", ") + ": ") + message
    }
}
