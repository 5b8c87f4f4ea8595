import Foundation
import GRDB
import InstarInference
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
import InstarCompiler

/// What one executed (or planned) step did.
package struct StepOutcome: Sendable {
    package var fromVersion: String
    package var toVersion: String
    package var plan: StepSQLPlan
    package var seconds: Double
    /// How many steps were merged into others by fusion (0 for a single step).
    package var fusedSteps: Int = 0
}

extension SQLiteStore {
    /// Compiles the step from `old` to `new` and plans its SQL against the store's actual schema,
    /// without writing anything: the dry run.
    package func planStep(from old: Model, to new: Model) throws(StoreError) -> (StepProgram, StepSQLPlan) {
        do {
            return try withDatabase { db in
                let program = try StepCompiler(diff: ModelDiff(from: old, to: new), from: old, to: new, layout: layout)
                    .compile()
                let actual = try readSchema(db)
                let extras = try ViewsAndTriggers.read(db)
                let recreated = viewsAndTriggersToRecreate(found: extras, target: program.targetSchema)
                return (program, StepSQLPlanner.plan(program, actual: actual, viewsAndTriggers: recreated))
            }
        } catch {
            throw StoreError.from(error, path: path, doing: .planningStep)
        }
    }

    /// Checks, reading only, that the data satisfies the conditions of the step from `old` to `new`
    /// (no NULLs where a required attribute has no default, …), so that a run whose first step would be
    /// refused is refused before anything — journal or lease included — is written to the store.
    package func checkDataConditions(from old: Model, to new: Model) throws(StoreError) {
        do {
            try withDatabase { db in
                try checkConditions(ModelDiff(from: old, to: new).conditions, db: db, map: layout.storageMap(for: old), step: (old, new))
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.from(error, path: path, doing: .checkingData)
        }
    }

    /// Migrates the store from `old` (its current version) to `new` in one transaction: the schema
    /// change, the data, and the metadata commit together, after verification, or not at all.
    ///
    /// Before anything is written the store's schema must be exactly `old`'s (no drift) and the data
    /// must satisfy the step's conditions (no NULLs where a required attribute has no default, …).
    /// After the statements and before commit the step checks that the schema is exactly `new`'s,
    /// that foreign keys are clean and that every surviving entity kept its row count.
    ///
    /// `before` runs inside the transaction on the old shape (after the drift check, before the data
    /// conditions are checked, so it can fix the data); `after` runs on the new shape once the step is
    /// verified, and the schema and foreign keys are checked again after it. `onStatement` is called
    /// before each statement (the runtime's failpoints use it).
    @discardableResult
    package func migrate(
        from old: Model, to new: Model, before: ((Database) throws -> Void)? = nil,
        after: ((Database) throws -> Void)? = nil, onStatement: ((Int) -> Void)? = nil
    ) throws(StoreError) -> StepOutcome {
        try migrate(through: [old, new], before: before, after: after, onStatement: onStatement)
    }

    /// Migrates through consecutive versions (`versions[0]` is the store's) in ONE transaction, with
    /// `before` running on the old shape and `after` on the new one (see
    /// ``migrate(through:fuse:hooks:beforeCommit:onStatement:)``).
    @discardableResult
    package func migrate(
        through versions: [Model], fuse: Bool = true, before: ((Database) throws -> Void)?,
        after: ((Database) throws -> Void)?, onStatement: ((Int) -> Void)? = nil
    ) throws(StoreError) -> StepOutcome {
        var hooks: [Int: [InlineHook]] = [:]
        if let before { hooks[0] = [InlineHook(name: "before", statements: nil, run: before)] }
        if let after { hooks[versions.count - 1] = [InlineHook(name: "after", statements: nil, run: after)] }
        return try migrate(through: versions, fuse: fuse, hooks: hooks, beforeCommit: nil, onStatement: onStatement)
    }

    /// Migrates through consecutive versions (`versions[0]` is the store's) in ONE transaction, running
    /// `hooks[k]` once the store is at `versions[k]` and `beforeCommit` last (the runtime's journal record); planned by ``TransactionPlan``: with `fuse`, steps
    /// with no hook between them are fused where that is exact (each table rewritten at most once per
    /// run, adds and renames in place) and work moves past SQL hooks that cannot tell the difference;
    /// `fuse: false` runs every step separately (for comparison).
    ///
    /// Every run of steps is checked on the data as it finds it (conditions), and verified before the
    /// next part (schema, foreign keys of the tables it may have broken, surviving row counts); hooks
    /// are followed by the same schema and foreign-key checks. Hooks at a later position see the
    /// store's metadata of the version they run at.
    @discardableResult
    ///
    /// `prefilled`: the copies the runtime made ahead in slices for the first run of steps
    /// (``sliceableCopies(through:fuse:hooks:)``); their staging tables are brought up to date and
    /// taken in place of those tables' copies.
    package func migrate(
        through versions: [Model], fuse: Bool = true, hooks: [Int: [InlineHook]] = [:], prefilled: [SlicedCopy] = [],
        beforeCommit: ((Database) throws -> Void)? = nil, onStatement: ((Int) -> Void)? = nil
    ) throws(StoreError) -> StepOutcome {
        let start = Date()
        guard let first = versions.first, let last = versions.last, versions.count >= 2 else {
            throw StoreError(.unknownVersion, path: path, reason: .tooFewVersions(count: versions.count))
        }
        let transaction: TransactionPlan
        do {
            transaction = try TransactionPlan.make(versions: versions, hooks: hooks, layout: layout, fuse: fuse)
        } catch {
            throw StoreError.from(error, path: path, doing: .compilingStep)
        }
        var statements: [PlannedStatement] = []
        var tables: [String: TableTreatment] = [:]
        let label = "\(first.name) → \(last.name)"
        var statementIndex = 0
        let lastUnit = transaction.parts.lastIndex { if case .steps = $0 { true } else { false } }
        let firstUnit = transaction.parts.firstIndex { if case .steps = $0 { true } else { false } }
        try inSchemaTransaction(label: label, first: first, beforeCommit: beforeCommit) { db, initial in
            var extras: [ViewsAndTriggers]?
            var viewsRecreated = false
            var expected = initial
            /// What the schema must be while the store's views and triggers are dropped.
            func verifiable(_ schema: StoreSchema) -> StoreSchema {
                guard extras != nil, !viewsRecreated else { return schema }
                var schema = schema
                schema.raw.removeAll { $0.kind == .view || $0.kind == .trigger }
                return schema
            }
            var metadataWritten = false
            var pending = PendingForeignKeyChecks()
            for (index, part) in transaction.parts.enumerated() {
                switch part {
                case .hooks(let hooks, let position, let access):
                    if position > 0 {
                        try layout.writeMetadata(db, model: versions[position])
                        metadataWritten = position == versions.count - 1
                    }
                    for hook in hooks { try hook.run?(db) }
                    if position > 0 {
                        try verifySchema(db, schema: verifiable(expected), version: versions[position].name)
                    }
                    // Before the first step the store's own triggers are still in place, and what
                    // their bodies write is not in the hook's analysis: check everything then.
                    let triggersFired = try extras == nil && ViewsAndTriggers.read(db).contains { $0.type == "trigger" }
                    pending.add(
                        triggersFired ? nil : ForeignKeyScope.tables(after: access, in: expected),
                        origin: "hook \(hooks.map { "'\($0.name)'" }.joined(separator: ", ")) at \(versions[position].name)")
                case .steps(let unit):
                    if extras == nil {
                        // The store's own views and triggers may name tables being rebuilt.
                        let found = try ViewsAndTriggers.read(db)
                        for extra in found { try db.execute(sql: extra.dropSQL) }
                        extras = found
                    }
                    // Links to rows a unit removes are deleted by the unit: check pending links first,
                    // so that a link a hook got wrong is reported, not quietly removed.
                    if unit.program.transformations.contains(where: { !$0.filter.isEmpty }) {
                        try pending.check(db, path: path)
                    }
                    pending.follow(unit.program)
                    try checkConditions(unit.conditions, db: db, map: layout.storageMap(for: unit.from), step: (unit.from, unit.to))
                    let taken = index == firstUnit ? try takeSlicedCopies(prefilled, unit: unit, db) : [:]
                    let actual = try readSchema(db)
                    let unitPlan = StepSQLPlanner.plan(
                        unit.program, actual: actual,
                        viewsAndTriggers: index == lastUnit
                            ? viewsAndTriggersToRecreate(found: extras ?? [], target: unit.program.targetSchema) : [],
                        prefilled: taken)
                    if index == lastUnit { viewsRecreated = true }
                    // Rows are counted where the unit moves them: `ALTER TABLE` keeps every row of
                    // a table altered in place, and counting a large table reads all of it.
                    var checked = unit.program
                    checked.survivingEntities = unit.program.survivingEntities.filter { e in
                        guard case .altered? = unitPlan.tables[e.destinationTable] else { return true }
                        return !unit.program.transformations.contains {
                            $0.target.name == e.destinationTable && $0.source == e.sourceTable && $0.continuesSource
                        }
                    }
                    let counted = try counts(checked.survivingEntities, db: db, source: true)
                    try RemovedRows.record(unit.program, actual: actual, db)
                    for statement in unitPlan.statements {
                        onStatement?(statementIndex)
                        statementIndex += 1
                        do {
                            try db.executeSingle(statement.sql, arguments: StatementArguments(statement.arguments.map(\.databaseValue)))
                        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                            throw StoreError(
                                .dataCondition, path: path,
                                reason: .dataDoesNotFit(version: unit.to.name, purpose: statement.purpose),
                                sqlite: SQLiteFailure(error))
                        } catch {
                            // A failed schema edit must not leave this connection allowed to write
                            // `sqlite_master` after the rollback (``InPlaceAlteration``'s schema edits).
                            try? db.execute(sql: "PRAGMA writable_schema = OFF")
                            throw error
                        }
                    }
                    statements += unitPlan.statements
                    tables.merge(unitPlan.tables) { _, b in b }
                    try verifySchema(db, schema: verifiable(unit.program.targetSchema), version: unit.program.toVersion)
                    pending.add(
                        ForeignKeyScope.tables(after: unit.program, source: actual),
                        origin: "the step \(unit.from.name) → \(unit.to.name)")
                    try verifyCounts(db, program: checked, before: counted)
                    expected = unit.program.targetSchema
                }
            }
            try pending.check(db, path: path)
            try checkViews(extras ?? [], db: db, version: last.name)
            if !metadataWritten { try layout.writeMetadata(db, model: last) }
            try RemovedRows.finish(db)
        }
        return StepOutcome(
            fromVersion: first.name, toVersion: last.name, plan: StepSQLPlan(statements: statements, tables: tables),
            seconds: Date().timeIntervalSince(start), fusedSteps: transaction.fusedSteps)
    }

    /// The views and triggers to create after the last step: those the store had; in a layout whose
    /// models list them (``StorageLayout/schemaIncludesViewsAndTriggers``), those the target version
    /// lists (the store had exactly the first version's: the drift check says so), so that a version
    /// may change a view.
    func viewsAndTriggersToRecreate(found: [ViewsAndTriggers], target: StoreSchema) -> [String] {
        guard layout.schemaIncludesViewsAndTriggers else { return found.map(\.sql) }
        let listed = target.raw.filter { $0.kind == .view } + target.raw.filter { $0.kind == .trigger }
        return listed.map(\.sql)
    }

    /// SQLite recreates a view without checking its columns; reading it once tells whether it broke.
    func checkViews(_ extras: [ViewsAndTriggers], db: Database, version: String) throws {
        for view in extras where view.type == "view" {
            do {
                _ = try Row.fetchOne(db, sql: "SELECT * FROM \(view.name.sqlQuoted) LIMIT 0")
            } catch let error as DatabaseError {
                throw StoreError(
                    .verificationFailed, path: path,
                    reason: .viewOrTriggerBroken(type: view.type, name: view.name, version: version), sqlite: SQLiteFailure(error))
            }
        }
    }

    func checkNoDrift(_ db: Database, expected: StoreSchema, version: String) throws {
        let actual = try readSchema(db)
        let drift = SchemaComparison.differences(
            expected: expected, actual: actual, ignoringExtraIndexes: layout.toleratesExtraIndexes,
            includingViewsAndTriggers: layout.schemaIncludesViewsAndTriggers)
        guard drift.isEmpty else {
            var error = StoreError(.schemaDrift, path: path, reason: .schemaDrift(version: version))
            error.drift = drift
            throw error
        }
    }

    /// Refuses, with counts, when the data would make a conditional change fail: every broken
    /// condition is counted and named (``dataViolations(_:db:map:step:)``), not only the first.
    private func checkConditions(
        _ conditions: [DataCondition], db: Database, map: StorageMap, step: (from: Model, to: Model)
    ) throws {
        let violations = try dataViolations(conditions, db: db, map: map, step: step)
        if !violations.isEmpty { throw dataConditionError(violations) }
    }

    /// What in the step needs `entity` to have no rows, naming the attributes or relationships (the
    /// diff is only made again here, when the check already failed).
    static func rowsMustNotExist(
        _ entity: String, step: (from: Model, to: Model), linkedBy older: (String, String)? = nil
    ) -> String {
        let wanted: DataCondition = older.map { .linked(entity: entity, by: $0.0, relationship: $0.1) } ?? .noRows(entity: entity)
        let changes = ModelDiff(from: step.from, to: step.to).changes.filter { $0.verdict.condition == wanted }
        let attributes = changes.filter { $0.kind == .attributeAdded }.map { "'\($0.subject)'" }
        let relationships = changes.filter { $0.kind == .relationshipAdded }.map { "'\($0.subject)'" }
        if !relationships.isEmpty {
            return "the step \(step.from.name) → \(step.to.name) adds the required relationship \(relationships.joined(separator: ", ")), "
                + "which no existing row has"
        }
        if !attributes.isEmpty {
            return "the step \(step.from.name) → \(step.to.name) adds \(attributes.joined(separator: ", ")), required and without a default"
        }
        if let change = changes.first { return "the step \(step.from.name) → \(step.to.name): \(change.subject): \(change.verdict.reason)" }
        return "the step \(step.from.name) → \(step.to.name) adds a required value without a default"
    }

    /// The SQL condition, on `entity`'s rows, of having no link from the to-many `owner.relationship`
    /// (kept in a key on these rows, or in a join table).
    func unlinkedRows(_ entity: String, by owner: String, _ relationship: String, map: StorageMap) -> String? {
        switch map.relationships[RelationshipKey(entity: owner, name: relationship)] {
        case .inverseForeignKey(let hidden, _)?:
            guard case .foreignKey(_, let column)? = map.relationships[hidden] else { return nil }
            return "\(column.sqlQuoted) IS NULL"
        case .joinTable(let table, _, let destinationColumn, _)?:
            guard let primaryKey = map.entities[entity].flatMap({ map.entityTables[$0.table]?.primaryKey }) else { return nil }
            return "\(primaryKey.sqlQuoted) NOT IN (SELECT \(destinationColumn.sqlQuoted) FROM \(table.sqlQuoted) WHERE \(destinationColumn.sqlQuoted) IS NOT NULL)"
        default:
            return nil
        }
    }

    /// `"table" WHERE discriminator IN (…)` for the rows of an entity and its sub-entities.
    func rowsOf(_ entity: String, map: StorageMap) -> (String, String, StatementArguments)? {
        guard let storage = map.entities[entity], let info = map.entityTables[storage.table] else { return nil }
        let from = storage.table.sqlQuoted
        guard let discriminator = info.discriminator else { return (from, "", []) }
        let values = storage.kinds.compactMap { map.entities[$0]?.discriminatorValue?.databaseValue }
        let marks = values.map { _ in "?" }.joined(separator: ", ")
        return (from, " WHERE \(discriminator.sqlQuoted) IN (\(marks))", StatementArguments(values))
    }

    private func counts(_ entities: [StepProgram.SurvivingEntity], db: Database, source: Bool) throws -> [String: Int] {
        var result: [String: Int] = [:]
        for e in entities {
            let table = source ? e.sourceTable : e.destinationTable
            let discriminator = source ? e.sourceDiscriminator : e.destinationDiscriminator
            var sql = "SELECT count(*) FROM \(table.sqlQuoted)"
            var arguments = StatementArguments()
            if let discriminator {
                sql += " WHERE \(discriminator.column.sqlQuoted) = ?"
                arguments = [discriminator.value.databaseValue]
            }
            result[e.sourceEntity] = try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
        }
        return result
    }

    /// The schema is exactly `schema`.
    func verifySchema(_ db: Database, schema: StoreSchema, version: String) throws {
        let actual = try readSchema(db)
        let differences = SchemaComparison.differences(
            expected: schema, actual: actual, ignoringExtraIndexes: layout.toleratesExtraIndexes,
            includingViewsAndTriggers: layout.schemaIncludesViewsAndTriggers)
        guard differences.isEmpty else {
            throw StoreError(
                .verificationFailed, path: path, reason: .schemaNotReached(version: version, differences: differences))
        }
    }

    /// Every entity that survives the program kept its row count.
    private func verifyCounts(_ db: Database, program: StepProgram, before: [String: Int]) throws {
        let after = try counts(program.survivingEntities, db: db, source: false)
        for e in program.survivingEntities where before[e.sourceEntity] != after[e.sourceEntity] {
            throw StoreError(
                .verificationFailed, path: path,
                reason: .rowCountChanged(
                    source: e.sourceEntity, destination: e.destinationEntity, before: before[e.sourceEntity] ?? 0,
                    after: after[e.sourceEntity] ?? 0))
        }
    }
}

/// The store's own views and triggers: dropped before a step (they may name tables being rebuilt)
/// and recreated after it, as they were.
struct ViewsAndTriggers {
    var type: String
    var name: String
    var sql: String

    var dropSQL: String { "DROP \(type.uppercased()) IF EXISTS \(name.sqlQuoted)" }

    static func read(_ db: Database) throws -> [ViewsAndTriggers] {
        try Row.fetchAll(
            db, sql: "SELECT type, name, sql FROM sqlite_master WHERE type IN ('view', 'trigger') AND sql IS NOT NULL ORDER BY type DESC, name"
        ).map { ViewsAndTriggers(type: $0["type"], name: $0["name"], sql: $0["sql"]) }
            .filter { !InstarObjects.contains($0.name) }  // a sliced rewrite's change capture
    }
}
