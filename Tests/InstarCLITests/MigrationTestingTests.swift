import Foundation
import Testing
@_spi(Layouts) import Instar
@_spi(Layouts) import InstarModel
import InstarTesting
import InstarTestSupport
@testable import InstarCLI

/// `instar test` and the library's `MigrationTester`: a correct chain passes; mutations of it (a rename
/// without its renaming identifier, a hook that forgets rows, a type narrowing that truncates) fail,
/// naming the step; every example plan under `Plans/` passes; real Core Data stores pass as fixtures.
@Suite struct MigrationTestingTests {
    /// A two-version library: Book's `pages` becomes `pageCount` (renamed), `rating` widens from
    /// Integer 16 to Integer 64, `isbn` is dropped and `edition` added (another type: not a probable rename); Shelf is kept.
    static let version1 = """
        name: Lib 1
        entities:
          Shelf:
            attributes:
              label: string
            relationships:
              books: Book[] inverse shelf
          Book:
            attributes:
              title: string
              pages: int32?
              rating: int16?
              isbn: string?
              price: double?
            relationships:
              shelf: Shelf? inverse books
        """

    static func version2(renamed: Bool = true, rating: String = "int64?", price: String = "double?") -> String {
        let pages = renamed ? "pageCount: {type: int32, optional: true, renamedFrom: pages}" : "pageCount: int32?"
        return """
            name: Lib 2
            entities:
              Shelf:
                attributes:
                  label: string
                relationships:
                  books: Book[] inverse shelf
              Book:
                attributes:
                  title: string
                  \(pages)
                  rating: \(rating)
                  price: \(price)
                  edition: int64?
                relationships:
                  shelf: Shelf? inverse books
            """
    }

