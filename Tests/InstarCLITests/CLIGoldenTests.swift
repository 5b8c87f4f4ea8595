import Foundation
import GRDB
@_spi(Layouts) import Instar
import Testing
import InstarTestSupport
import InstarRuntimeTestSupport
import InstarStoreTestSupport
@testable import InstarCLI
@testable import InstarStore  // RawDeflate, for a store that keeps its model (Z_MODELCACHE)

/// What `instar` prints, pinned by golden files (`Tests/Fixtures/Golden/cli/<case>.txt`):
/// representative commands on the bundled example plans (`Plans/`) and small stores made in a temporary
/// folder, run in this process (``InstarCommand/runInProcess(_:columns:)``), their standard output,
/// standard error and exit status written one after another as a transcript. The text renderings, the
/// JSON (key names, nesting, order and formatting, which scripts parse), usage errors and refusals are
/// all compared byte for byte, after ``GoldenNormaliser`` replaced what varies between runs (paths, run
/// identifiers, timestamps, durations, sampled disk peaks).
///
/// Regenerate after a deliberate change: `INSTAR_UPDATE_GOLDEN=1 swift test --filter Golden`, then
/// review `git diff Tests/Fixtures/Golden`.
@Suite struct CLIGoldenTests {
    @Test(arguments: CLIGoldenCase.all)
    func transcriptMatchesItsGoldenFile(_ golden: CLIGoldenCase) throws {
        try Self.check(golden)
    }

    /// Runs a case's commands in a fresh temporary folder and compares their transcript with its golden file.
    static func check(_ golden: CLIGoldenCase) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try golden.setUp(scratch)
        let transcript = golden.commands(scratch).map { Self.transcript(of: $0) }.joined(separator: "\n")
        var text = GoldenNormaliser(temporaryFolder: scratch.dir).normalise(transcript)
        for (pattern, template) in golden.varies {
            text = text.replacingOccurrences(of: pattern, with: template, options: .regularExpression)
        }
        try GoldenFile.check(text, "cli/\(golden.name).txt")
    }

    /// `--help` of the commands whose options are shared groups: the help text users read, pinned at
    /// 100 columns (the terminal's width would otherwise decide the wrapping).
    @Test(arguments: ["plan", "migrate", "inspect", "status", "test", "lint", "graph", "restore", "model export", "export"])
    func helpMatchesItsGoldenFile(_ command: String) throws {
        let arguments = command.split(separator: " ").map(String.init) + ["--help"]
        let result = InstarCommand.runInProcess(arguments, columns: 100)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        try GoldenFile.check(result.stdout, "cli/help-\(arguments.dropLast().joined(separator: "-")).txt")
    }

    /// `migrate --progress json|lines`: one line per event (scripts such as Scripts/bench-instar-impl.sh
    /// match `"event" : "stepStarted"` in them). Made from a fixed sequence of events, so nothing varies.
    @Test func progressLinesMatchTheGoldenFile() throws {
        let events: [ProgressEvent] = [
            .started(run: "0a1b2c3d-0000-4000-8000-000000000001", steps: 2, resumedAt: nil),
            .stepStarted(index: 0, of: 2, from: "V1", to: "V2", kind: .lightweight, estimatedRows: 12),
            .hook(name: "fill  twice", done: 3, total: 10),
            .hook(name: "count", done: 5, total: nil),
            .slice(table: "Item", copied: 5000, of: 12000, secondsLeft: 1.5),
            .slice(table: "Item", copied: 12000, of: 12000, secondsLeft: nil),
            .stepFinished(index: 0, of: 2, seconds: 0.25),
            .paused(reason: .timeBudget),
            .started(run: "0a1b2c3d-0000-4000-8000-000000000001", steps: 2, resumedAt: "step 2/2 (V2 → V3), schema phase"),
            .stepStarted(index: 1, of: 2, from: "V2", to: "V3", kind: .custom, estimatedRows: 0),
            .stepFinished(index: 1, of: 2, seconds: 1.5),
            .finished(steps: 2, seconds: 2),
        ]
        var text = ""
        for style in [ProgressStyle.json, .lines] {
            let console = Console(capturing: true)
            Console.$current.withValue(console) {
                let reporter = ProgressReporter(style: style)
                events.forEach(reporter.report)
                reporter.finish()
            }
            text += "--progress \(style.rawValue)\n" + console.output.out
        }
        try GoldenFile.check(text, "cli/progress.txt")
    }

    /// The line of output for one command: how it was called, its status, its output.
    static func transcript(of arguments: [String]) -> String {
        let result = InstarCommand.runInProcess(arguments, columns: 100)
        var text = "$ instar " + arguments.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ") + "\n"
        text += "status \(result.status)\n"
        if !result.stdout.isEmpty { text += "--- stdout\n" + result.stdout + (result.stdout.hasSuffix("\n") ? "" : "\n") }
        if !result.stderr.isEmpty { text += "--- stderr\n" + result.stderr + (result.stderr.hasSuffix("\n") ? "" : "\n") }
        return text
    }
}

