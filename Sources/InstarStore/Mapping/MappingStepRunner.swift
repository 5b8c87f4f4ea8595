@_spi(Layouts) import InstarLayouts
import Foundation
import GRDB
import InstarMapping
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
import InstarCompiler

/// Runs a hook of a mapping step inside the step's transaction.
package typealias MappingHookRunner = (MappingHookRequirement, Database) throws -> Void

extension SQLiteStore {
    /// Compiles a mapping model (resolved against `from` and `to`) for this store's layout.
    package func compileMapping(_ mapping: MappingModel, from: Model, to: Model) throws(StoreError) -> MappingProgram {
        do {
            var compiler = try MappingCompiler(mapping: mapping, from: from, to: to, layout: layout)
            return try compiler.compile()
        } catch {
            throw StoreError(.notInferable, path: path, reason: .underlying, underlying: error)
        }
    }

    /// Runs a mapping step in ONE transaction, with Core Data's semantics: the source tables are set
    /// aside, the destination version's tables created, every entity mapping makes its rows (key map,
    /// then values), every entity mapping sets its relationships, the layout's bookkeeping is written,
    /// and the result is verified (schema, foreign keys, integrity) before the aside tables go and
    /// the transaction commits. Any failure, a hook's included, rolls all of it back.
    ///
    /// - Parameters:
    ///   - hooks: runs each ``MappingHookRequirement`` of the program where it belongs.
    ///   - before: runs first, on the source shape (a custom stage's inline `before` hooks).
    ///   - after: runs once the store is at `to` (inline `after` hooks).
    ///   - beforeCommit: runs last (the runtime's journal record).
    @discardableResult
    package func runMapping(
        _ program: MappingProgram, hooks: MappingHookRunner, before: ((Database) throws -> Void)? = nil,
        after: ((Database) throws -> Void)? = nil, beforeCommit: ((Database) throws -> Void)? = nil,
        onStatement: ((Int) -> Void)? = nil
    ) throws(StoreError) -> StepOutcome {
        let start = Date()
        let label = "\(program.from.name) → \(program.to.name) (mapping model '\(program.mappingModel)')"
        var executed: [PlannedStatement] = []
        try inSchemaTransaction(
            label: label, first: program.from, setUp: { MappingFunctions.register(program.functions, in: $0) },
            beforeCommit: beforeCommit
        ) { db, _ in
            try before?(db)
            let extras = try ViewsAndTriggers.read(db)
            for extra in extras { try db.execute(sql: extra.dropSQL) }
            try setAside(program, db)
            var index = 0
            for action in program.instancePasses.flatMap(\.actions) + program.relationshipPasses.flatMap(\.actions) {
                switch action {
                case .statement(let statement):
                    onStatement?(index)
                    index += 1
                    try run(statement, db, program: program)
                case .hook(let hook):
                    try hooks(hook, db)
                }
            }
            for statement in program.finishing { try run(statement, db, program: program) }
            try finish(program, extras: extras, db)
            try layout.writeMetadata(db, model: program.to)
            try after?(db)
            try verify(program, db)
        }
        executed = program.renderedSQL.map { PlannedStatement(sql: $0, arguments: [], purpose: "mapping model \(program.mappingModel)") }
        return StepOutcome(
            fromVersion: program.from.name, toVersion: program.to.name, plan: StepSQLPlan(statements: executed, tables: [:]),
            seconds: Date().timeIntervalSince(start))
    }

    /// Renames the source tables aside (their indexes dropped first: the destination's take the same
    /// names) and creates the destination's tables and the key map.
    private func setAside(_ program: MappingProgram, _ db: Database) throws {
        for table in program.sourceTables {
            let indexes = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                arguments: [table])
            for index in indexes { try db.execute(sql: "DROP INDEX \(index.sqlQuoted)") }
            try db.execute(sql: "ALTER TABLE \(table.sqlQuoted) RENAME TO \(MappingProgram.asideName(table).sqlQuoted)")
        }
        for table in program.destination.schema.tables { try db.executeSingle(table.createSQL()) }
        try db.execute(
            sql: "CREATE TEMP TABLE \(MappingProgram.keyMap.sqlQuoted) (\"mapping\" TEXT NOT NULL, \"source_pk\" INTEGER NOT NULL, "
                + "\"destination_pk\" INTEGER NOT NULL, PRIMARY KEY (\"mapping\", \"source_pk\"))")
    }

    /// Indexes, the aside tables and the key map gone, the store's views and triggers back.
    private func finish(_ program: MappingProgram, extras: [ViewsAndTriggers], _ db: Database) throws {
        for index in program.destination.schema.indexes { try db.executeSingle(index.createSQL) }
        for table in program.sourceTables { try db.execute(sql: "DROP TABLE \(MappingProgram.asideName(table).sqlQuoted)") }
        try db.execute(sql: "DROP TABLE \"temp\".\(MappingProgram.keyMap.sqlQuoted)")
        for extra in extras {
            do {
                try db.execute(sql: extra.sql)
            } catch let error as DatabaseError {
                throw StoreError(
                    .verificationFailed, path: path,
                    reason: .viewOrTriggerBroken(type: extra.type, name: extra.name, version: program.to.name), sqlite: SQLiteFailure(error))
            }
        }
        try checkViews(extras, db: db, version: program.to.name)
    }

    private func run(_ statement: MappingStatement, _ db: Database, program: MappingProgram) throws {
        do {
            try db.executeSingle(statement.sql, arguments: statement.statementArguments)
        } catch let error as DatabaseError {
            throw StoreError(
                error.resultCode == .SQLITE_CONSTRAINT ? .dataCondition : .sqlite, path: path,
                reason: .mappingStatementFailed(mappingModel: program.mappingModel, purpose: statement.purpose),
                sqlite: SQLiteFailure(error))
        }
    }

    /// Schema exactly the destination's, every link to an existing row, the file intact.
    private func verify(_ program: MappingProgram, _ db: Database) throws {
        try verifySchema(db, schema: program.destination.schema, version: program.to.name)
        if let violation = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") {
            let table: String = violation["table"]
            let parent: String = violation["parent"]
            throw StoreError(
                .verificationFailed, path: path,
                reason: .foreignKeyBroken(after: .mappingModel(program.mappingModel), table: table, row: nil, parent: parent))
        }
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        guard integrity == ["ok"] else {
            throw StoreError(
                .verificationFailed, path: path,
                reason: .integrityCheckFailed(mappingModel: program.mappingModel, problems: integrity))
        }
    }
}
