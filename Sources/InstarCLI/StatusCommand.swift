import ArgumentParser
import Foundation
@_spi(Layouts) import Instar

/// `instar status --store <db>`: the migration journal kept inside the store.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the store's migration journal: where a run is, its errors, who holds the store.",
        discussion: """
            Reads the store without writing. Shows the unfinished run if there is one (else the last \
            run): its chain, the current step, phase, hook and checkpoint, attempts, the last error, \
            timings, and the lease holder.

            Exit status 0 when no run is unfinished, 1 when one is (paused, failed, or interrupted).

            Example:
              instar status --store music.sqlite --format json
            """
    )

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.store }

    @OptionGroup var output: FormatOption
    var format: OutputFormat { output.format }

    func run() throws {
        let status: StoreStatus
        do {
            status = try Migrator.status(ofStoreAt: store)
        } catch let error as StoreError {
            throw fail(error)
        }
        switch format {
        case .json:
            printOut(jsonText(status, encoder: Journal.encoder))
        case .text:
            guard let journal = status.journal else {
                printOut("no migration has run on \(store)")
                return
            }
            var lines = ["run \(journal.run) of plan \(journal.plan): \(journal.status.rawValue)"]
            lines.append("chain: " + ([journal.chain.first?.from ?? "?"] + journal.chain.map(\.to)).joined(separator: " → "))
            if journal.status != .finished {
                lines.append("at: " + journal.position)
            }
            lines.append("attempts: \(journal.attempts); started \(Journal.iso(journal.startedAt)); updated \(Journal.iso(journal.updatedAt))")
            if let error = journal.lastError { lines.append("last error: \(error)") }
            for (step, seconds) in journal.timings.sorted(by: { $0.key < $1.key }) {
                lines.append(String(format: "  %@: %.2f s", step, seconds))
            }
            if let lease = status.lease {
                lines.append("held by \(lease)\(status.leaseIsAlive ? "" : " (no longer running: the next migrate takes over)")")
            }
            if journal.status != .finished {
                lines.append("continue with: instar migrate \(journal.planFile) --store \(store)")
            }
            printOut(lines.joined(separator: "\n"))
        }
        if status.unfinished { throw InstarExit.failure }
    }
}

/// `instar restore --backup <file> --store <db>`: put a backup back.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put back a backup taken with 'instar migrate --backup'.",
        discussion: """
            Copies the backup into the store with SQLite's backup API (never half-written). Refuses \
            while another migration holds the store.

            Example:
              instar restore --backup music.before.sqlite --store music.sqlite
            """
    )

    @Option(help: "The backup file, copied over --store.")
    var backup: String

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.store }

    func run() throws {
        do {
            // The lease and the backup are checked before the store is opened for writing: a refusal
            // changes nothing (a read-write connection would checkpoint the store's -wal when it closes).
            let reader = try Self.openForReading(store)
            if let holder = try reader.withDatabase({ db in try Lease.holder(db) }), holder.isAlive,
                holder.pid != getpid()
            {
                printError(ErrorHints.text(LeaseError(path: store, holder: holder)))
                throw InstarExit.locked
            }
            try SQLiteStore.checkBackup(backup)
            let opened = try Self.openForWriting(store, after: reader)
            try opened.restore(from: backup)
            printOut("restored \(store) from \(backup)")
        } catch let error as StoreError {
            throw fail(error, store: store)
        }
    }

    /// The store, read-only; opened for writing only when a killed writer left a hot journal that
    /// only a writer can roll back (as before).
    static func openForReading(_ store: String) throws(StoreError) -> SQLiteStore {
        do {
            return try SQLiteStore.open(at: store, readOnly: true)
        } catch {
            guard error.kind == .needsRecovery else { throw error }
            return try SQLiteStore.open(at: store)
        }
    }

    /// The store for writing: `reader` itself when it writes already, else a new connection.
    static func openForWriting(_ store: String, after reader: SQLiteStore) throws(StoreError) -> SQLiteStore {
        guard reader.isReadOnly else { return reader }
        let writer = try SQLiteStore.open(at: store)
        try? reader.close()
        return writer
    }
}
