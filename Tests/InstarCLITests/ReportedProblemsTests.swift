import Foundation
import GRDB
@_spi(Layouts) import Instar
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import InstarTestSupport
import InstarStoreTestSupport
import InstarTesting
import Testing

@testable import InstarCLI

/// Real reported migration problems (Fixtures/ReportedProblems: one folder each, with the link, what
/// users saw, the two versions as Instar model files and the rows of a small store), each run through
/// `instar check` in-process: the exit status, the finding kinds and the counted violations must be
/// the verdict the problem calls for. Controls (changes that must not be flagged) sit beside them.
@Suite struct ReportedProblemsTests {
    static let root = packageRoot.appendingPathComponent("Tests/Fixtures/ReportedProblems")

    /// One `problem.yaml`.
    struct Problem: CustomTestStringConvertible, Sendable {
        var slug: String
        var source = ""
        var framework = "instar"
        var control = false
        /// Entity → rows (attribute → value as text).
        var seed: [(String, [[String: String]])] = []
        var exit: Int32 = 0
        var findings: [String] = []
        var violations: [String] = []
        var counts: [Int] = []
        var samples: [String] = []
        var destination: String?

        var testDescription: String { slug }
        var folder: URL { ReportedProblemsTests.root.appendingPathComponent(slug) }
    }

    static var problems: [Problem] {
        let slugs = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return slugs.sorted().compactMap { slug in try? read(slug) }
    }

    static func read(_ slug: String) throws -> Problem {
        let source = try YAMLSource.load(path: root.appendingPathComponent(slug).appendingPathComponent("problem.yaml").path)
        var walker = YAMLWalker(source: source)
        var problem = Problem(slug: slug)
        for pair in walker.pairs(source.root, what: "problem") {
            switch pair.key {
            case "source": problem.source = walker.string(pair.value, what: "source") ?? ""
            case "framework": problem.framework = walker.string(pair.value, what: "framework") ?? "instar"
            case "control": problem.control = walker.bool(pair.value, what: "control") ?? false
            case "seed":
                for entity in walker.pairs(pair.value, what: "seed") {
                    let rows = (entity.value.sequence.map(Array.init) ?? []).map { row in
                        Dictionary(uniqueKeysWithValues: walker.pairs(row, what: "row").map { ($0.key, walker.string($0.value, what: "value") ?? "") })
                    }
                    problem.seed.append((entity.key, rows))
                }
            case "expect":
                for item in walker.pairs(pair.value, what: "expect") {
                    switch item.key {
                    case "exit": problem.exit = Int32(walker.int(item.value, what: "exit") ?? -1)
                    case "findings": problem.findings = walker.stringList(item.value, what: "findings")
                    case "violations": problem.violations = walker.stringList(item.value, what: "violations")
                    case "counts": problem.counts = walker.stringList(item.value, what: "counts").compactMap { Int($0) }
                    case "samples": problem.samples = walker.stringList(item.value, what: "samples")
                    case "destination": problem.destination = walker.string(item.value, what: "destination")
                    default: break
                    }
                }
            default: break
            }
        }
        if !walker.problems.isEmpty { throw ModelError(walker.problems) }
        return problem
    }

    /// A store of `before.yaml` (Instar's layout) holding the problem's rows.
    static func seededStore(_ problem: Problem, in directory: URL) throws -> String {
        let model = try ModelLoader.load(problem.folder.appendingPathComponent("before.yaml").path)
        let path = directory.appendingPathComponent("shipped.sqlite").path
        let layout = InstarLayout()
        let store = try SQLiteStore.create(at: path, model: model, layout: layout)
        defer { try? store.close() }
        let map = try layout.storageMap(for: model)
        var key: Int64 = 0
        try store.withDatabase { db in
            for (entity, rows) in problem.seed {
                guard let storage = map.entities[entity], let table = map.entityTables[storage.table] else {
                    Issue.record("\(problem.slug): no entity \(entity)")
                    continue
                }
                for row in rows {
                    key += 1
                    var columns = [table.primaryKey]
                    var values: [DatabaseValue] = [key.databaseValue]
                    if let discriminator = table.discriminator, let value = storage.discriminatorValue {
                        columns.append(discriminator)
                        values.append(value.databaseValue)
                    }
                    for (attribute, value) in row.sorted(by: { $0.key < $1.key }) {
                        guard let column = storage.columns[attribute] else { continue }
                        columns.append(column)
                        values.append(value.databaseValue)
                    }
                    let names = columns.map { "\"\($0)\"" }.joined(separator: ", ")
                    let marks = columns.map { _ in "?" }.joined(separator: ", ")
                    try db.execute(sql: "INSERT INTO \"\(storage.table)\" (\(names)) VALUES (\(marks))", arguments: StatementArguments(values))
                }
            }
        }
        return path
    }

