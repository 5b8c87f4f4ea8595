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

        public init() {}

        public var isEmpty: Bool { self == Entity() }
    }

    /// Of an attribute or a to-one relationship.
    public struct Column: Sendable, Hashable, Codable {
        public var name: String?
        /// The declared type exactly as written (`varchar(40)`, `bigint`, empty for none).
        public var type: String?
        /// A to-one's key column is declared `NOT NULL` (attributes say so with `optional: false`).
        public var notNull = false
        /// A to-one's `ON DELETE` action (`CASCADE`, `SET NULL`, …), nil for none.
        public var onDelete: String?

        public init() {}

        public var isEmpty: Bool { self == Column() }
    }

    /// Of a relationship: its key column (to-one) or its join table (many-to-many).
    public struct Link: Sendable, Hashable, Codable {
        public var column = Column()
        public var joinTable: JoinTable?

        public init() {}

        public var isEmpty: Bool { self == Link() }
    }

    /// A many-to-many's link table: its name, the column holding this side's keys and the one holding
    /// the other side's, in that order (also the order of its primary key), and the name of the
    /// index on the second column (nil: no index).
    public struct JoinTable: Sendable, Hashable, Codable {
        public var name: String
        public var columns: [String]
        public var index: String?

        public init(name: String, columns: [String], index: String? = nil) {
            self.name = name
            self.columns = columns
            self.index = index
        }
    }
}
