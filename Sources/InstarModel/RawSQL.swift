/// A schema object that a model cannot express (a view, a trigger, a table WITHOUT ROWID or with a generated column,
/// a composite key, an index with an expression or a WHERE clause), kept verbatim
/// so that a model imported from an existing database still describes all of it.
///
/// The `sql` layout creates these objects with the store and expects them in its schema, exactly as
/// written. Migrations carry them across unchanged: no step ever writes to a raw table, and views
/// and triggers are dropped before a step and recreated after it. A step that changes one (a
/// version whose raw SQL differs from the previous version's) or that removes a table a raw object
/// needs cannot be inferred: it needs a hook.
public struct RawSQL: Sendable, Hashable, Codable {
    /// The kind of schema object, as `sqlite_master.type` names it.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case table, index, view, trigger
    }

    /// What kind of object it is.
    public var kind: Kind
    /// The object's name in the database (`sqlite_master.name`).
    public var name: String
    /// The table the object belongs to (an index's or a trigger's table; a view's or table's own name).
    public var table: String
    /// The statement, exactly as `sqlite_master.sql` holds it.
    public var sql: String
    /// Why the model could not express it, for people reading the model file.
    public var reason: String?

    /// Keeps a schema object; `sql` must be the statement that creates it.
    public init(kind: Kind, name: String, table: String, sql: String, reason: String? = nil) {
        self.kind = kind
        self.name = name
        self.table = table
        self.sql = sql
        self.reason = reason
    }
}
