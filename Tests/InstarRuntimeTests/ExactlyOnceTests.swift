import Foundation
import GRDB
@_spi(Layouts) import Instar
import Testing
@testable import InstarRuntime
import InstarTestSupport
import InstarRuntimeTestSupport

/// "Hooks run exactly once, a run reports only a target it reached": the paths an outside soak found
/// broken, each made deterministic.
///
/// - A connection that waited through another process's first commit decided on GRDB's schema cache
///   from before it (no journal, no lease) and started a second run beside the first.
/// - A plain launch resumed an older paused `--to` run and reported success short of the target.
/// - A SIGKILLed holder not yet reaped (a zombie) kept the store locked.
@Suite struct ExactlyOnceTests {
    // MARK: Fresh facts

    /// Another connection's new tables are seen by a store's connection that had looked before, in a
    /// plain access and inside the write transaction (GRDB does not refresh a writer's schema cache
    /// for other connections' DDL).
    @Test func aStoreSeesTablesAnotherConnectionCreated() throws {
        let f = try RuntimeFixture(stage: "", hooks: "  {}\n")
        defer { f.remove() }
        let store = try SQLiteStore.open(at: f.store)
        defer { try? store.close() }
        #expect(try store.withDatabase { db in try db.tableExists("_instar_journal") } == false)  // cached now
        try f.execute(#"CREATE TABLE "_instar_journal" ("id" INTEGER PRIMARY KEY)"#)
        #expect(try store.withDatabase { db in try db.tableExists("_instar_journal") } == true)

        try f.execute(#"CREATE TABLE "_instar_lease" ("id" INTEGER PRIMARY KEY)"#)
        var seenInTransaction = false
        try store.inWriteTransaction { db in
            seenInTransaction = try db.tableExists("_instar_lease")
            return .rollback
        }
        #expect(seenInTransaction)
    }

    // MARK: Targets

    /// A run killed on its way to V2 (`migrate --to V2`, inside its batched hook), then a plain call
    /// (the plan's target, V3): the unfinished run is finished and a second run goes on to V3 in the
    /// same call, which reports `.finished` only there; every batch and hook ran once. A call asking
    /// for a target before the unfinished run's is refused without a write.
    @Test func anUnfinishedRunIsFinishedThenTheCallGoesOnToItsOwnTarget() throws {
        let f = try ThreeVersionFixture()
        defer { f.remove() }
        try f.killedInsideTheBatches(["--to", "V2"])
        let journal = try #require(try Migrator.status(ofStoreAt: f.store).journal)
        #expect(journal.target == "V2" && journal.status == .running, "\(journal)")

        let before = try f.runtime.bytes()
        let earlier = try #require(#expect(throws: ResumeRefused.self) { try f.runtime.migrator().migrate(storeAt: f.store, to: "V1") })
        #expect(earlier.reason == .otherTarget(unfinishedTarget: "V2", requested: "V1"))
        #expect(try f.runtime.bytes() == before)

        let result = try f.runtime.migrator().migrate(storeAt: f.store)
        #expect(result == .finished(steps: 2), "the unfinished run's step, then one to V3: \(result)")
        try f.expectAtV3ExactlyOnce()
    }

    /// The same through the CLI: a plain `migrate` after an unfinished `--to V2` run exits 0 only with
    /// the store at the plan's target.
    @Test func aPlainLaunchAfterAnUnfinishedToRunEndsAtThePlansTarget() throws {
        let f = try ThreeVersionFixture()
        defer { f.remove() }
        try f.killedInsideTheBatches(["--to", "V2"])
        let plain = try f.runtime.instar(["migrate", f.runtime.plan, "--store", f.store])
        #expect(plain.status == 0, "\(plain)")
        try f.expectAtV3ExactlyOnce()
    }

    /// A run unfinished towards V3, then `--to V2`: V2 lies before that run's target, so the call is
    /// refused and the store keeps every byte; a plain call then finishes it.
    @Test func aTargetBeforeTheUnfinishedRunsIsRefusedUnwritten() throws {
        let f = try ThreeVersionFixture()
        defer { f.remove() }
        try f.killedInsideTheBatches([])
        let before = try f.runtime.bytes()
        let refused = try #require(#expect(throws: ResumeRefused.self) { try f.runtime.migrator().migrate(storeAt: f.store, to: "V2") })
        #expect(refused.reason == .otherTarget(unfinishedTarget: "V3", requested: "V2"))
        #expect(try f.runtime.bytes() == before)
        #expect(try f.runtime.migrator().migrate(storeAt: f.store).isFinished)
        try f.expectAtV3ExactlyOnce()
    }

    // MARK: Liveness

    /// A lease whose owner held the store's lock is alive exactly while some other process holds that
    /// lock: a holder SIGKILLed and left unreaped (a zombie, which `kill(pid, 0)` still finds) is dead.
    @Test func aKilledLockHolderIsDeadBeforeItIsReaped() throws {
        let f = try RuntimeFixture(rows: 3, stage: "after: [logInside]", hooks: "  logInside: {sql: \"INSERT INTO \\\"Log\\\" (\\\"msg\\\") VALUES ('inside')\"}\n")
        defer { f.remove() }
        let holder = try UnreapedChild.holdingLock(of: f.store)
        defer { holder.reap() }
        try f.writeLease(pid: holder.pid, host: ProcessInfo.processInfo.hostName)
        try f.execute(#"ALTER TABLE "_instar_lease" ADD COLUMN "holdsLock" INTEGER"#)
        try f.execute(#"UPDATE "_instar_lease" SET "holdsLock" = 1"#)

        let alive = try #require(#expect(throws: LeaseError.self) { try f.migrator().migrate(storeAt: f.store) })
        #expect(alive.holder.pid == holder.pid, "\(alive)")

        holder.kill()  // SIGKILL, not reaped: the lock goes with the process, the pid stays
        #expect(Glibc.kill(holder.pid, 0) == 0, "the zombie still answers kill(pid, 0)")
        #expect(try f.migrator().migrate(storeAt: f.store) == .finished(steps: 1))
        #expect(try f.logCounts() == ["inside": 1])
    }

    /// A lease written without the lock (an earlier Instar) by a process that was SIGKILLed and not
    /// reaped is dead too: its state is `Z`.
    @Test func anUnreapedZombiesLeaseIsTakenOver() throws {
        let f = try RuntimeFixture(rows: 3, stage: "after: [logInside]", hooks: "  logInside: {sql: \"INSERT INTO \\\"Log\\\" (\\\"msg\\\") VALUES ('inside')\"}\n")
        defer { f.remove() }
        let child = try UnreapedChild.sleeping()
        defer { child.reap() }
        try f.writeLease(pid: child.pid, host: ProcessInfo.processInfo.hostName)
        #expect(throws: LeaseError.self) { try f.migrator().migrate(storeAt: f.store) }
        child.kill()
        #expect(Glibc.kill(child.pid, 0) == 0)
        #expect(try f.migrator().migrate(storeAt: f.store) == .finished(steps: 1))
    }

    /// While a run holds the store, its lock file exists and another process sees it held; when the
    /// run ends the file is gone.
    @Test func theLockFileLivesExactlyAsLongAsTheRun() throws {
        let f = try RuntimeFixture(stage: "before: [external]", hooks: "  external: {command: [python3, wait.py]}\n")
        defer { f.remove() }
        try f.writeWaitScript()
        let lockFile = StoreLock.path(forStore: f.store)
        let first = try f.start(["migrate", f.plan, "--store", f.store, "--allow-commands"])
        defer { first.kill() }
        #expect(f.waitForFile("started"), "the first migration never reached its hook: \(first.result())")
        #expect(FileManager.default.fileExists(atPath: lockFile))
        #expect(StoreLock.isHeldByAnotherProcess(store: f.store))
        try f.touch("release")
        #expect(first.result(timeout: 300).status == 0)
        #expect(!FileManager.default.fileExists(atPath: lockFile))
        #expect(!StoreLock.isHeldByAnotherProcess(store: f.store))
    }
}

/// V1 → V2 → V3: after V1 → V2 a batched SQL hook adds 1 to each `Item.n`, two rows a commit (so a
/// run can be killed between its batches), and after V2 → V3 an inline SQL hook logs `toV3`.
struct ThreeVersionFixture {
    let runtime: RuntimeFixture
    var store: String { runtime.store }

    init() throws {
        runtime = try RuntimeFixture(rows: 6, stage: "", hooks: "  {}\n")
        let v3 = "name: V3\nentities:\n  Item:\n    attributes:\n      n: int64 = 0\n      label: string?\n      note: string?\n      extra: string?\n  Log:\n    attributes:\n      msg: string?\n"
        try v3.write(to: runtime.dir.appendingPathComponent("v3.yaml"), atomically: true, encoding: .utf8)
        try """
        name: three
        versions: [v1.yaml, v2.yaml, v3.yaml]
        stages:
          - {from: V1, to: V2, after: [bump]}
          - {from: V2, to: V3, after: [toV3]}
        hooks:
          bump: {batchedSQL: {table: Item, size: 2, sql: 'UPDATE "Item" SET "n" = "n" + 1 WHERE "_pk" BETWEEN :start AND :end'}}
          toV3: {sql: ["INSERT INTO \\"Log\\" (\\"msg\\") VALUES ('toV3')"]}
        """.write(toFile: runtime.plan, atomically: true, encoding: .utf8)
    }

    func remove() { runtime.remove() }

    /// `instar migrate` with `arguments`, SIGKILLed right after the batched hook's first commit.
    func killedInsideTheBatches(_ arguments: [String]) throws {
        let killed = try runtime.instar(
            ["migrate", runtime.plan, "--store", store] + arguments, environment: ["INSTAR_FAILPOINT": "batch.after-commit@1"])
        #expect(killed.reason == .uncaughtSignal, "\(killed)")
    }

    /// The store is at V3, every row was bumped once and `toV3` logged once.
    func expectAtV3ExactlyOnce(sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        #expect(try runtime.version() == "V3", sourceLocation: sourceLocation)
        #expect(try runtime.ints(#"SELECT "n" FROM "Item" ORDER BY "_pk""#) == Array(repeating: 1, count: 6), sourceLocation: sourceLocation)
        #expect(try runtime.logCounts() == ["toV3": 1], sourceLocation: sourceLocation)
    }
}

/// A child process started with `posix_spawn` and reaped only when asked, so that a test can hold a
/// SIGKILLed process as a zombie (Foundation's `Process` reaps its children itself).
final class UnreapedChild {
    let pid: pid_t
    private var reaped = false

    private init(_ arguments: [String]) throws {
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let status = posix_spawnp(&pid, arguments[0], nil, nil, argv, environ)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
        self.pid = pid
    }

    /// `sleep 300`: alive until killed (the bound only ends a test that failed to kill it).
    static func sleeping() throws -> UnreapedChild { try UnreapedChild(["sleep", "300"]) }

    /// A Python process holding `flock` on the store's lock file, as a running Instar does; returns
    /// once the lock is held.
    static func holdingLock(of store: String) throws -> UnreapedChild {
        let script = "import fcntl,sys,time\nf=open(sys.argv[1],'w')\nfcntl.flock(f,fcntl.LOCK_EX)\ntime.sleep(300)\n"
        let child = try UnreapedChild(["python3", "-c", script, StoreLock.path(forStore: store)])
        let giveUp = Date().addingTimeInterval(60)  // bounds a hang only
        while !StoreLock.isHeldByAnotherProcess(store: store), Date() < giveUp { Thread.sleep(forTimeInterval: 0.01) }
        return child
    }

    func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        // Wait until the kernel has made it a zombie (without reaping it): its state turns `Z`.
        let giveUp = Date().addingTimeInterval(60)
        while !ProcessStart.isZombie(pid), Date() < giveUp { Thread.sleep(forTimeInterval: 0.005) }
    }

    func reap() {
        guard !reaped else { return }
        reaped = true
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }
}
