import GRDB
@_spi(Layouts) import InstarModel
import GRDBSQLite

/// Stops a statement in flight when a run must stop now: a cancelled task, a spent time budget, a signal.
///
/// A step is one transaction and may run for minutes. Waiting for it to end before honouring a
/// cancellation would make an app's budget a suggestion. SQLite's progress handler asks `shouldStop`
/// every few thousand virtual-machine instructions; when it answers true the statement fails with
/// `SQLITE_INTERRUPT` and SQLite rolls back the transaction it belonged to, so the store is left at
/// the last commit — exactly where the journal says the run is. The check is a lock and a clock read,
/// so its cost is lost in the statement's own work.
package final class StatementInterrupter: @unchecked Sendable {
    let shouldStop: @Sendable () -> Bool
    init(_ shouldStop: @escaping @Sendable () -> Bool) { self.shouldStop = shouldStop }
}

extension SQLiteStore {
    /// SQLite asks `shouldStop` every `instructions` VM instructions while a statement runs on the
    /// store's connection; true interrupts it. Pass nil to remove the check.
    package func interruptStatements(when shouldStop: (@Sendable () -> Bool)?, every instructions: Int32 = 2000) throws {
        let interrupter = shouldStop.map(StatementInterrupter.init)
        // Not a decision about the store: no schema refresh (and nothing here may be interrupted).
        try queue.inDatabase { db in
            guard let connection = db.sqliteConnection else { return }
            if let interrupter {
                let context = Unmanaged.passUnretained(interrupter).toOpaque()
                sqlite3_progress_handler(connection, instructions, { context in
                    guard let context else { return 0 }
                    return Unmanaged<StatementInterrupter>.fromOpaque(context).takeUnretainedValue().shouldStop() ? 1 : 0
                }, context)
            } else {
                sqlite3_progress_handler(connection, 0, nil, nil)
            }
            // Kept alive by the store for as long as SQLite may call it.
            self.interrupter.withLock { $0 = interrupter }
        }
    }
}
