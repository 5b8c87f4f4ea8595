import GRDB
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// A column's own `CHECK` clause (kept verbatim by an adopted model, ``SchemaColumn/verbatimClauses``),
/// asked before a seeded value is written.
///
/// The seeder's edge values (negative numbers, empty strings) are exactly what such clauses forbid,
/// and Instar cannot read the clause's meaning. So each value is tried on a one-column table made with
/// the same clause, in a private in-memory database: a value the clause rejects is replaced by the
/// default, NULL (optional columns) or another ordinary value, the first the clause accepts. A table
/// `CHECK` over several columns is not tried here; a row it rejects stops the seed, which is rolled
/// back.
package final class SeedColumnCheck: Sendable {
    private let probe: DatabaseQueue
    private let insert: String

    /// Nil when the column has no `CHECK` clause.
    package init?(column: InstarLayouts.SchemaColumn) throws {
        guard let clauses = column.verbatimClauses, SQLKeywords.words(of: clauses).contains("CHECK") else { return nil }
        probe = try DatabaseQueue()
        // Only the clause: no NOT NULL, key or reference, which the seeder satisfies by itself.
        try probe.write { db in
            try db.execute(sql: "CREATE TABLE \"probe\" (\(column.name.sqlQuoted) \(column.declaredType) \(clauses))")
        }
        insert = "INSERT INTO \"probe\" VALUES (?)"
    }

    /// True when the clause accepts `value`.
    package func accepts(_ value: SQLValue) -> Bool {
        do {
            try probe.inDatabase { db in
                try db.execute(sql: "SAVEPOINT \"probe\"")
                defer { try? db.execute(sql: "ROLLBACK TO \"probe\"; RELEASE \"probe\"") }
                try db.execute(sql: insert, arguments: [value.databaseValue])
            }
            return true
        } catch {
            return false
        }
    }
}
