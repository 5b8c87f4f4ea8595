import Foundation
import GRDB
@_spi(Layouts) import Instar
import Testing
import InstarRuntimeTestSupport

/// How many times a run commits: each commit is a disk sync, so the run shares them as far as the
/// journal's guarantee allows (the counts and their reasons are written where the run commits,
/// `ChainExecutor+Commits.swift`). Counted by SQLite's file change counter (bytes 24–27 of the
/// header), which every committed write transaction of a rollback-journal store increments, whoever
/// makes it: a fold that regresses shows here, not only in the benchmark.
@Suite struct RunCommitTests {
    /// The store's file change counter.
    static func changeCounter(_ path: String) throws -> UInt32 {
        let handle = try #require(FileHandle(forReadingAtPath: path))
        defer { try? handle.close() }
        let header = try #require(try handle.read(upToCount: 28))
        #expect(header.count == 28, "\(path): no SQLite header")
        return header[24..<28].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Commits of one call of `migrate`, and its result.
    static func commits(_ f: RuntimeFixture, _ migrator: Migrator) throws -> (Int, MigrationResult) {
        let before = try changeCounter(f.store)
        let result = try migrator.migrate(storeAt: f.store)
        return (Int(try changeCounter(f.store) &- before), result)
    }

    /// A fresh one-step run without hooks commits once: the step's transaction claims the lease,
    /// records the run and finishes it. The run is still complete: at V2, journal finished, no lease.
    @Test func freshStepWithoutHooksCommitsOnce() throws {
        let f = try RuntimeFixture(rows: 20, stage: "before: []", hooks: "  {}")
        defer { f.remove() }
        let (commits, result) = try Self.commits(f, try f.migrator())
        #expect(result == .finished(steps: 1))
        #expect(commits == 1, "a fresh one-step run committed \(commits) times")
        #expect(try f.version() == "V2")
        let status = try Migrator.status(ofStoreAt: f.store)
        #expect(status.journal?.status == .finished && status.lease == nil)
        // Its time is recorded although no commit of its own followed the step.
        #expect(status.journal?.timings["V1 → V2"] != nil)
        // Launched again: nothing to do, nothing written.
        #expect(try Self.commits(f, try f.migrator()).0 == 0)
    }

    /// SQL hooks that run inside the step's transaction add no commit.
    @Test func inlineSQLHooksAddNoCommit() throws {
        let f = try RuntimeFixture(
            stage: "before: [logBefore]\n    after: [logInside]",
            hooks: """
                  logBefore:
                    sql: ["INSERT INTO \\"Log\\" (\\"msg\\") VALUES ('before')"]
                  logInside:
                    sql: ["INSERT INTO \\"Log\\" (\\"msg\\") VALUES ('inside')"]
                """)
        defer { f.remove() }
        let (commits, result) = try Self.commits(f, try f.migrator())
        #expect(result == .finished(steps: 1) && commits == 1, "\(commits) commits")
        #expect(try f.logCounts() == ["before": 1, "inside": 1])
    }

    /// A Swift hook commits on its own and works between transactions, so the lease must be held while
    /// it runs. After the step: the step claims it (1), the hook commits with its record (2), and one
    /// commit moves past the step and finishes the run (3). Before the step: a commit of its own claims
    /// the lease and records the start (1), the hook (2), then the step moves on and finishes (3).
    @Test(arguments: [("after", 3), ("before", 3)])
    func separateHookRunsWithTheLeaseHeld(phase: String, expected: Int) throws {
        let f = try RuntimeFixture(stage: "\(phase): [native]", hooks: "  native: {swift: native}\n")
        defer { f.remove() }
        let migrator = try f.migrator()
        let seen = SeenStatus()
        migrator.register(hook: "native") { context in
            let status = try Migrator.status(ofStoreAt: context.storePath)
            seen.set(status.lease, status.journal)
            try context.write { db in try db.execute(sql: #"INSERT INTO "Log" ("msg") VALUES ('native')"#) }
        }
        let (commits, result) = try Self.commits(f, migrator)
        #expect(result == .finished(steps: 1) && commits == expected, "\(phase): \(commits) commits")
        let (lease, journal) = seen.get()
        #expect(lease?.pid == getpid(), "the hook ran without the lease held: \(String(describing: lease))")
        #expect(journal?.status == .running && journal?.phase.rawValue == phase)
        #expect(try f.logCounts() == ["native": 1])
        let status = try Migrator.status(ofStoreAt: f.store)
        #expect(status.journal?.status == .finished && status.lease == nil)
    }
}

/// What a hook saw of the store's status, handed back to the test.
private final class SeenStatus: @unchecked Sendable {
    private let lock = NSLock()
    private var value: (Lease?, JournalEntry?) = (nil, nil)
    func set(_ lease: Lease?, _ journal: JournalEntry?) { lock.withLock { value = (lease, journal) } }
    func get() -> (Lease?, JournalEntry?) { lock.withLock { value } }
}