    /// Writes the two versions and a plan (with `extra` appended) into a fresh folder.
    static func library(version2: String = version2(), extra: String = "") throws -> URL {
        let folder = try temporaryDirectory()
        try version1.write(to: folder.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        try version2.write(to: folder.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        let plan = "name: library\nlayout: instar\nversions:\n  - v1.yaml\n  - v2.yaml\ntarget: Lib 2\n" + extra
        try plan.write(to: folder.appendingPathComponent("plan.yaml"), atomically: true, encoding: .utf8)
        return folder
    }

    static func json(_ result: CLIResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// The failed checks of the report's runs, as (kind, step, message).
    static func failures(_ report: [String: Any]) -> [(kind: String, step: String?, message: String)] {
        let runs = report["runs"] as? [[String: Any]] ?? []
        return runs.flatMap { ($0["checks"] as? [[String: Any]]) ?? [] }.filter { $0["status"] as? String == "failed" }
            .map { ($0["kind"] as? String ?? "", $0["step"] as? String, $0["message"] as? String ?? "") }
    }

    @Test func aCorrectChainPasses() throws {
        let folder = try Self.library()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runInstar(["test", folder.appendingPathComponent("plan.yaml").path, "--rows", "40", "--format", "json"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let report = try Self.json(result)
        #expect(report["passed"] as? Bool == true)
        let run = try #require((report["runs"] as? [[String: Any]])?.first)
        #expect(run["fromVersion"] as? String == "Lib 1")
        #expect(run["steps"] as? [String] == ["Lib 1 → Lib 2"])
        #expect((run["rowsBefore"] as? [String: Int])?["Book"] == 40)
        #expect((run["rowsAfter"] as? [String: Int])?["Book"] == 40)
        let kinds = Set(((run["checks"] as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String })
        #expect(kinds == ["migration", "schema", "rows", "values", "drops", "integrity", "journal"])
        // The text report's words are pinned by the golden transcripts cli/test.txt and cli/test-failing.txt.
        #expect(try runInstar(["test", folder.appendingPathComponent("plan.yaml").path, "--rows", "10"]).status == 0)
    }

    @Test func aRenameWithoutItsIdentifierFailsNamingTheStep() throws {
        let folder = try Self.library(version2: Self.version2(renamed: false))
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runInstar(["test", folder.appendingPathComponent("plan.yaml").path, "--rows", "30", "--format", "json"])
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        let failed = Self.failures(try Self.json(result))
        #expect(failed.count == 1)
        #expect(failed.first?.kind == "drops" && failed.first?.step == "Lib 1 → Lib 2")
        let drops = try #require(try result.decoded(MigrationTestReport.self).runs.flatMap(\.checks).first { $0.status == .failed })
        #expect(drops.probableRename?.dropped == "Book.pages", "\(drops)")
        #expect(try runInstar(["test", folder.appendingPathComponent("plan.yaml").path, "--rows", "30"]).status == 1)
    }

    /// Shelf renamed Rack without a renaming identifier: the rows of Shelf are dropped (as the diff
    /// says), and so are Book's links to them, which is what names the mistake.
    @Test func anEntityRenameWithoutItsIdentifierFailsNamingTheStep() throws {
        let folder = try Self.library(version2: Self.version2().replacingOccurrences(of: "Shelf", with: "Rack"))
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runInstar(["test", folder.appendingPathComponent("plan.yaml").path, "--rows", "20", "--format", "json"])
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        let failed = Self.failures(try Self.json(result))
        #expect(failed.map(\.kind) == ["drops"])
        #expect(failed.first?.step == "Lib 1 → Lib 2")
        let drops = try #require(try result.decoded(MigrationTestReport.self).runs.flatMap(\.checks).first { $0.status == .failed })
        #expect(drops.probableRename == ProbableRename(dropped: "Shelf", candidate: "Rack"), "\(drops)")
    }

    @Test func aHookThatForgetsRowsFailsNamingTheStepAndHook() throws {
        let hook = """
            stages:
              - from: Lib 1
                to: Lib 2
                after: [fillEditions]
            hooks:
              fillEditions:
                sql:
                  - UPDATE "Book" SET "edition" = length("title")
                  - DELETE FROM "Book" WHERE "_pk" % 7 = 0
            """
        let folder = try Self.library(extra: hook)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runInstar(["test", folder.appendingPathComponent("plan.yaml").path, "--rows", "30", "--format", "json"])
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        let failed = Self.failures(try Self.json(result))
        let rows = try #require(failed.first { $0.kind == "rows" })
        #expect(rows.step == "Lib 1 → Lib 2")
        let rowsFacts = try #require(try result.decoded(MigrationTestReport.self).runs.flatMap(\.checks).first { $0.kind == .rows })
        #expect(rowsFacts.count == 4 && rowsFacts.hooks == ["fillEditions"], "\(rowsFacts)")
        // The first row missing, as a value: Book 7 (the hook deletes every seventh).
        let rowsCheck = try #require(try result.decoded(MigrationTestReport.self).runs.flatMap(\.checks)
            .first { $0.kind == .rows && $0.status == .failed })
        #expect(rowsCheck.difference?.entity == "Book" && rowsCheck.difference?.primaryKey == 7, "\(String(describing: rowsCheck.difference))")
        // The deleted books' links are gone too, but what the hook computes is not a value difference.
        #expect(!failed.contains { $0.kind == "values" })
        // --keep leaves the failing run's stores; the Markdown table names the failure.
        let kept = folder.appendingPathComponent("kept")
        let markdown = try runInstar([
            "test", folder.appendingPathComponent("plan.yaml").path, "--rows", "30", "--keep", kept.path, "--format", "markdown",
        ])
        #expect(markdown.status == 1, "its rows: as in the golden transcript cli/test-failing.txt")
        let stores = try FileManager.default.contentsOfDirectory(atPath: kept.appendingPathComponent("seeded-Lib_1").path)
        #expect(Set(stores).isSuperset(of: ["before.sqlite", "after.sqlite"]))
    }

    /// A hook that rewrites a kept value computes it on purpose: noted, not a failure.
    @Test func aValueAHookRewritesIsNotedNotCompared() throws {
        let hook = "stages:\n  - from: Lib 1\n    to: Lib 2\n    after: [shout]\nhooks:\n  shout:\n    sql:\n      - UPDATE \"Book\" SET \"title\" = upper(\"title\")\n"
        let folder = try Self.library(extra: hook)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runInstar(["test", folder.appendingPathComponent("plan.yaml").path, "--rows", "30", "--format", "json"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let checks = try #require(((Self.json(result)["runs"] as? [[String: Any]])?.first?["checks"]) as? [[String: Any]])
        let values = try #require(checks.first { $0["kind"] as? String == "values" })
        #expect((values["notes"] as? [String]) == ["Book.title: changed by step Lib 1 → Lib 2 (hooks: shout), computed there, not compared"])
    }

    @Test func aNarrowingThatTruncatesFailsNamingTheStep() throws {
        // Double → Integer 16: fractions are cut (Core Data converts it so) and large values do not fit.
        let truncating = try Self.library(version2: Self.version2(price: "int16?"))
        defer { try? FileManager.default.removeItem(at: truncating) }
        let result = try runInstar(["test", truncating.appendingPathComponent("plan.yaml").path, "--rows", "30", "--format", "json"])
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        let values = try #require(Self.failures(try Self.json(result)).first { $0.kind == "values" })
        #expect(values.step == "Lib 1 → Lib 2")
        let valuesCheck = try #require(try result.decoded(MigrationTestReport.self).runs.flatMap(\.checks)
            .first { $0.kind == .values && $0.status == .failed })
        let difference = try #require(valuesCheck.difference, "\(valuesCheck)")
        #expect(difference.entity == "Book" && difference.property == "price" && difference.before != difference.after, "\(difference)")
        // Integer 32 → Integer 16: the seed's edge values (Int32.max) are kept as they are, but do not fit.
        let narrowing = Self.version2().replacingOccurrences(of: "pageCount: {type: int32,", with: "pageCount: {type: int16,")
        let folder = try Self.library(version2: narrowing)
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = try runInstar(["test", folder.appendingPathComponent("plan.yaml").path, "--rows", "30", "--format", "json"])
        #expect(json.status == 1, "\(json.stdout)\n\(json.stderr)")
        let checks = try json.decoded(MigrationTestReport.self).runs.flatMap(\.checks)
        let narrowed = try #require(checks.first { $0.kind == .values && $0.status == .failed })
        #expect(narrowed.step == "Lib 1 → Lib 2")
        #expect(narrowed.difference?.mismatch == .doesNotFit(.integer16), "\(narrowed)")
    }

    @Test func anUnknownStartingVersionIsBadInput() throws {
        let folder = try Self.library()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runInstar(["test", folder.appendingPathComponent("plan.yaml").path, "--from", "Lib 3"])
        #expect(result.status == 65)
        let plan = try PlanFileReader.read(path: folder.appendingPathComponent("plan.yaml").path)
        let refusal = try #require(#expect(throws: MigrationTestError.self) {
            try MigrationTester(migrator: Migrator(plan: plan)).run(MigrationTestOptions(versions: ["Lib 3"]))
        })
        #expect(result.stderr == "instar: \(refusal)\n", "the library's refusal: \(result.stderr)")
    }

    /// The library API, as an app's own tests call it: a Swift hook registered on the migrator runs.
    @Test func theLibraryRunsSwiftHooks() throws {
        let folder = try Self.library(extra: "stages:\n  - from: Lib 1\n    to: Lib 2\n    after: [fill]\nhooks:\n  fill:\n    swift: fill\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let migrator = Migrator(plan: try PlanFileReader.read(path: folder.appendingPathComponent("plan.yaml").path))
        let missing = try MigrationTester(migrator: migrator).run(MigrationTestOptions(rows: 5))
        #expect(!missing.passed && missing.runs[0].firstFailure?.kind == .migration)
        migrator.register(hook: "fill") { context in
            try context.write { db in try db.execute(sql: #"UPDATE "Book" SET "edition" = 1"#) }
        }
        let report = try MigrationTester(migrator: migrator).run(MigrationTestOptions(rows: 5))
        #expect(report.passed, "\(report.runs.map(\.checks))")
        #expect(report.runs[0].seconds > 0 && report.runs[0].bytesAfter > 0)
    }

    /// Every example plan passes on seeded stores of each of its versions (no corpus needed).
    @Test(arguments: ["adopt", "bench-tracks", "flight-log", "garage", "music", "school", "school-classes", "shop"])
    func everyExamplePlanPasses(_ name: String) throws {
        let plan = packageRoot.appendingPathComponent("Plans/\(name)/plan.yaml").path
        let result = try runInstar(["test", plan, "--rows", "50", "--format", "json"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let report = try result.decoded(MigrationTestReport.self)
        #expect(report.passed && !report.runs.isEmpty && report.failures.isEmpty)
    }

    /// bench-tracks' hook parses each track's JSON with `json_each`, which fails on arbitrary text (the
    /// music plan's hook guards with `json_valid`; this one keeps the peer benchmark's SQL): its models
    /// give the seeder sample JSON (`seedValues:`). Without them the hook fails, naming its step; the
    /// benchmark's own data passes as a fixture.
    @Test func benchTracksSeedsTheJSONItsHookParses() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("bench-tracks")
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("Plans/bench-tracks"), to: copy)
        for version in 1...5 {
            let model = copy.appendingPathComponent("models/v\(version).yaml")
            let text = try String(contentsOf: model, encoding: .utf8)
            let stripped = text.replacingOccurrences(
                of: #"(?m)^        seedValues:\n(          - .*\n)+"#, with: "", options: .regularExpression)
            #expect(stripped != text)
            try stripped.write(to: model, atomically: true, encoding: .utf8)
        }
        let arbitrary = try runInstar(
            ["test", copy.appendingPathComponent("plan.yaml").path, "--rows", "20", "--from", "Tracks 1", "--format", "json"])
        #expect(arbitrary.status == 1)
        let failed = try arbitrary.decoded(MigrationTestReport.self).runs.flatMap(\.checks).filter { $0.status == .failed }
        let hookFailure = try #require(failed.first { $0.hook == "artistsFromJSON" }, "\(failed)")
        #expect(hookFailure.kind == .migration && hookFailure.step == "Tracks 4 → Tracks 5", "\(hookFailure)")
        let plan = packageRoot.appendingPathComponent("Plans/bench-tracks/plan.yaml").path
        guard benchGeneratorIsPresent else { return }
        let fixtures = folder.appendingPathComponent("fixtures")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        let store = fixtures.appendingPathComponent("tracks-1.sqlite").path
        #expect(try runInstar(["store", "create", packageRoot.appendingPathComponent("Plans/bench-tracks/models/v1.yaml").path,
                               "--store", store, "--layout", "sql"]).status == 0)
        #expect(try fillExampleStore(packageRoot.appendingPathComponent("Plans/bench-tracks"), store: store, rows: 200).status == 0)
        let fixture = try runInstar(["test", plan, "--fixtures", fixtures.path, "--format", "json"])
        #expect(fixture.status == 0, "\(fixture.stdout)\n\(fixture.stderr)")
        let run = try #require(try fixture.decoded(MigrationTestReport.self).runs.first)
        #expect(run.source == "tracks-1.sqlite" && run.fromVersion == "Tracks 1")
    }

    /// Real stores of a public app, one per version of its bundle, as fixtures: each older one migrates
    /// to the newest version (an attribute renamed in every version) and passes every check.
    @Test(.needsCorpus) func realStoresPassAsFixtures() throws {
        let app = corpusRoot.appendingPathComponent("jeffreybergier__CoreDataMigrationTests/CoreDataMigration")
        let bundle = app.appendingPathComponent("CoreDataMigration/Model.xcdatamodeld").path
        let stores = app.appendingPathComponent("CoreDataMigrationTests").path
        let result = try runInstar(["test", "--model", bundle, "--fixtures", stores, "--format", "json"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let runs = try #require(Self.json(result)["runs"] as? [[String: Any]])
        #expect(runs.count == 5)
        #expect(runs.filter { ($0["steps"] as? [String])?.isEmpty == false }.count == 4)
    }
}
