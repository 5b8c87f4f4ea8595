@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
import Foundation
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore
import InstarRuntime
import InstarSeeding

/// What ``MigrationTester`` runs.
public struct MigrationTestOptions: Sendable {
    /// Rows per concrete entity of each seeded store.
    public var rows: Int
    /// The seed of the synthetic rows (same seed, same stores).
    public var seed: UInt64
    /// The versions to start from; nil: every version of the plan before the target.
    public var versions: [String]?
    /// Real stores to migrate instead of seeded ones (copied first: the files are never written).
    public var fixtures: [String]
    /// A folder where the stores of failing runs are kept (the snapshot before and the result after).
    public var keep: String?
    /// Drops the diff calls a probable rename that are meant (`Entity.property`, or `Entity` for a
    /// whole entity; by the name of any version): reported as accepted instead of failing.
    public var acceptedDrops: Set<String>

    /// Options for a run; the defaults seed 100 rows per entity with seed 1 and start from every version.
    public init(
        rows: Int = 100, seed: UInt64 = 1, versions: [String]? = nil, fixtures: [String] = [], keep: String? = nil,
        acceptedDrops: Set<String> = []
    ) {
        self.rows = rows
        self.seed = seed
        self.versions = versions
        self.fixtures = fixtures
        self.keep = keep
        self.acceptedDrops = acceptedDrops
    }
}

/// A request ``MigrationTester`` cannot carry out (an unknown version): nothing was run.
public struct MigrationTestError: InstarError, CustomStringConvertible {
    /// What was wrong with the request.
    public var message: String
    public var description: String { message }
}

/// Tests a plan's chain the way a user's store would meet it: for every version of the history (or a
/// real store), a store is created, seeded, migrated to the target through the real chain with its hooks
/// (the migrator's own, so Swift hooks registered on it run), then checked against a snapshot taken
/// before the run. The engine of `instar test`, callable from an app's own tests:
///
/// ```swift
/// let migrator = Migrator(plan: try PlanFileReader.read(path: "Plans/app/plan.yaml"))
/// migrator.register(hook: "fillArtists") { context in … }
/// let report = try MigrationTester(migrator: migrator).run(MigrationTestOptions(rows: 200))
/// #expect(report.passed, "\(report.failures.map(\.firstFailure))")
/// ```
///
/// What is compared, and what is not: see the checks of ``MigrationCheck/Kind``. In short, rows of the
/// entities the chain keeps are matched by primary key; properties kept or renamed (renaming
/// identifiers, mapping models' `$source.x`) must read the same, strictly (a truncating conversion is
/// a difference); values a hook or a mapping expression computes are named in the notes and not
/// compared; a row that disappears is a failure, even when a hook deletes it on purpose.
public struct MigrationTester: Sendable {
    /// The migrator whose plan and registered hooks the runs use.
    public let migrator: Migrator

    /// A tester for the migrator's plan; register the Swift hooks on the migrator first.
    public init(migrator: Migrator) {
        self.migrator = migrator
    }

    var plan: Plan { migrator.plan }