    /// What `instar check` answered for a problem: its status and its report.
    static func check(_ problem: Problem) throws -> (Int32, ReleaseCheckReport?) {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A problem without rows is judged on its models alone (a layout may not store its types).
        let store = problem.seed.isEmpty ? [] : ["--store", try seededStore(problem, in: directory)]
        let result = runInstarInProcess(
            [
                "check", "--model", problem.folder.appendingPathComponent("before.yaml").path,
                "--model", problem.folder.appendingPathComponent("after.yaml").path,
                "--framework", problem.framework, "--format", "json",
            ] + store)
        return (result.status, try? decodeOutput(ReleaseCheckReport.self, result.stdout))
    }

    enum Score: String { case right, partly, wrong }

    /// Right: the status and every detail expected; partly: the status only; wrong: another status.
    static func score(_ problem: Problem, status: Int32, report: ReleaseCheckReport?) -> (Score, [String]) {
        guard status == problem.exit, let report else { return (.wrong, ["exit \(status), expected \(problem.exit)"]) }
        var misses: [String] = []
        let kinds = report.findings.filter { $0.kind != .lintWarning }.map(\.kind.rawValue)
        if Set(kinds) != Set(problem.findings) { misses.append("findings \(kinds), expected \(problem.findings)") }
        let violations = report.stores.flatMap(\.violations)
        if violations.map(\.kind.rawValue) != problem.violations { misses.append("violations \(violations.map(\.kind))") }
        if !problem.counts.isEmpty, violations.map(\.count) != problem.counts { misses.append("counts \(violations.map(\.count))") }
        if !problem.samples.isEmpty, violations.flatMap(\.samples).map { $0.joined(separator: ",") } != problem.samples {
            misses.append("samples \(violations.flatMap(\.samples))")
        }
        if let destination = problem.destination,
            report.findings.first(where: { $0.kind == .undeclaredDataLoss })?.destinations.first?.subject != destination
        {
            misses.append("destination \(report.findings.compactMap { $0.destinations.first?.subject })")
        }
        return (misses.isEmpty ? .right : .partly, misses)
    }

    @Test func atLeastTenProblemsWithControls() {
        let problems = Self.problems
        // Every folder reads: a problem.yaml that does not parse would otherwise drop out unseen.
        #expect(problems.count == (try? FileManager.default.contentsOfDirectory(atPath: Self.root.path))?.count)
        #expect(problems.filter { !$0.control }.count >= 10)
        #expect(problems.contains { $0.control && $0.framework == "swiftData" })
        #expect(problems.contains { $0.control && $0.framework == "coreData" })
        #expect(problems.allSatisfy { $0.source.hasPrefix("https://") })
    }

    @Test(arguments: ReportedProblemsTests.problems) func verdictMatchesTheReport(_ problem: Problem) throws {
        let (status, report) = try Self.check(problem)
        let (score, misses) = Self.score(problem, status: status, report: report)
        #expect(score == .right, "\(problem.slug): \(misses)")
        // Every finding that blocks has a place to look, and every loss a fix in the problem's framework.
        for finding in report?.findings ?? [] where finding.kind == .undeclaredDataLoss {
            #expect(finding.location?.line != nil, "\(problem.slug): \(finding)")
            if problem.framework == "swiftData" { #expect(finding.hint?.contains("custom") == true || finding.hint?.contains("originalName") == true) }
        }
    }

    /// The tally the article reports (ReleaseChecks.md); printed so that it can be copied after a change.
    @Test func tally() throws {
        var tally: [Score: Int] = [:]
        for problem in Self.problems {
            let (status, report) = try Self.check(problem)
            tally[Self.score(problem, status: status, report: report).0, default: 0] += 1
        }
        print("reported problems: right \(tally[.right] ?? 0), partly \(tally[.partly] ?? 0), wrong \(tally[.wrong] ?? 0)")
        #expect(tally[.wrong] == nil)
    }
}
