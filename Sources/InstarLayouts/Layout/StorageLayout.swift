import InstarModel
import InstarSQL

/// How a layout stores model versions in SQLite tables, without touching a database: the storage map
/// of a version, value conversions and encodings, which tables are its own. The step compiler and the
/// planner need only this; ``StoreLayout`` (in the store) adds reading and writing a store's bookkeeping.
public protocol StorageLayout: Sendable {
    /// The layout's name in reports and metadata: `instar`, `coredata`.
    var name: String { get }

    /// Tables, columns and indexes of a store of `model`, and where each entity and link lives.
    func storageMap(for model: Model) throws(LayoutError) -> StorageMap

    /// Tables the layout keeps for itself (metadata, journal), left out of schema comparisons.
    func isBookkeepingTable(_ name: String) -> Bool

    /// An expression converting a stored value of `from` into the storage of `to` (a type change the
    /// inference accepted: numbers and Booleans, or Binary ↔ Transformable).
    func convert(_ value: ColumnValueExpression, from: Attribute, to: Attribute) -> ColumnValueExpression

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
}

extension StorageLayout {
    /// False: an app may keep views and triggers of its own in a store its model describes; they are
    /// recreated around each step but are not drift. The plain SQL layout's models list them
    /// (``RawSQL``), so there an unlisted one is drift.
    public var schemaIncludesViewsAndTriggers: Bool { false }

    /// Whether a finished migration leaves its journal in the store (for `instar status`). Layouts
    /// that another framework also opens (Core Data) get no extra tables once a run has finished.
    public var keepsMigrationJournal: Bool { true }
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
