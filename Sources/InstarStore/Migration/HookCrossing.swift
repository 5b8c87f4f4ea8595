@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarCompiler

/// Moving work across a hook that cannot tell the difference.
///
/// A custom stage's hook stands between two steps, so without help the step before it and the step
/// after it each rewrite their tables: a table changed on both sides of a hook is rebuilt twice. When
/// the hook is plain SQL, Instar knows exactly what it touches (``SQLAccess``), and two kinds of work
/// can wait until after it:
///
/// - **A table's rebuild** moves past the hook when the hook writes nothing in that table, changes no
///   schema of it, and reads from it only columns the rebuild carries over unchanged (same name, same
///   declared type, a plain copy) or its rows as a whole; the rebuild keeps every row (no filter), the
///   table keeps its name, no other table of the step is filled from it or looks values up in it, and
///   every table it references is kept under its name (so its links stay valid while it waits); a hook
///   that reads `rowid` or counts rows needs the rowids kept (an `INTEGER PRIMARY KEY` copied as is), and
///   the indexes on the columns the hook reads must be the same in both shapes (an unordered query
///   returns rows in the order of the index it uses).
///   The hook then sees exactly the values it would have seen after the rebuild; the moved rebuild is
///   fused with the step after the hook, so the table is rewritten once.
/// - **A new plain (non-unique) index** moves past the hook when the hook fills or updates its table
///   without reading it:
///   filling a table and then indexing it is much cheaper than maintaining the index row by row, and
///   an index that is not read changes no result. Unique indexes never move (they are constraints the
///   hook's `INSERT OR IGNORE` may rely on).
///
/// ``TransactionPlan`` then analyses the hook again on the shape it will really see (`now`) and moves
/// the work only if the hook reads and writes exactly the same there: an unqualified name in a
/// subquery, `SELECT *` or `NATURAL JOIN` could resolve to a column only the older shape has.
///
/// The transaction stays one transaction: nothing is committed between the parts, so no other reader
/// ever sees the intermediate shape. A hook whose SQL cannot be analysed, or that is not SQL, moves
/// nothing.
package struct DeferredWork: Sendable, Hashable {
    /// Tables whose rewrite runs after the hook instead of before it.
    package var tables: [String] = []
    /// Indexes created after the hook instead of before it.
    package var indexes: [String] = []

    package var isEmpty: Bool { tables.isEmpty && indexes.isEmpty }
}