/// One golden transcript: files and stores made first in a temporary folder, then the commands.
struct CLIGoldenCase: Sendable, CustomTestStringConvertible {
    let name: String
    var setUp: @Sendable (Scratch) throws -> Void = { _ in }
    /// What varies in this case's fixture, beyond ``GoldenNormaliser``'s rules: (pattern, replacement).
    var varies: [(String, String)] = []
    let commands: @Sendable (Scratch) -> [[String]]

    var testDescription: String { name }

    static func root(_ path: String) -> String { packageRoot.appendingPathComponent(path).path }

    static let garage = root("Plans/garage/plan.yaml")
    static let garageModels = ["v1", "v2", "v3"].map { root("Plans/garage/models/\($0).yaml") }
    static let music = root("Plans/music/plan.yaml")

    static let all: [CLIGoldenCase] = [
        CLIGoldenCase(name: "model-hashes") { _ in
            [["model", "hashes", garageModels[1]], ["model", "hashes", garageModels[1], "--format", "json"]]
        },
        CLIGoldenCase(name: "diff") { _ in
            [["diff", garageModels[0], garageModels[2]], ["diff", garageModels[0], garageModels[2], "--format", "json"]]
        },
        CLIGoldenCase(name: "diff-not-inferable", setUp: { try $0.writeConditionalModels() }) { s in
            [["diff", s.path("a.yaml"), s.path("b.yaml")], ["diff", s.path("a.yaml"), s.path("b.yaml"), "--format", "json"]]
        },
        CLIGoldenCase(name: "lint") { _ in
            [["lint", garage], ["lint", music, "--format", "json"]]
        },
        CLIGoldenCase(name: "lint-cloudkit") { _ in
            [["lint", garage, "--cloudkit"], ["lint", garage, "--cloudkit", "--format", "json"]]
        },
        CLIGoldenCase(name: "plan") { _ in
            [["plan", garage], ["plan", garage, "--format", "markdown"], ["plan", garage, "--format", "json"]]
        },
        CLIGoldenCase(name: "plan-store", setUp: { try $0.garageStore() }) { s in
            [["plan", garage, "--store", s.store], ["plan", garage, "--store", s.store, "--format", "json"],
             ["plan", garage, "--store", s.store, "--time-budget", "5"]]
        },
        CLIGoldenCase(name: "plan-no-chain", setUp: { try $0.writeNoChainPlan() }) { s in
            [["plan", s.path("plan.yaml")], ["plan", s.path("plan.yaml"), "--format", "markdown"],
             ["plan", s.path("plan.yaml"), "--format", "json"]]
        },
        CLIGoldenCase(name: "plan-music") { _ in
            [["plan", music], ["plan", music, "--format", "json"]]
        },
        CLIGoldenCase(name: "inspect", setUp: { try $0.garageStore() }) { s in
            let models = garageModels.flatMap { ["--model", $0] }
            return [["inspect", "--store", s.store] + models, ["inspect", "--store", s.store, "--format", "json"] + models]
        },
        CLIGoldenCase(name: "inspect-drift", setUp: { s in
            try s.garageStore()
            try s.execute(#"ALTER TABLE "Car" ADD COLUMN "sneaky" TEXT"#)
        }) { s in
            let models = garageModels.flatMap { ["--model", $0] }
            return [["inspect", "--store", s.store] + models, ["inspect", "--store", s.store, "--format", "json"] + models]
        },
        CLIGoldenCase(name: "status", setUp: { try $0.garageStore() }) { s in
            [["status", "--store", s.store], ["status", "--store", s.store, "--format", "json"]]
        },
        CLIGoldenCase(name: "status-migrated", setUp: { s in
            try s.garageStore()
            let result = try Migrator(plan: try PlanFileReader.read(path: garage)).migrate(storeAt: s.store)
            guard case .finished(1) = result else { throw GoldenSetUpError("migrate: \(result)") }
        }) { s in
            [["status", "--store", s.store], ["status", "--store", s.store, "--format", "json"]]
        },
        CLIGoldenCase(name: "status-failed", setUp: { s in
            try s.writeFailingHookPlan()
            // The step commits, then its Swift hook fails: the journal keeps the failed run.
            let migrator = Migrator(plan: try PlanFileReader.read(path: s.path("plan.yaml")))
            migrator.register(hook: "fill", FailOnce().hook)
            do {
                _ = try migrator.migrate(storeAt: s.store)
                throw GoldenSetUpError("the hook did not fail")
            } catch is HookError {}
        }) { s in
            [["status", "--store", s.store], ["status", "--store", s.store, "--format", "json"]]
        },
        CLIGoldenCase(name: "status-leased", setUp: { s in
            try s.garageStore()
            try s.writeStaleLease()
        }) { s in
            [["status", "--store", s.store], ["status", "--store", s.store, "--format", "json"]]
        },
        CLIGoldenCase(name: "inspect-cache", setUp: { s in
            let cache = RawDeflate.deflate(try ModelCacheStores.cacheArchive(composite: true))
            _ = try ModelCacheStores.store(cache: cache, in: s.dir)
        }, varies: [
            // The test's archive writes dictionaries in this process's hash order: its DEFLATE size varies.
            (#"\d+ bytes DEFLATE"#, "<n> bytes DEFLATE"), (#"("compressedBytes" : )\d+"#, "$1<n>"),
        ]) { s in
            [["inspect", "--store", s.path("Cached.sqlite")], ["inspect", "--store", s.path("Cached.sqlite"), "--format", "json"]]
        },
        CLIGoldenCase(name: "swiftdata", setUp: { try $0.writeSwiftDataSources() }) { s in
            [["model", "swiftdata", s.path("Models.swift")], ["model", "swiftdata", s.path("Models.swift"), "--format", "json"],
             ["plan", "--swiftdata", s.path("Models.swift")], ["plan", "--swiftdata", s.path("Models.swift"), "--format", "json"]]
        },
        CLIGoldenCase(name: "plan-scaffold", setUp: { try $0.writeNoChainPlan() }) { s in
            [["plan", s.path("plan.yaml"), "--scaffold", s.path("text")],
             ["plan", s.path("plan.yaml"), "--scaffold", s.path("json"), "--format", "json"]]
        },
        CLIGoldenCase(name: "graph", setUp: { try $0.garageStore() }) { s in
            [["graph", garage], ["graph", garage, "--format", "mermaid"], ["graph", garage, "--format", "text"],
             ["graph", garage, "--store", s.store], ["graph", garage, "--store", s.store, "--format", "text"]]
        },
        CLIGoldenCase(name: "test") { _ in
            [["test", garage, "--rows", "3"], ["test", garage, "--rows", "3", "--format", "markdown"],
             ["test", garage, "--rows", "3", "--format", "json"]]
        },
        CLIGoldenCase(name: "test-failing", setUp: { try $0.writeDroppingPlan() }) { s in
            [["test", s.path("plan.yaml"), "--rows", "3"], ["test", s.path("plan.yaml"), "--rows", "3", "--format", "markdown"]]
        },
        CLIGoldenCase(name: "migrate-dry-run", setUp: { try $0.garageStore() }) { s in
            [["migrate", "--store", s.store] + garageModels.flatMap { ["--model", $0] } + ["--dry-run"],
             ["migrate", "--store", s.store, "--model", garageModels[0], "--to-model", garageModels[2], "--dry-run"]]
        },
        CLIGoldenCase(name: "refusals", setUp: { s in
            try s.garageStore()
            try "name: Broken\nentities:\n  E:\n    attributes:\n      n: nosuchtype\n".write(
                toFile: s.path("broken.yaml"), atomically: true, encoding: .utf8)
        }) { s in
            [
                ["inspect", "--store", s.path("missing.sqlite")],
                ["status", "--store", s.path("missing.sqlite")],
                ["plan", s.path("missing.yaml")],
                ["model", "hashes", s.path("broken.yaml")],
                ["migrate", garage, "--store", s.store, "--dry-run"],
                ["migrate", "--store", s.store],
                ["lint", garage, "--released", "Garage 1"],
                ["lint", garage, "--cloudkit", "--released", "Garage 9"],
                ["plan"],
                ["plan", garage, "--no-such-flag"],
                ["restore", "--backup", s.path("missing-backup.sqlite"), "--store", s.store],
                ["store", "create", garageModels[0], "--store", s.store],
                ["store", "create", garageModels[0], "--store", s.path("new.sqlite"), "--layout", "sqll"],
                ["inspect", "--store", s.store, "--layout", "sqll"],
                ["store", "seed", s.store, "--rows", "1", "--layout", "sqll"],
            ]
        },
        // What `model import`/`model export` refuse to write over (HostileFileTests checks that nothing is).
        CLIGoldenCase(name: "output-refusals", setUp: { try $0.writeOutputTargets() }) { s in
            [
                ["model", "import", "--store", s.path("app.sqlite"), "--output", s.path("app.sqlite"), "--force"],
                ["model", "import", "--store", s.path("app.sqlite"), "--output", s.path("./app.sqlite"), "--force"],
                ["model", "import", "--store", s.path("app.sqlite"), "--output", s.path("model.yaml")],
                ["model", "import", "--store", s.path("app.sqlite"), "--output", s.path("link.yaml"), "--force"],
                ["model", "import", "--store", s.path("app.sqlite"), "--output", s.path("dangling.yaml"), "--force"],
                ["model", "export", "--store", s.path("app.sqlite"), "--output", s.path("dangling.yaml")],
                ["model", "import", "--store", s.path("app.sqlite"), "--output", s.path("pipe.yaml"), "--force"],
                ["model", "import", "--store", s.path("app.sqlite"), "--output", "/dev/null", "--force"],
            ]
        },
    ]
}

struct GoldenSetUpError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A case's temporary folder, and the stores and files made in it.
struct Scratch {
    let dir: URL
    var store: String { path("garage.sqlite") }

    init() throws { dir = try temporaryDirectory() }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: dir) }

