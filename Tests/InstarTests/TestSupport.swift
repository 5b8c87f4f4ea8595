import Foundation
import Testing
import InstarModel
import InstarModelIO
import InstarPlanner
import InstarStore

/// Parses an Instar YAML model written inline in a test.
func model(_ yaml: String, name: String = "M") throws(ModelError) -> Model {
    try ModelFileReader.parse(yaml, file: "\(name).yaml", defaultName: name)
}

/// The package root, found from this file's path (Tests/InstarTests/TestSupport.swift).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// `../shared/corpus` beside the repository; CI always provides it.
let corpusRoot = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")

/// Whether the real-world corpus is beside the repository. A fresh clone has none: the tests that read
/// it are skipped, and say so. `.ci/run` checks that the corpus is there before it runs the tests.
let corpusIsPresent = FileManager.default.fileExists(atPath: corpusRoot.path)

/// Whether the peer benchmark's generator is beside the repository (`../shared/bench`).
let benchGeneratorIsPresent = FileManager.default.fileExists(
    atPath: packageRoot.deletingLastPathComponent().appendingPathComponent("shared/bench/make_store.py").path)

extension Trait where Self == ConditionTrait {
    /// Runs the test only with `../shared/corpus` beside the repository (real Core Data models and
    /// stores of public apps; CI provides it). Skipped otherwise, with this reason in the output.
    static var needsCorpus: Self {
        .enabled(
            if: corpusIsPresent,
            "skipped: needs the real-world corpus at ../shared/corpus beside the repository (CI provides it)")
    }
}

/// A fresh temporary directory, removed by the caller when done.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("instar-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Writes `versions` (model YAML texts V1, V2, …, oldest first) and a plan `items` that pins every middle
/// version into `dir`, and creates a store at the first version with `insert` run on it (instar layout).
func pinnedItemsPlan(_ versions: [String], in dir: URL, insert: String) throws -> (plan: Plan, store: String) {
    for (index, text) in versions.enumerated() {
        try text.write(to: dir.appendingPathComponent("v\(index + 1).yaml"), atomically: true, encoding: .utf8)
    }
    let files = versions.indices.map { "v\($0 + 1).yaml" }.joined(separator: ", ")
    let pinned = versions.indices.dropFirst().dropLast().map { "V\($0 + 1)" }.joined(separator: ", ")
    let planPath = dir.appendingPathComponent("plan.yaml").path
    try "name: items\nversions: [\(files)]\npinned: [\(pinned)]\n".write(toFile: planPath, atomically: true, encoding: .utf8)
    let plan = try PlanFileReader.read(path: planPath)
    let store = dir.appendingPathComponent("items.sqlite").path
    let created = try SQLiteStore.create(at: store, model: plan.versions[0])
    try created.withDatabase { db in try db.execute(sql: insert) }
    try created.close()
    return (plan, store)
}
