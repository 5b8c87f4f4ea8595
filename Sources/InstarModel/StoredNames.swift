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
@_spi(Layouts) public enum StoredNames {
    /// Of an entity: its table, primary key and unique indexes.
    @_spi(Layouts) public struct Entity: Sendable, Hashable, Codable {
        /// The table's name, when not the entity's name.
        @_spi(Layouts) public var table: String?
        /// The primary key column, when not `id`; `rowid` for a table without one (SQLite's rowid).
        @_spi(Layouts) public var primaryKey: String?
        /// The primary key is declared `AUTOINCREMENT` (row ids are never reused).
        @_spi(Layouts) public var autoincrement = false
        /// The primary key constraint's name (`CONSTRAINT pk_album PRIMARY KEY (AlbumId)`), nil for none.
        /// Model files: `primaryKeyConstraint:`.
        @_spi(Layouts) public var primaryKeyConstraint: String?
        /// A composite primary key's columns (`PRIMARY KEY (order_id, product_id)` of a link table with
        /// extra columns): the entity's rows are still identified by SQLite's rowid (`primaryKey:
        /// rowid`), and the key is written as the table constraint. Model files: `compositeKey:`.
        @_spi(Layouts) public var compositeKey: [String] = []
        /// Uniqueness constraints kept as `CREATE UNIQUE INDEX <name>` rather than a `UNIQUE` table
        /// constraint: constraint (its property names) → index name.
        @_spi(Layouts) public var uniqueIndexNames: [[String]: String] = [:]
        /// Names of uniqueness constraints kept as `CONSTRAINT <name> UNIQUE (…)` in the table:
        /// constraint (its property names) → constraint name. Model files: `{on: [a, b], constraint: n}`.
        @_spi(Layouts) public var uniqueConstraintNames: [[String]: String] = [:]
        /// Table constraints kept verbatim (`CHECK (starts < ends)`, `CONSTRAINT c CHECK (…)`): what a
        /// model cannot say but a table of an adopted database has, written back exactly on create and
        /// rebuild so that the table stays an entity instead of raw SQL. Model files: `tableSQL:`.
        @_spi(Layouts) public var tableSQL: [String] = []
        /// The table's column order when it is not the layout's (attributes, then foreign keys): column
        /// names, as an adopted database declares them. Columns not listed follow, in the layout's order.
        /// Model files: `columnOrder:`.
        @_spi(Layouts) public var columnOrder: [String] = []

        /// No naming keys: the layout's conventions apply.
        @_spi(Layouts) public init() {}

        /// True when no key is set, so a model file writes nothing for it.
        @_spi(Layouts) public var isEmpty: Bool { self == Entity() }
    }

    /// Of an attribute or a to-one relationship.
    @_spi(Layouts) public struct Column: Sendable, Hashable, Codable {
        /// The column's name, when not the property's.
        @_spi(Layouts) public var name: String?
        /// The declared type exactly as written (`varchar(40)`, `bigint`, empty for none).
        @_spi(Layouts) public var type: String?
        /// A to-one's key column is declared `NOT NULL` (attributes say so with `optional: false`).
        @_spi(Layouts) public var notNull = false
        /// A to-one's `ON DELETE` action (`CASCADE`, `SET NULL`, …), nil for none.
        @_spi(Layouts) public var onDelete: String?
        /// Column clauses kept verbatim (`CHECK (price >= 0)`, `COLLATE NOCASE`), written after the
        /// column's type, `NOT NULL` and default. Model files: `columnSQL:`.
        @_spi(Layouts) public var sql: String?
        /// A to-one's foreign-key constraint name (`CONSTRAINT fk_book_author REFERENCES …`), nil for
        /// an unnamed one. Model files: `constraint:`.
        @_spi(Layouts) public var constraint: String?

        /// No naming keys: the layout's conventions apply.
        @_spi(Layouts) public init() {}

        /// True when no key is set, so a model file writes nothing for it.
        @_spi(Layouts) public var isEmpty: Bool { self == Column() }
    }

    /// Of a relationship: its key column (to-one) or its join table (many-to-many).
    @_spi(Layouts) public struct Link: Sendable, Hashable, Codable {
        /// A to-one's key column.
        @_spi(Layouts) public var column = Column()
        /// A many-to-many's join table, when not named by the layout's convention.
        @_spi(Layouts) public var joinTable: JoinTable?

        /// No naming keys: the layout's conventions apply.
        @_spi(Layouts) public init() {}

        /// True when no key is set, so a model file writes nothing for it.
        @_spi(Layouts) public var isEmpty: Bool { self == Link() }
    }

    /// A many-to-many's link table: its name, the column holding this side's keys and the one holding
    /// the other side's, in that order (also the order of its primary key), and the name of the
    /// index on the second column (nil: no index).
    @_spi(Layouts) public struct JoinTable: Sendable, Hashable, Codable {
        /// The table's name.
        @_spi(Layouts) public var name: String
        /// This side's key column, then the other side's.
        @_spi(Layouts) public var columns: [String]
        /// The name of the index on the second column; nil for none.
        @_spi(Layouts) public var index: String?
        /// The `ON DELETE` action of each column's foreign key (`CASCADE`: deleting an object deletes its
        /// links), in the order of `columns`; empty for none.
        @_spi(Layouts) public var onDelete: [String] = []
        /// The table's column order when it is not `columns` (a link table keyed `(b, a)` that declares
        /// `a` first); empty otherwise.
        @_spi(Layouts) public var columnOrder: [String] = []
        /// The name of the link table's primary key constraint, nil for none.
        @_spi(Layouts) public var primaryKeyConstraint: String?

        /// Names a join table; `columns` holds exactly two names, this side's first; `onDelete` the
        /// `ON DELETE` action of each column's foreign key, in the same order (empty: none).
        @_spi(Layouts) public init(name: String, columns: [String], index: String? = nil, onDelete: [String] = []) {
            self.name = name
            self.columns = columns
            self.index = index
            self.onDelete = onDelete
        }
    }
}