extension StepProgram {
    /// Splits this program around a hook that runs right after it: `now` runs before the hook and leaves
    /// the deferred tables in their source shape and the deferred indexes uncreated; `later` goes from
    /// there to this program's target (so that it can be fused with the step after the hook). Nil when
    /// nothing may move. `moveTables` is false when no step follows the hook (a moved rebuild would cost
    /// the same after it; only indexes gain).
    package func deferring(past access: SQLAccess, sourceSchema: StoreSchema, moveTables: Bool) -> (
        now: StepProgram, later: StepProgram, moved: DeferredWork
    )? {
        guard !access.isOpaque else { return nil }
        var moved = DeferredWork()
        var deferred: [String: (rewrite: TableTransformation, source: SchemaTable)] = [:]
        let anyLookup = transformations.contains { $0.columns.values.contains(where: \.containsLookup) }
        if moveTables && !anyLookup {
            for t in transformations {
                guard let source = t.source, let definition = sourceSchema.table(named: source),
                    canDefer(t, source: definition, sourceSchema: sourceSchema, access: access)
                else { continue }
                // Another table of the step filled from this one (a join table made from its keys)
                // reads it as it is before the step: keep it in place.
                guard !transformations.contains(where: { $0 != t && $0.source == source }) else { continue }
                // Its links must still lead somewhere while it waits in its old shape: every table it
                // references stays, under the same name (a dropped or renamed one would leave them
                // dangling, or rewritten by SQLite to a name the old definition does not have).
                let referenced = Set(definition.columns.compactMap(\.references?.table)).subtracting([source])
                guard referenced.allSatisfy({ table in
                    transformations.contains { $0.target.name == table && $0.source == table && $0.continuesSource }
                })
                else { continue }
                deferred[t.target.name] = (t, definition)
                moved.tables.append(t.target.name)
            }
        }
        let sourceIndexes = Set(sourceSchema.indexes)
        let deferredIndexes = targetSchema.indexes.filter { index in
            !index.isUnique && !sourceIndexes.contains(index) && deferred[index.table] == nil
                && access.reads[index.table] == nil && !access.schemaChanges.contains(index.table)
                && (access.inserts.contains(index.table) || access.updates[index.table] != nil)
        }
        moved.indexes = deferredIndexes.map(\.name)
        guard !moved.isEmpty else { return nil }

        // Before the hook: the deferred tables stay as they are.
        var now = self
        now.transformations = transformations.map { t in
            guard let (_, source) = deferred[t.target.name] else { return t }
            return TableTransformation.unchanged(source, role: t.role)
        }
        now.targetSchema.tables = targetSchema.tables.map { deferred[$0.name]?.source ?? $0 }
        let skippedIndexes = Set(deferredIndexes.map(\.name))
        now.targetSchema.indexes =
            targetSchema.indexes.filter { deferred[$0.table] == nil && !skippedIndexes.contains($0.name) }
            + sourceSchema.indexes.filter { deferred[$0.table] != nil }
        now.survivingEntities = survivingEntities.map { e in
            guard deferred[e.destinationTable] != nil else { return e }
            var kept = e
            kept.destinationDiscriminator = e.sourceDiscriminator
            return kept
        }

        // After the hook: from that shape to this program's target.
        let roles = Dictionary(transformations.map { ($0.target.name, $0.role) }, uniquingKeysWith: { a, _ in a })
        let later = StepProgram(
            fromVersion: toVersion, toVersion: toVersion,
            transformations: targetSchema.tables.map { table in
                deferred[table.name]?.rewrite ?? .unchanged(table, role: roles[table.name] ?? .entityTable)
            },
            droppedTables: [], targetSchema: targetSchema,
            survivingEntities: survivingEntities.map { e in
                SurvivingEntity(
                    sourceEntity: e.destinationEntity, sourceTable: e.destinationTable,
                    sourceDiscriminator: deferred[e.destinationTable] != nil ? e.sourceDiscriminator : e.destinationDiscriminator,
                    destinationEntity: e.destinationEntity, destinationTable: e.destinationTable,
                    destinationDiscriminator: e.destinationDiscriminator)
            })
        return (now, later, moved)
    }

    /// Whether the rewrite of one table may wait until after the hook (see ``DeferredWork``).
    private func canDefer(
        _ t: TableTransformation, source: SchemaTable, sourceSchema: StoreSchema, access: SQLAccess
    ) -> Bool {
        let sourceIndexes = sourceSchema.indexes
        guard t.continuesSource, t.source == t.target.name, t.filter.isEmpty, !access.writes(t.target.name) else {
            return false
        }
        if t.columns.values.contains(where: { $0.containsLookup || $0.containsPosition }) { return false }
        // Only a rebuild is worth moving; a table altered in place costs next to nothing either way.
        if case .success = InPlaceAlteration.statements(
            for: t, source: source, in: sourceSchema, tableRenames: [t.target.name: t.target.name], tableName: t.target.name)
        {
            return false
        }
        let read = access.reads[t.target.name] ?? []
        for column in read where !column.isEmpty {
            guard let target = t.target.column(named: column), let before = source.column(named: column),
                t.columns[column] == .column(column), target.declaredType == before.declaredType,
                target.isPrimaryKey == before.isPrimaryKey  // a NULL copied into a rowid alias gets a new key
            else { return false }
        }
        // The authorizer reports `rowid` (and `count(*)`) as a read of no column: a rebuild keeps rowids
        // only through an INTEGER PRIMARY KEY it copies.
        if read.contains("") {
            guard let key = t.target.columns.first(where: \.isPrimaryKey), key.declaredType.uppercased() == "INTEGER",
                t.columns[key.name] == .column(key.name)
            else { return false }
        }
        // A query without ORDER BY returns rows in the order of the index it uses: the indexes on the
        // columns the hook reads must be the same in both shapes, or its result (and the rowids of
        // rows it inserts) could depend on where the rebuild runs.
        let readColumns = Set(read)
        func touchingRead(_ indexes: [SchemaIndex]) -> Set<SchemaIndex> {
            Set(indexes.filter { $0.table == t.target.name && $0.elements.contains { readColumns.contains($0.column) } })
        }
        if touchingRead(sourceIndexes) != touchingRead(targetSchema.indexes) { return false }
        return true
    }
}