    /// A store at Garage 1 with 3 seeded rows per entity (seed 1: the same rows every run).
    func garageStore() throws {
        for arguments in [
            ["store", "create", CLIGoldenCase.garageModels[0], "--store", store], ["store", "seed", store, "--rows", "3"],
        ] {
            let result = InstarCommand.runInProcess(arguments)
            guard result.status == 0 else { throw GoldenSetUpError("\(arguments): \(result.stderr)") }
        }
    }

    func execute(_ sql: String) throws {
        let queue = try DatabaseQueue(path: store)
        defer { try? queue.close() }
        try queue.write { db in try db.execute(sql: sql) }
    }

    /// The lease of a process on another machine, whose heartbeat stopped long ago: not alive.
    func writeStaleLease() throws {
        try execute(
            """
            CREATE TABLE "_instar_lease" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "owner" TEXT NOT NULL,
              "pid" INTEGER NOT NULL, "host" TEXT NOT NULL, "since" REAL NOT NULL, "heartbeat" REAL NOT NULL);
            INSERT INTO "_instar_lease" VALUES (1, 'instar pid 4242 on elsewhere', 4242, 'elsewhere', 1000000000, 1000000000);
            """)
    }

    /// Two SwiftData schemas with the same checksum (SwiftData refuses the plan), and a lightweight stage.
    func writeSwiftDataSources() throws {
        try """
        import SwiftData
        enum V1: VersionedSchema {
            static var versionIdentifier = Schema.Version(1, 0, 0)
            static var models: [any PersistentModel.Type] { [Drink.self] }
            @Model final class Drink { var name: String = ""; var price: Double = 0 }
        }
        enum V2: VersionedSchema {
            static var versionIdentifier = Schema.Version(2, 0, 0)
            static var models: [any PersistentModel.Type] { [Drink.self] }
            @Model final class Drink { var name: String = ""; var price: Double = 0 }
        }
        enum Plan: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self] }
            static var stages: [MigrationStage] { [.lightweight(fromVersion: V1.self, toVersion: V2.self)] }
        }
        """.write(toFile: path("Models.swift"), atomically: true, encoding: .utf8)
    }

