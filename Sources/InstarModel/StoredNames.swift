/// Naming keys: where the `sql` layout keeps a model's things when their names or SQL types differ
/// from the layout's conventions (an adopted database names things as it pleases: `TrackId`,
/// `auth_user`, `varchar(40)`).
///
/// Model files spell them `table:`/`primaryKey:` on an entity, `column:`/`columnType:` on an
/// attribute or to-one relationship, `joinTable: {name, columns}` on a many-to-many, `name:` on an
/// index or a uniqueness constraint.
///
/// **Identity.** None of these keys enters Core Data's version hashes (``VersionHashes`` hashes only
/// what Core Data hashes, so models without the keys keep their hashes bit for bit), nor Instar's
/// own notion of "the same version": two versions that differ only in naming keys are the same data
/// model stored under other names. A plain store's version is found by comparing its schema, where
/// the names do count, and a step between two such versions renames tables and columns.
public enum StoredNames {
    /// Of an entity: its table, primary key and unique indexes.
    public struct Entity: Sendable, Hashable, Codable {
        /// The table's name, when not the entity's name.
        public var table: String?
        /// The primary key column, when not `id`; `rowid` for a table without one (SQLite's rowid).
        public var primaryKey: String?
        /// The primary key is declared `AUTOINCREMENT` (row ids are never reused).
        public var autoincrement = false
        /// Uniqueness constraints kept as `CREATE UNIQUE INDEX <name>` rather than a `UNIQUE` table
        /// constraint: constraint (its property names) → index name.
        public var uniqueIndexNames: [[String]: String] = [:]

        /// No naming keys: the layout's conventions apply.
        public init() {}

        /// True when no key is set, so a model file writes nothing for it.
        public var isEmpty: Bool { self == Entity() }
    }

    /// Of an attribute or a to-one relationship.
    public struct Column: Sendable, Hashable, Codable {
        /// The column's name, when not the property's.
        public var name: String?
        /// The declared type exactly as written (`varchar(40)`, `bigint`, empty for none).
        public var type: String?
        /// A to-one's key column is declared `NOT NULL` (attributes say so with `optional: false`).
        public var notNull = false
        /// A to-one's `ON DELETE` action (`CASCADE`, `SET NULL`, …), nil for none.
        public var onDelete: String?

        /// No naming keys: the layout's conventions apply.
        public init() {}

        /// True when no key is set, so a model file writes nothing for it.
        public var isEmpty: Bool { self == Column() }
    }

    /// Of a relationship: its key column (to-one) or its join table (many-to-many).
    public struct Link: Sendable, Hashable, Codable {
        /// A to-one's key column.
        public var column = Column()
        /// A many-to-many's join table, when not named by the layout's convention.
        public var joinTable: JoinTable?

        /// No naming keys: the layout's conventions apply.
        public init() {}

        /// True when no key is set, so a model file writes nothing for it.
        public var isEmpty: Bool { self == Link() }
    }

    /// A many-to-many's link table: its name, the column holding this side's keys and the one holding
    /// the other side's, in that order (also the order of its primary key), and the name of the
    /// index on the second column (nil: no index).
    public struct JoinTable: Sendable, Hashable, Codable {
        /// The table's name.
        public var name: String
        /// This side's key column, then the other side's.
        public var columns: [String]
        /// The name of the index on the second column; nil for none.
        public var index: String?

        /// Names a join table; `columns` holds exactly two names, this side's first.
        public init(name: String, columns: [String], index: String? = nil) {
            self.name = name
            self.columns = columns
            self.index = index
        }
    }
}
