// A plan whose middle versions are pinned, and a store at its first version: for the runtime's tests and the CLI's.
import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarTestSupport
import InstarPlanner
@_spi(Layouts) import InstarStore

/// Writes `versions` (model YAML texts V1, V2, …, oldest first) and a plan `items` that pins every middle
/// version into `dir`, and creates a store at the first version with `insert` run on it (instar layout).
package func pinnedItemsPlan(_ versions: [String], in dir: URL, insert: String) throws -> (plan: Plan, store: String) {
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
