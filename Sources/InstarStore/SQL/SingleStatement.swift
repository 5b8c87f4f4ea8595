import GRDB

extension Database {
    /// Runs `sql`, which Instar built to be exactly one statement, and refuses it (running none of it)
    /// when SQLite reads more than one there: a value that reached the text unquoted (a declared type,
    /// an action, a verbatim clause) cannot add a statement of its own. `execute(sql:)` would run them all.
    package func executeSingle(_ sql: String, arguments: StatementArguments = StatementArguments()) throws {
        let statement: Statement
        do {
            statement = try makeStatement(sql: sql)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_MISUSE {
            // SQLite's codes (the extended one, which carries the primary) and statement are kept; its
            // message is said after Instar's account of why this happened.
            throw DatabaseError(
                resultCode: error.extendedResultCode,
                message: "the statement Instar built reads as more than one statement to SQLite; none of it was run"
                    + (error.message.map { " (SQLite: \($0))" } ?? ""),
                sql: sql)
        }
        try statement.execute(arguments: arguments)
    }
}
