@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

/// How a layout stores model versions in SQLite tables, without touching a database: the storage map
/// of a version, value conversions and encodings, which tables are its own. The step compiler and the
/// planner need only this; ``StoreLayout`` (in the store) adds reading and writing a store's bookkeeping.
@_spi(Layouts) public protocol StorageLayout: Sendable {
    /// The layout's name in reports and metadata: `instar`, `coredata`.
    var name: String { get }

    /// Tables, columns and indexes of a store of `model`, and where each entity and link lives.
    func storageMap(for model: Model) throws(LayoutError) -> StorageMap

    /// ``storageMap(for:)`` for a caller that keeps the maps it needs itself (the planner, which prices
    /// steps across a whole history a window at a time): a layout that keeps each model's map in the
    /// model does not keep this one there. The default is ``storageMap(for:)``.
    func storageMapNotKept(for model: Model) throws(LayoutError) -> StorageMap

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
    @_spi(Layouts) public func storageMapNotKept(for model: Model) throws(LayoutError) -> StorageMap {
        try storageMap(for: model)
    }

    /// False: an app may keep views and triggers of its own in a store its model describes; they are
    /// recreated around each step but are not drift. The plain SQL layout's models list them
    /// (``RawSQL``), so there an unlisted one is drift.
    @_spi(Layouts) public var schemaIncludesViewsAndTriggers: Bool { false }

    /// Whether a finished migration leaves its journal in the store (for `instar status`). Layouts
    /// that another framework also opens (Core Data) get no extra tables once a run has finished.
    @_spi(Layouts) public var keepsMigrationJournal: Bool { true }
}

/// A model that a layout cannot store: which layout, entity and property, and why, as values
/// (``Reason``); ``description`` is the one place it becomes words.
public struct LayoutError: InstarError, Hashable {
    /// Why the layout cannot store the model.
    public enum Reason: Sendable, Hashable {
        /// A composite attribute: the layout has no columns for one yet (split it into its elements).
        case compositeAttribute
        /// A sub-entity of `parent`: the layout has no discriminator convention (the `sql` layout, for
        /// hand-written schemas); the `instar` layout stores hierarchies.
        case subEntity(parent: String)
        /// A raw table or index (``RawSQL``) has the name of another raw table or index.
        case rawNameTaken(RawSQL.Kind, name: String)
        /// `name` collides with another name (SQLite compares names without case).
        case nameCollision(name: String, with: NameClash)
        /// A naming key (`StoredNames`: `table`, `column`, `raw`, …) only the `sql` layout honours;
        /// this layout names its tables and columns itself.
        case namingKey(String)
    }

    /// What a name collides with.
    public enum NameClash: Sendable, Hashable {
        /// The name the model gives elsewhere, by its key (`Entity#table`), where it is written when known.
        case explicitName(key: String, at: SourceLocation?)
        /// Another table or index.
        case tableOrIndex
        /// The table the layout names after `entity`.
        case conventionalTable(entity: String)
        /// The column the layout gives `property` by its convention (`conventional`).
        case conventionalColumn(String, property: String)
        /// Another column of its table.
        case column
        /// The join table's other column.
        case joinTableColumn
    }

    /// The layout's name.
    public var layout: String
    /// The entity that cannot be stored, when it is one entity.
    public var entity: String?
    /// The property that cannot be stored, when it is one property.
    public var property: String?
    /// Why it cannot be stored.
    public var reason: Reason
    /// Where the model says what cannot be stored (a naming key that collides), when known.
    public var location: SourceLocation?

    /// Makes the error; narrow it with `entity`, `property` and `location` where they are known.
    @_spi(Layouts) public init(
        layout: String, entity: String? = nil, property: String? = nil, _ reason: Reason, location: SourceLocation? = nil
    ) {
        self.layout = layout
        self.entity = entity
        self.property = property
        self.reason = reason
        self.location = location
    }

    /// What cannot be stored and why, in words (``description`` adds the layout, subject and location).
    public var message: String {
        switch reason {
        case .compositeAttribute:
            return "composite attributes are not supported yet; split the attribute into its elements"
        case .subEntity(let parent):
            return "sub-entities are not supported (a hand-written schema has no discriminator convention); give '\(entity ?? "")' "
                + "its own properties instead of the parent '\(parent)', or use the instar layout"
        case .rawNameTaken(let kind, let name):
            return "the raw \(kind.rawValue) '\(name)' is also the name of another raw table or index"
        case .nameCollision(let name, let clash):
            let other: String
            switch clash {
            case .explicitName(let key, let at): other = "the name given at \(at?.description ?? key)"
            case .tableOrIndex: other = "another table or index"
            case .conventionalTable(let entity): other = "the table the layout names after '\(entity)'"
            case .conventionalColumn(let column, let property): other = "the column '\(column)' the layout gives '\(property)'"
            case .column: other = "another column of its table"
            case .joinTableColumn: other = "the join table's other column"
            }
            return "the name '\(name)' collides with \(other) (SQLite compares names without case)"
        case .namingKey(let key):
            return "the naming key '\(key)' only has a meaning in the sql layout (the \(layout) layout names its tables and columns itself); use layout sql for a model with naming keys, or remove the key"
        }
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
