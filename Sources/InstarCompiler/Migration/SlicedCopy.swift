@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarSQL

/// A table a step rebuilds whose rows can be copied ahead of the step's transaction, in slices
/// that each commit on their own, so that a rewrite longer than any launch still moves forward.
///
/// The copy goes into a staging table created exactly as the step would create the rebuilt table
/// (the same `CREATE TABLE`, under another name). The step's transaction then takes the staging
/// table in place of its `CREATE` and `INSERT … SELECT` (``StepSQLPlanner/plan(_:actual:viewsAndTriggers:prefilled:)``),
/// after copying again the source rows that changed since their slice (``recopySQL``).
///
/// Only a copy whose rows correspond one to one by rowid can be sliced, so that a slice, a change
/// and its undo are all addressed by the source row's rowid (``sliceable(_:actual:)`` says which):
/// - the source is a rowid table with an `INTEGER PRIMARY KEY`, and the target's key is that key
///   copied as it is (every Core Data entity table's `Z_PK`): the staging row's rowid is then the
///   source row's, in both a sliced and an unsliced run, so the two leave the same rows;
/// - every value and filter reads the source row alone (no lookup into another table, no position
///   among other rows), so a slice computes exactly what the whole copy would for its rows;
/// - the target declares no foreign key to a table the step sets aside: SQLite rewrites such a
///   reference in every table when the table it names is renamed, the staging table included,
///   while the step creates its new tables after the renames.
package struct SlicedCopy: Sendable, Hashable {
    /// The rebuilt table's final name.
    package var target: String
    /// The source table, under its name before the step.
    package var source: String
    /// Where the rows are copied ahead: `_instar_slice_<n>`.
    package var staging: String
    /// The staging table's `CREATE TABLE`: the target's definition under the staging name.
    package var createSQL: String
    /// `INSERT INTO staging (…) SELECT … FROM source`, without its `WHERE`.
    package var insertSQL: String
    /// Values bound in ``insertSQL``.
    package var insertArguments: [SQLValue]
    /// The copy's filter on source rows (`AND`ed), with its values; nil for every row.
    package var filterSQL: String?
    package var filterArguments: [SQLValue]

    /// Where the step's transaction moves the source table of the copy whose staging table is
    /// `staging`, instead of dropping it: `_instar_retired_<n>`, whose rows the run then deletes in
    /// slices of their own before it drops the emptied table.
    package static func retiredName(_ staging: String) -> String {
        staging.replacingOccurrences(of: "_instar_slice_", with: "_instar_retired_")
    }

    /// The prefix of every retired table's name.
    package static let retiredPrefix = "_instar_retired_"

    /// The side table that records the rowids of source rows written after the copy began.
    package var changesTable: String { staging + "_changes" }

    /// The triggers on the source that record those rowids: after an insert, an update (both the old
    /// and the new rowid) and a delete. They are Instar's (`_instar_…`), which schema checks skip.
    package var triggerNames: [String] { ["insert", "update", "delete"].map { "\(staging)_\($0)" } }

    /// `CREATE TABLE` for the changes table and `CREATE TRIGGER` for each trigger.
    package var changeCaptureSQL: [String] {
        let changes = changesTable.sqlQuoted
        let on = source.sqlQuoted
        let names = triggerNames.map(\.sqlQuoted)
        return [
            "CREATE TABLE \(changes) (\("id".sqlQuoted) INTEGER PRIMARY KEY)",
            "CREATE TRIGGER \(names[0]) AFTER INSERT ON \(on) BEGIN INSERT OR IGNORE INTO \(changes) VALUES (NEW.rowid); END",
            "CREATE TRIGGER \(names[1]) AFTER UPDATE ON \(on) BEGIN INSERT OR IGNORE INTO \(changes) VALUES (OLD.rowid); INSERT OR IGNORE INTO \(changes) VALUES (NEW.rowid); END",
            "CREATE TRIGGER \(names[2]) AFTER DELETE ON \(on) BEGIN INSERT OR IGNORE INTO \(changes) VALUES (OLD.rowid); END",
        ]
    }

    /// Removes the change capture (the triggers first: they write into the table).
    package var dropChangeCaptureSQL: [String] {
        triggerNames.map { "DROP TRIGGER IF EXISTS \($0.sqlQuoted)" } + ["DROP TABLE IF EXISTS \(changesTable.sqlQuoted)"]
    }

    /// Copies the next source rows in rowid order (as the whole copy reads them), at most `LIMIT` of
    /// those the filter keeps, from the rowid `from` on: a plain range on the rowid, so each slice
    /// reads only its own rows. Arguments: ``insertArguments``, `from`, ``filterArguments``, the limit.
    /// The staging table's largest rowid is then the last row copied.
    package var sliceSQL: String {
        let rowid = "\(source.sqlQuoted).rowid"
        var sql = insertSQL + " WHERE \(rowid) >= ?"
        if let filterSQL { sql += " AND " + filterSQL }
        return sql + " ORDER BY \(rowid) LIMIT ?"
    }

    /// Removes from the staging table the rows whose source rows changed since they were copied.
    package var forgetChangedSQL: String {
        "DELETE FROM \(staging.sqlQuoted) WHERE \("rowid") IN (SELECT \("id".sqlQuoted) FROM \(changesTable.sqlQuoted))"
    }

    /// Copies again the source rows that changed (those still there): arguments ``insertArguments``
    /// then ``filterArguments``.
    package var recopySQL: String {
        let rowid = "\(source.sqlQuoted).rowid"
        var sql = insertSQL + " WHERE \(rowid) IN (SELECT \("id".sqlQuoted) FROM \(changesTable.sqlQuoted))"
        if let filterSQL { sql += " AND " + filterSQL }
        return sql + " ORDER BY \(rowid)"
    }
}

