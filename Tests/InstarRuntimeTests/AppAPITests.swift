import Foundation
import GRDB
@_spi(Layouts) import Instar
import Testing
import InstarTestSupport
import InstarRuntimeTestSupport

/// The app-facing API: an async `migrate` off the caller's executor, async Swift hooks, progress
/// streams for several consumers that end with the run, and task cancellation that leaves a store the
/// next call finishes. On `Plans/garage` (Garage 1 → Garage 3 in one step) with an `after` hook that
/// counts each car's mileage once.
@Suite struct AppAPITests {
    /// The "migrate at launch" example of the documentation, compiled and run.
    @Test func migrateAtLaunch() async throws {
        let f = try GarageFixture(cars: 4)
        defer { f.remove() }

        let migrator = Migrator(plan: try PlanFileReader.read(path: f.plan))
        migrator.register(hook: "odometer") { context in
            try await Task.sleep(for: .milliseconds(5))  // e.g. asking a server or another actor
            try context.write(checkpoint: "all") { db in try db.execute(sql: #"UPDATE "Automobile" SET "mileage" = "mileage" + 1"#) }
        }
        let log = migrator.progressEvents(), ui = migrator.progressEvents()
        async let logged = Self.collect(log)
        async let shown = Self.collect(ui)
        let result = try await migrator.migrate(store: f.storeURL) { event in _ = event }

        #expect(result == .finished(steps: 1))
        let (first, second) = await (logged, shown)  // both streams finish when the run ends
        #expect(first == second)
        #expect(first.contains { if case .finished = $0 { true } else { false } }, "\(first)")
        #expect(first.contains { if case .started = $0 { true } else { false } }, "\(first)")
        #expect(try f.mileages() == [1, 1, 1, 1])
    }

    /// Cancelling the task stops at the next safe point: the hook's committed units stay, the result is
    /// `.paused(.cancelled)`, and a second `migrate` finishes the rest, each car counted once. On the
    /// first run the hook waits after its third car until it is cancelled, however slow the machine.
    @Test(.timeLimit(.minutes(2))) func cancellationLeavesAResumableStore() async throws {
        let f = try GarageFixture(cars: 12)
        defer { f.remove() }
        let migrator = Migrator(plan: try PlanFileReader.read(path: f.plan))
        let holdAfterThird = Locked(true)
        migrator.register(hook: "odometer") { context in
            var next = Int64(context.checkpoint ?? "0")! + 1
            while next <= 12, !context.isCancelled {
                if next == 4 && holdAfterThird.current { try await Task.sleep(for: .seconds(3600)) }
                try context.write(checkpoint: String(next)) { db in
                    try db.execute(sql: #"UPDATE "Automobile" SET "mileage" = "mileage" + 1 WHERE "_pk" = ?"#, arguments: [next])
                }
                context.reportProgress(done: Int(next), total: 12)
                next += 1
            }
        }

        let events = migrator.progressEvents()
        let run = Task { try await migrator.migrate(store: f.storeURL) }
        var seen: [ProgressEvent] = []
        for await event in events {
            seen.append(event)
            if case .hook(_, 3, _) = event { run.cancel() }
        }
        #expect(try await run.value == .paused(.cancelled))
        #expect(seen.contains(.paused(reason: .cancelled)), "\(seen)")
        #expect(try f.mileages() == Array(repeating: 1, count: 3) + Array(repeating: 0, count: 9))
        #expect(try Migrator.status(ofStoreAt: f.store).journal?.status == .paused)

        holdAfterThird.withLock { $0 = false }
        #expect(try await migrator.migrate(store: f.storeURL) == .finished(steps: 1))
        #expect(try f.mileages() == Array(repeating: 1, count: 12))
    }

    /// Two migrators, or several calls, in concurrent tasks: the type is `Sendable`, and a run's stream
    /// asked for after the run ended waits for the next one.
    @Test func progressStreamsAreNewPerCall() async throws {
        let f = try GarageFixture(cars: 2)
        defer { f.remove() }
        let migrator = Migrator(plan: try PlanFileReader.read(path: f.plan), fuse: true)
        migrator.register(hook: "odometer") { _ in }
        let before = migrator.progressEvents()
        #expect(try await migrator.migrate(store: f.storeURL) == .finished(steps: 1))
        let events = await Self.collect(before)
        #expect(events.last.map { if case .finished = $0 { true } else { false } } == true, "\(events)")
        let after = migrator.progressEvents()
        #expect(try await migrator.migrate(store: f.storeURL) == .finished(steps: 0))
        #expect(await Self.collect(after).isEmpty, "an already-migrated store reports nothing, and the stream still ends")
    }

    /// `stepStarted` says how many rows the step rewrites: a column becoming required rebuilds the
    /// table, so its 7 rows; a step that only adds a column rewrites none.
    @Test func stepStartedEstimatesTheRowsItRewrites() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let versions = [
            "name: V1\nentities: {Item: {attributes: {n: int32?}}}\n",
            "name: V2\nentities: {Item: {attributes: {n: int32 = 0}}}\n",
            "name: V3\nentities: {Item: {attributes: {n: int32 = 0, note: string?}}}\n",
        ]
        let (plan, storePath) = try pinnedItemsPlan(versions, in: dir, insert: (1...7).map { "INSERT INTO \"Item\" (\"_pk\", \"n\") VALUES (\($0), \($0));" }.joined())
        let store = URL(fileURLWithPath: storePath)

        let migrator = Migrator(plan: plan, fuse: false)
        let events = migrator.progressEvents()
        async let seen = Self.collect(events)
        #expect(try await migrator.migrate(store: store) == .finished(steps: 2))
        let estimates = await seen.compactMap { event -> String? in
            guard case .stepStarted(_, _, let from, let to, _, let rows) = event else { return nil }
            return "\(from)→\(to) \(rows)"
        }
        #expect(estimates == ["V1→V2 7", "V2→V3 0"])
    }

    /// An app that already opened its store with GRDB hands Instar the `DatabasePool` (WAL) or
    /// `DatabaseQueue`: the migration runs inside the writer's barrier, and the app's own connection
    /// reads the new schema right after.
    @Test(arguments: [true, false]) func migratesTheDatabaseBehindAGRDBWriter(pool: Bool) async throws {
        let f = try GarageFixture(cars: 3)
        defer { f.remove() }
        let writer: any DatabaseWriter = pool ? try DatabasePool(path: f.store) : try DatabaseQueue(path: f.store)
        #expect(try await writer.read { db in try db.tableExists("Car") })
        let migrator = Migrator(plan: try PlanFileReader.read(path: f.plan))
        migrator.register(hook: "odometer") { context in
            try context.write(checkpoint: "all") { db in try db.execute(sql: #"UPDATE "Automobile" SET "mileage" = 7"#) }
        }
        #expect(try await migrator.migrate(database: writer) == .finished(steps: 1))
        let mileages = try await writer.read { db in try Int.fetchAll(db, sql: #"SELECT "mileage" FROM "Automobile""#) }
        #expect(mileages == [7, 7, 7])
        #expect(try await writer.read { db in try db.tableExists("Car") } == false)
        try writer.close()
    }

    @Test func anInMemoryDatabaseIsRefused() async throws {
        let migrator = Migrator(plan: try PlanFileReader.read(path: packageRoot.appendingPathComponent("Plans/garage/plan.yaml").path))
        let error = await #expect(throws: StoreError.self) { try await migrator.migrate(database: try DatabaseQueue()) }
        #expect(error?.kind == .notFound)
    }

    static func collect(_ stream: AsyncStream<ProgressEvent>) async -> [ProgressEvent] {
        var events: [ProgressEvent] = []
        for await event in stream { events.append(event) }
        return events
    }
}

/// `Plans/garage` copied to a temporary folder, with a stage Garage 1 → Garage 3 whose `after` phase
/// runs the Swift hook `odometer`, and a store at Garage 1 with `cars` cars.
struct GarageFixture {
    let dir: URL
    let plan: String
    let store: String
    var storeURL: URL { URL(fileURLWithPath: store) }

    init(cars: Int) throws {
        dir = try temporaryDirectory()
        let garage = dir.appendingPathComponent("garage")
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("Plans/garage"), to: garage)
        plan = garage.appendingPathComponent("plan.yaml").path
        let text = try String(contentsOfFile: plan, encoding: .utf8)
            + "stages:\n  - from: Garage 1\n    to: Garage 3\n    after: [odometer]\nhooks:\n  odometer: {swift: odometer}\n"
        try text.write(toFile: plan, atomically: true, encoding: .utf8)
        store = dir.appendingPathComponent("garage.sqlite").path
        let created = try SQLiteStore.create(at: store, model: try PlanFileReader.read(path: plan).versions[0])
        try created.withDatabase { db in
            for pk in 1...cars {
                try db.execute(sql: #"INSERT INTO "Car" ("_pk", "plate") VALUES (?, ?)"#, arguments: [pk, "P-\(pk)"])
            }
        }
        try created.close()
    }

    func remove() { try? FileManager.default.removeItem(at: dir) }

    func mileages() throws -> [Int] {
        let queue = try DatabaseQueue(path: store)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchAll(db, sql: #"SELECT "mileage" FROM "Automobile" ORDER BY "_pk""#) }
    }
}

/// The README's launch example (`LaunchExample.swift`): shown verbatim, and run against a plan in a
/// resource bundle.
@Suite struct LaunchExampleTests {
    @Test func launchExampleMatchesTheReadme() throws {
        let source = try String(contentsOf: packageRoot.appendingPathComponent("Tests/InstarRuntimeTests/LaunchExample.swift"), encoding: .utf8)
        let example = try #require(source.components(separatedBy: "// launch-example: begin\n").last?
            .components(separatedBy: "// launch-example: end\n").first)
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("<!-- launch-example -->\n```swift\nimport Foundation\nimport Instar\n\n" + example + "```\n"))
    }

    @Test func launchExampleMigratesAStoreWithThePlanInAResourceBundle() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let migrations = dir.appendingPathComponent("Resources/Migrations")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        try "name: Music 1\nentities: {Track: {attributes: {title: string?}}}\n"
            .write(to: migrations.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        try "name: Music 2\nentities: {Track: {attributes: {title: string?, plays: int32?}}}\n"
            .write(to: migrations.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        try """
            name: music
            versions: [v1.yaml, v2.yaml]
            stages: [{from: Music 1, to: Music 2, after: [fillFromAPI]}]
            hooks: {fillFromAPI: {swift: fillFromAPI}}

            """.write(to: migrations.appendingPathComponent("plan.yaml"), atomically: true, encoding: .utf8)
        let store = dir.appendingPathComponent("music.sqlite")
        let resources = try #require(Bundle(path: dir.appendingPathComponent("Resources").path))
        #expect(try await migrateStore(at: store, resources: resources), "a new install: nothing to do")

        let created = try SQLiteStore.create(
            at: store.path, model: try PlanFileReader.read(url: migrations.appendingPathComponent("plan.yaml")).versions[0])
        try created.withDatabase { db in try db.execute(sql: #"INSERT INTO "Track" ("_pk", "title") VALUES (1, 'a'), (2, 'b')"#) }
        try created.close()
        // As an app would across launches: a run that spends its 10 s budget (a loaded machine) continues.
        var launches = 1
        while try await !migrateStore(at: store, resources: resources), launches < 20 { launches += 1 }
        #expect(try Migrator.status(ofStoreAt: store.path).journal?.status == .finished)
        let queue = try DatabaseQueue(path: store.path)
        defer { try? queue.close() }
        let plays = try queue.inDatabase { db in try Int.fetchAll(db, sql: #"SELECT "plays" FROM "Track""#) }
        #expect(plays == [0, 0])
    }
}
