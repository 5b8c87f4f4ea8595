import GRDB
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel

extension SQLiteStore {
    /// The one transaction every kind of step runs in (inferred steps, fused runs of them, mapping
    /// steps), so that their crash safety is the same by construction: a read-only store is refused
    /// before anything runs; on the writer connection, `setUp` prepares it (SQL functions) outside the
    /// transaction; in an immediate transaction the store's schema must be exactly `first`'s (no drift),
    /// `body` does the work (statements, hooks, failpoints, metadata, checks) and `beforeCommit` runs last
    /// (the runtime's journal record, so the work and its record commit together). Any error, a hook's or
    /// a failpoint's included, rolls everything back and becomes a ``StoreError`` naming `label`.
    ///
    /// `body` receives `first`'s schema as the layout maps it (computed once, for the drift check).
    package func inSchemaTransaction(
        label: String, first: Model, setUp: ((Database) -> Void)? = nil,
        beforeCommit: ((Database) throws -> Void)?, _ body: (Database, StoreSchema) throws -> Void
    ) throws(StoreError) {
        if isReadOnly {
            throw StoreError(.readOnly, path: path, reason: .openedReadOnly(.migrating(step: label)))
        }
        do {
            try inWriteTransaction(setUp: setUp) { db in
                let initial = try layout.storageMap(for: first).schema
                try checkNoDrift(db, expected: initial, version: first.name)
                try body(db, initial)
                try beforeCommit?(db)
                return .commit
            }
        } catch {
            throw StoreError.from(error, path: path, doing: .migrating(step: label))
        }
    }

    /// The refusal ``inSchemaTransaction(label:first:setUp:beforeCommit:_:)`` makes before any work
    /// (the store's schema is not exactly `version`'s), asked on any connection, a read-only one
    /// included: a command answers it before it opens the store for writing, so that the refusal
    /// leaves the store and its -wal as they were.
    package func checkNoDrift(at version: Model) throws(StoreError) {
        do {
            try withDatabase { db in
                try checkNoDrift(db, expected: try layout.storageMap(for: version).schema, version: version.name)
            }
        } catch {
            throw StoreError.from(error, path: path, doing: .readingSchema(version: version.name))
        }
    }
}