    /// Runs every requested store in a temporary folder, removed afterwards.
    public func run(_ options: MigrationTestOptions) throws -> MigrationTestReport {
        guard let target = plan.targetVersion else { throw MigrationTestError(message: "the plan has no versions") }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("instar-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var runs: [MigrationTestRun] = []
        if options.fixtures.isEmpty {
            for version in try startingVersions(options, target: target) {
                runs.append(seededRun(from: version, options: options, scratch: scratch))
            }
        } else {
            for fixture in options.fixtures {
                runs.append(fixtureRun(fixture, options: options, scratch: scratch))
            }
        }
        return MigrationTestReport(
            plan: plan.name, target: target, layout: try migrator.layout.name,
            rows: options.fixtures.isEmpty ? options.rows : nil, runs: runs,
            skipped: options.fixtures.isEmpty && options.versions == nil ? skippedVersions(target: target) : [])
    }

    /// The asked versions, checked against the plan; by default every version a store may be at
    /// (``Plan/startingVersions(for:)``).
    func startingVersions(_ options: MigrationTestOptions, target: String) throws -> [Model] {
        guard let asked = options.versions else { return plan.startingVersions(for: target) }
        return try asked.map { name in
            guard let version = plan.versions.first(where: { $0.name == name }) else {
                var message = "'\(name)' is not a version of \(plan.name); versions: " + plan.versions.map(\.name).joined(separator: ", ")
                if let hint = Spelling.suggestion(for: name, among: plan.versions.map(\.name)) { message += "\n  hint: \(hint)" }
                throw MigrationTestError(message: message)
            }
            return version
        }
    }

    /// The versions that no default run starts from, besides the target: in a plan file's declared
    /// order, those after the target.
    func skippedVersions(target: String) -> [MigrationTestReport.SkippedVersion] {
        let starting = Set(plan.startingVersions(for: target).map(\.name))
        return plan.versions.filter { $0.name != target && !starting.contains($0.name) }.map {
            MigrationTestReport.SkippedVersion(
                version: $0.name,
                reason: "declared after the target \(target) in the plan's order: a plan migrates forward only",
                afterTarget: target)
        }
    }

    /// A fresh store of `version` with synthetic rows, then the run.
    func seededRun(from version: Model, options: MigrationTestOptions, scratch: URL) -> MigrationTestRun {
        let folder = scratch.appendingPathComponent(UUID().uuidString)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        do {
            let store = try SQLiteStore.create(at: path, model: version, layout: try migrator.layout)
            _ = try store.seed(model: version, options: SeedOptions(rows: options.rows, seed: options.seed))
            try store.close()
        } catch {
            return failedRun(source: "seeded", from: version.name, "could not create and seed the store: \(error)")
        }
        return migrateAndCheck(path: path, source: "seeded", folder: folder, options: options, seeded: version)
    }

    /// A copy of a real store with its `-wal` and `-journal` (the original is never opened: even a
    /// read-only connection may leave a `-shm` beside it), then the run.
    func fixtureRun(_ fixture: String, options: MigrationTestOptions, scratch: URL) -> MigrationTestRun {
        let name = URL(fileURLWithPath: fixture).lastPathComponent
        let folder = scratch.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        do {
            try Self.copyStore(fixture, into: folder, at: path)
        } catch {
            return failedRun(source: name, from: "?", "could not copy the store: \(error)")
        }
        return migrateAndCheck(path: path, source: name, folder: folder, options: options)
    }

    /// Copies a store with its `-wal` and `-journal` to `path` in a new `folder`, refusing a FIFO or a
    /// link to a device first (the copy would block or never end); the original is never opened.
    static func copyStore(_ fixture: String, into folder: URL, at path: String) throws {
        try StoreFile.checkBeforeOpening(fixture, role: .fixture)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-journal"] where FileManager.default.fileExists(atPath: fixture + suffix) {
            try FileManager.default.copyItem(atPath: fixture + suffix, toPath: path + suffix)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path + suffix)
        }
    }

    func failedRun(source: String, from: String, _ message: String, steps: [String] = []) -> MigrationTestRun {
        MigrationTestRun(
            source: source, fromVersion: from, steps: steps, rowsBefore: [:], rowsAfter: [:],
            checks: [MigrationCheck(.migration, .failed, message)], seconds: 0, extraBytes: 0, bytesBefore: 0, bytesAfter: 0)
    }

    static func label(_ step: Step) -> String { "\(step.from) → \(step.to)" }

    /// The step's label with what runs app code in it: its hooks, or its mapping model.
    func describe(_ step: Step) -> String {
        if let stage = step.stage, !stage.hooks.isEmpty {
            return Self.label(step) + " (hooks: " + stage.hooks.joined(separator: ", ") + ")"
        }
        if let mapping = step.mapping { return Self.label(step) + " (mapping model \(mapping.model.name))" }
        return Self.label(step)
    }

    func version(named name: String) -> Model? { plan.versions.first { $0.name == name } }
}
