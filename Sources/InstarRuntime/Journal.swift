import Foundation
import GRDB
@_spi(Layouts) import InstarSQL

/// The record of a migration run, kept inside the store so that it commits atomically with the work.
///
/// Every unit of work (a step's transaction, one hook, one batch) commits together with the journal
/// update that says it is done. A killed run therefore resumes exactly where it stopped: the journal
/// and the data can never disagree.
public struct JournalEntry: Sendable, Codable, Equatable {
    /// Which part of the current step the run is in.
    public enum Phase: String, Sendable, Codable {
        /// Hooks that run on the old shape, before the step's transaction.
        case before
        /// The step's transaction: the schema change with its SQL hooks.
        case schema
        /// Hooks that run on the new shape, after the step's transaction.
        case after
    }

    /// How the run stands.
    public enum Status: String, Sendable, Codable {
        /// Running now, or killed while running (the next run resumes it and counts an attempt).
        case running
        /// Stopped on request (cancelled, out of time budget) at a committed point; the next run resumes it.
        case paused
        /// Stopped by an error (in ``JournalEntry/lastError``); the next run resumes it.
        case failed
        /// Every step done. Only kept when the layout keeps the journal; otherwise the table is dropped.
        case finished
    }

    /// One step of the run's chain, fixed when the run starts.
    public struct StepRecord: Sendable, Codable, Equatable {
        /// The version the step starts from.
        public package(set) var from: String
        /// The version the step ends at.
        public package(set) var to: String
        /// The step's kind (`lightweight`, `custom`, `mapping`, `synthesized`).
        public package(set) var kind: String
        /// Identifies what the step does (both versions' checksums and its hooks' definitions), so a
        /// resumed run can tell whether the plan changed under it.
        public package(set) var fingerprint: String
    }

    /// The run's identifier (a UUID), the same across resumptions.
    public package(set) var run: String
    /// The plan's name.
    package var plan: String
    /// The plan file's path, as the run was started with it.
    package var planFile: String
    /// The version the run migrates to (the chain's last).
    public package(set) var target: String
    /// The steps chosen when the run started; a resumed run keeps them and refuses if their plan changed.
    package var chain: [StepRecord]
    /// Index into ``chain`` of the current step (zero-based); equal to its count when all are done.
    package var step: Int
    /// Where the current step is.
    package var phase: Phase
    /// Index of the next hook to run within the phase's separately committed hooks.
    package var hook: Int
    /// The current hook's checkpoint (a batch's last key, or a command's token).
    package var checkpoint: String?
    /// Attempts so far: 1 for the first, plus one for each resumption after a failure or a kill (not after
    /// a pause).
    public package(set) var attempts: Int
    /// The error that failed the last attempt, in words; nil if none failed.
    public package(set) var lastError: String?
    /// When the run first started.
    public package(set) var startedAt: Date
    /// When the journal was last committed.
    public package(set) var updatedAt: Date
    /// Who runs it or last ran it (the ``Lease/owner`` of that process).
    package var owner: String
    /// How the run stands.
    public package(set) var status: Status
    /// Seconds spent per step label.
    package var timings: [String: Double]
    /// How far the copies of the current step's sliced rewrite are, while it copies rows ahead of its
    /// transaction (``SlicedProgress``); nil otherwise.
    package var slices: SlicedProgress?

    /// Rows the current step's sliced rewrite has copied so far, while it copies ahead of its
    /// transaction; nil otherwise. With ``rowsToCopy``, what a launch shows before it resumes.
    public var rowsCopied: Int? { slices?.rowsCopied }
    /// Rows the current step's sliced rewrite copies in all; nil when no sliced copy is under way.
    public var rowsToCopy: Int? { slices?.rowsTotal }

    /// The step the run is in; nil when all are done.
    package var currentStep: StepRecord? { step < chain.count ? chain[step] : nil }

    /// Where the run is, in words: "step 3/5 (A → B), after phase, hook 2 at checkpoint 4100".
    public var position: String { ChainExecutor.position(self) }
}

/// Reading and writing the journal table. All writes happen inside the caller's transaction.
package enum Journal {
    /// The journal's table in the store. It exists only while a run is unfinished, unless the layout
    /// keeps the journal.
    package static let table = "_instar_journal"

    static func create(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(SQLIdentifier.quoted(table)) (
                  "run" TEXT PRIMARY KEY NOT NULL, "plan" TEXT NOT NULL, "status" TEXT NOT NULL,
                  "step" INTEGER NOT NULL, "phase" TEXT NOT NULL, "hook" INTEGER NOT NULL, "checkpoint" TEXT,
                  "attempts" INTEGER NOT NULL, "lastError" TEXT, "owner" TEXT NOT NULL,
                  "startedAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL, "entry" TEXT NOT NULL)
                """)
    }

    /// The newest run that has not finished, if any.
    package static func unfinished(_ db: Database) throws -> JournalEntry? {
        try latest(db, where: "\"status\" <> 'finished'")
    }

    /// The newest run of any status.
    package static func latest(_ db: Database) throws -> JournalEntry? {
        try latest(db, where: "1")
    }

    private static func latest(_ db: Database, where condition: String) throws -> JournalEntry? {
        guard try db.tableExists(table) else { return nil }
        guard
            let text = try String.fetchOne(
                db, sql: "SELECT \"entry\" FROM \(SQLIdentifier.quoted(table)) WHERE \(condition) ORDER BY \"updatedAt\" DESC LIMIT 1")
        else { return nil }
        return try decoder.decode(JournalEntry.self, from: Data(text.utf8))
    }

    static func save(_ entry: JournalEntry, _ db: Database) throws {
        try create(db)
        let text = String(decoding: try encoder.encode(entry), as: UTF8.self)
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO \(SQLIdentifier.quoted(table)) ("run", "plan", "status", "step", "phase", "hook", "checkpoint",
                  "attempts", "lastError", "owner", "startedAt", "updatedAt", "entry")
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                entry.run, entry.plan, entry.status.rawValue, entry.step, entry.phase.rawValue, entry.hook,
                entry.checkpoint, entry.attempts, entry.lastError, entry.owner, iso(entry.startedAt),
                iso(entry.updatedAt), text,
            ])
    }

    /// The date as ISO 8601 with fractional seconds, as the journal's columns store it.
    package static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Encodes a ``JournalEntry`` as the journal stores it (sorted keys, ISO 8601 dates).
    package static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        e.dateEncodingStrategy = .iso8601
        return e
    }()

    static let decoder: JSONDecoder = {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }()
}

/// How the journal's position moves: the only ways the executor advances it, so that a phase or a step
/// always starts at its first hook with no checkpoint, and a hook's end always clears its checkpoint.
extension JournalEntry {
    /// The position after the current hook of the phase: the next hook, from its start.
    package func pastHook() -> JournalEntry {
        var next = self
        next.hook += 1
        next.checkpoint = nil
        return next
    }

    /// The same hook, with its work done up to `checkpoint` (a batch's last key, a command's token).
    package func checkpointed(_ checkpoint: String) -> JournalEntry {
        var next = self
        next.checkpoint = checkpoint
        return next
    }

    /// The start of `phase` at `step` (the current step by default; a fused run ends at its last step).
    package func entering(_ phase: Phase, atStep step: Int? = nil) -> JournalEntry {
        var next = self
        if let step { next.step = step }
        next.phase = phase
        next.hook = 0
        next.checkpoint = nil
        next.slices = nil
        return next
    }

    /// The start of the next step (its `before` phase).
    package func nextStep() -> JournalEntry {
        entering(.before, atStep: step + 1)
    }
}