extension StepSQLPlanner {
    /// The copies of `program` that can be made ahead in slices, against the store's actual schema
    /// (see ``SlicedCopy`` for the conditions), each with its staging table named by its position.
    package static func sliceable(_ program: StepProgram, actual: StoreSchema) -> [SlicedCopy] {
        let raw = RawNames(program.targetSchema.raw)
        var actual = actual
        actual.tables.removeAll { raw.coversTable($0.name) }
        let decision = decide(program, actual: actual)
        var result: [SlicedCopy] = []
        for t in decision.copies {
            guard t.continuesSource, let source = t.source, let definition = actual.table(named: source),
                let key = rowidKey(of: definition, sql: actual.sqlText["table \(source)"]),
                let targetKey = t.target.columns.first(where: \.isPrimaryKey), t.target.primaryKey.isEmpty,
                targetKey.declaredType.uppercased() == "INTEGER", t.expression(for: targetKey.name) == .column(key),
                t.columns.values.allSatisfy(\.readsOnlyItsRow), t.filter.allSatisfy(\.readsOnlyItsRow),
                t.target.columns.allSatisfy({ $0.references.map { !decision.setAside.contains($0.table) } ?? true })
            else { continue }
            let staging = "_instar_slice_\(result.count + 1)"
            let targetColumns = t.target.columns.map(\.name).filter { t.columns[$0] != nil }
            var arguments: [SQLValue] = []
            let values = targetColumns.map { t.expression(for: $0).render(&arguments, qualifier: source) }
            var filterArguments: [SQLValue] = []
            let filter = t.filter.isEmpty ? nil : t.filter.map { $0.render(&filterArguments, qualifier: source) }.joined(separator: " AND ")
            result.append(
                SlicedCopy(
                    target: t.target.name, source: source, staging: staging, createSQL: t.target.createSQL(named: staging),
                    insertSQL: "INSERT INTO \(staging.sqlQuoted) (\(SQLIdentifier.list(targetColumns))) SELECT \(values.joined(separator: ", ")) FROM \(source.sqlQuoted)",
                    insertArguments: arguments, filterSQL: filter, filterArguments: filterArguments))
        }
        return result
    }

    /// The source's `INTEGER PRIMARY KEY` column, which is its rowid, if it has one (not in a
    /// `WITHOUT ROWID` table, where the key is no rowid).
    private static func rowidKey(of table: SchemaTable, sql: String?) -> String? {
        guard table.primaryKey.isEmpty, let key = table.columns.first(where: \.isPrimaryKey),
            key.declaredType.uppercased() == "INTEGER"
        else { return nil }
        if let sql, SQLKeywords.words(of: sql).suffix(2).map({ $0.uppercased() }) == ["WITHOUT", "ROWID"] { return nil }
        return key.name
    }
}

extension ColumnValueExpression {
    /// Whether the value is computed from its own source row alone: no lookup into a table, no
    /// position among other rows. Such a value is the same whichever rows are copied with it.
    package var readsOnlyItsRow: Bool {
        switch self {
        case .column, .value: true
        case .lookup, .position: false
        case .cast(let e, _), .boolean(let e), .mapping(let e, _), .prefixed(let e, _): e.readsOnlyItsRow
        case .coalesce(let a, let b), .choose(_, _, let a, let b): a.readsOnlyItsRow && b.readsOnlyItsRow
        }
    }
}

extension RowPredicate {
    /// Whether the condition reads its own source row alone.
    package var readsOnlyItsRow: Bool {
        switch self {
        case .isIn, .isNotNull: true
        case .expressionIn(let e, _), .expressionNotNull(let e): e.readsOnlyItsRow
        }
    }
}