    /// A → B: a retyped attribute (not inferable), an attribute made required (inferable if no NULLs), a
    /// removed one beside an added one (a probable rename).
    func writeConditionalModels() throws {
        try "name: A\nentities:\n  E:\n    attributes:\n      n: string?\n      m: int32?\n      old: string?\n".write(
            toFile: path("a.yaml"), atomically: true, encoding: .utf8)
        try "name: B\nentities:\n  E:\n    attributes:\n      n: int64?\n      m: int32\n      new: string?\n".write(
            toFile: path("b.yaml"), atomically: true, encoding: .utf8)
    }

    /// V1 → V2 whose stage runs a Swift hook after the step (the test registers one that fails), and a
    /// store at V1 with two rows.
    func writeFailingHookPlan() throws {
        try "name: V1\nentities:\n  Item:\n    attributes:\n      n: int64?\n".write(
            toFile: path("v1.yaml"), atomically: true, encoding: .utf8)
        try "name: V2\nentities:\n  Item:\n    attributes:\n      n: int64?\n      note: string?\n".write(
            toFile: path("v2.yaml"), atomically: true, encoding: .utf8)
        try """
        name: failing
        versions: [v1.yaml, v2.yaml]
        stages:
          - {from: V1, to: V2, after: [fill]}
        hooks:
          fill: {swift: fill}
        """.write(toFile: path("plan.yaml"), atomically: true, encoding: .utf8)
        for arguments in [["store", "create", path("v1.yaml"), "--store", store], ["store", "seed", store, "--rows", "2"]] {
            let result = InstarCommand.runInProcess(arguments)
            guard result.status == 0 else { throw GoldenSetUpError("\(arguments): \(result.stderr)") }
        }
    }

