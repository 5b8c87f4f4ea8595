import GRDB

/// One SQL statement of a step, with its bound values and why it runs.
public struct PlannedStatement: Sendable, CustomStringConvertible {
    public var sql: String
    public var arguments: [DatabaseValue]
    public var purpose: String

    public var description: String {
        arguments.isEmpty ? sql : "\(sql) -- with \(arguments.map(\.description).joined(separator: ", "))"
    }
}

/// How each table of a step is handled, for reports.
public enum TableTreatment: Sendable, Hashable {
    /// Altered in place with these statements' kinds (`ADD COLUMN`, `RENAME COLUMN`, …); may be none.
    case altered([String])
    /// Rebuilt: a new table filled by one `INSERT … SELECT`, then swapped in.
    case rebuilt(reason: String)
    /// Created, filled from other tables' rows (or empty).
    case created
    case dropped
}

/// The SQL of one step, decided from its program and the store's actual schema.
public struct StepSQLPlan: Sendable {
    public var statements: [PlannedStatement]
    /// Target (or dropped source) table → treatment.
    public var tables: [String: TableTreatment]

    public var rebuiltTables: [String] {
        tables.filter { if case .rebuilt = $0.value { return true } else { return false } }.map(\.key).sorted()
    }
}

/// Turns a ``StepProgram`` into SQL: in-place `ALTER TABLE` where SQLite allows it, SQLite's documented
/// table rebuild (new table, `INSERT … SELECT`, drop, rename, indexes) everywhere else.
///
/// Order inside the step's single transaction: every new or rebuilt table is created and filled first,
/// while all older tables still exist (a join table may be filled from another table's foreign keys);
/// then tables are altered in place; then older tables are dropped; then new tables take their final
/// names; then indexes, and the store's own views and triggers, are recreated.
public enum StepSQLPlanner {
    public static func plan(_ program: StepProgram, actual: StoreSchema, viewsAndTriggers: [String]) -> StepSQLPlan {
        var statements: [PlannedStatement] = []
        var tables: [String: TableTreatment] = [:]
        var renames: [(from: String, to: String)] = []
        var temporaryCount = 0
        func temporaryName() -> String {
            temporaryCount += 1
            return "_instar_step_\(temporaryCount)"
        }
        func add(_ sql: String, _ arguments: [DatabaseValue] = [], _ purpose: String) {
            statements.append(PlannedStatement(sql: sql, arguments: arguments, purpose: purpose))
        }

        // The final name of each older table that continues.
        var tableRenames: [String: String] = [:]
        for t in program.transformations where t.continuesSource {
            if let source = t.source { tableRenames[source] = t.target.name }
        }

        // 1. Decide in place or rebuild; create and fill new tables.
        var inPlace: [(TableTransformation, TableDefinition, [PlannedStatement])] = []
        for t in program.transformations {
            if t.continuesSource, let source = t.source, let sourceDefinition = actual.table(named: source) {
                switch InPlaceAlteration.statements(for: t, source: sourceDefinition, tableRenames: tableRenames) {
                case .success(let alterations):
                    inPlace.append((t, sourceDefinition, alterations))
                    continue
                case .failure(let reason):
                    tables[t.target.name] = .rebuilt(reason: reason.message)
                }
            } else {
                tables[t.target.name] = .created
            }
            let temporary = temporaryName()
            add(t.target.createSQL(named: temporary), [], "create \(t.target.name)")
            if let source = t.source {
                var arguments: [DatabaseValue] = []
                let targetColumns = t.target.columns.map(\.name).filter { t.columns[$0] != nil }
                let values = targetColumns.map { t.expression(for: $0).render(&arguments) }
                var sql = "INSERT INTO \(temporary.sqlQuoted) (\(SQLIdentifier.list(targetColumns))) SELECT \(values.joined(separator: ", ")) FROM \(source.sqlQuoted)"
                if !t.filter.isEmpty {
                    sql += " WHERE " + t.filter.map { $0.render(&arguments) }.joined(separator: " AND ")
                }
                add(sql, arguments, "copy rows into \(t.target.name)")
            }
            renames.append((temporary, t.target.name))
        }

        // 2. Indexes on tables altered in place that the new version does not have are dropped first:
        //    SQLite refuses to drop a column an index uses.
        let wanted = Set(program.targetSchema.indexes)
        for (t, source, _) in inPlace {
            for index in actual.indexes(on: source.name) {
                var renamed = index
                renamed.table = t.target.name
                renamed.elements = index.elements.map { e in
                    var e = e
                    e.column = InPlaceAlteration.newName(of: e.column, in: t) ?? "\u{0}dropped"
                    return e
                }
                if !wanted.contains(renamed) || renamed.name != index.name {
                    add("DROP INDEX \(index.name.sqlQuoted)", [], "drop index \(index.name)")
                }
            }
        }

        // 3. Alter in place.
        for (t, source, alterations) in inPlace {
            statements += alterations
            tables[t.target.name] = .altered(alterations.map(\.purpose))
            if source.name != t.target.name {
                let temporary = temporaryName()
                add("ALTER TABLE \(source.name.sqlQuoted) RENAME TO \(temporary.sqlQuoted)", [], "rename \(source.name)")
                renames.append((temporary, t.target.name))
            }
        }

        // 4. Drop older tables that were rebuilt or are gone.
        let alteredSources = Set(inPlace.map(\.1.name))
        for table in actual.tables.map(\.name) where !alteredSources.contains(table) {
            add("DROP TABLE \(table.sqlQuoted)", [], "drop \(table)")
            if tables[table] == nil { tables[table] = .dropped }
        }

        // 5. Final names.
        for (from, to) in renames {
            add("ALTER TABLE \(from.sqlQuoted) RENAME TO \(to.sqlQuoted)", [], "rename to \(to)")
        }

        // 6. Indexes the new version wants and that do not exist yet.
        var existing = Set<IndexDefinition>()
        for (t, source, _) in inPlace {
            for index in actual.indexes(on: source.name) {
                var renamed = index
                renamed.table = t.target.name
                renamed.elements = index.elements.map { e in
                    var e = e
                    e.column = InPlaceAlteration.newName(of: e.column, in: t) ?? "\u{0}dropped"
                    return e
                }
                if wanted.contains(renamed) && renamed.name == index.name { existing.insert(renamed) }
            }
        }
        for index in program.targetSchema.indexes where !existing.contains(index) {
            add(index.createSQL, [], "index \(index.name)")
        }

        // 7. The store's own views and triggers, as they were.
        for sql in viewsAndTriggers {
            add(sql, [], "recreate view or trigger")
        }
        return StepSQLPlan(statements: statements, tables: tables)
    }
}