    /// A plan whose step drops `color` and adds `paint` without a renaming identifier: `instar test` fails it.
    func writeDroppingPlan() throws {
        try "name: A\nentities:\n  E:\n    attributes:\n      title: string?\n      color: string?\n".write(
            toFile: path("a.yaml"), atomically: true, encoding: .utf8)
        try "name: B\nentities:\n  E:\n    attributes:\n      title: string?\n      paint: string?\n".write(
            toFile: path("b.yaml"), atomically: true, encoding: .utf8)
        try "name: drop\nversions: [a.yaml, b.yaml]\n".write(toFile: path("plan.yaml"), atomically: true, encoding: .utf8)
    }

    /// A store with one table (a model to import), an existing file, a link to a file, a dangling link and a FIFO.
    func writeOutputTargets() throws {
        let queue = try DatabaseQueue(path: path("app.sqlite"))
        try queue.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)") }
        try queue.close()
        try "keep me\n".write(toFile: path("model.yaml"), atomically: true, encoding: .utf8)
        try "target\n".write(toFile: path("target.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: path("link.yaml"), withDestinationPath: path("target.txt"))
        try FileManager.default.createSymbolicLink(atPath: path("dangling.yaml"), withDestinationPath: path("nowhere.yaml"))
        guard mkfifo(path("pipe.yaml"), 0o600) == 0 else { throw GoldenSetUpError("mkfifo pipe.yaml") }
    }

    /// A plan whose only step retypes an attribute: no chain, and a proposal.
    func writeNoChainPlan() throws {
        try "name: A\nentities:\n  E:\n    attributes:\n      n: string?\n".write(
            toFile: path("a.yaml"), atomically: true, encoding: .utf8)
        try "name: B\nentities:\n  E:\n    attributes:\n      n: int64?\n".write(
            toFile: path("b.yaml"), atomically: true, encoding: .utf8)
        try "name: retype\nversions: [a.yaml, b.yaml]\n".write(toFile: path("plan.yaml"), atomically: true, encoding: .utf8)
    }
}
