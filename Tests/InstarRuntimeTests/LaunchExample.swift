import Foundation
@_spi(Layouts) import Instar

// The README's "Migrating at launch" example, compiled here; `launchExampleMatchesTheReadme` checks
// that the README shows exactly the lines between the markers.

// launch-example: begin
/// Brings the store to the newest version before the app opens it. False when the run stopped early
/// (time budget spent, task cancelled): the work so far is committed, the app must not open the store
/// yet, and the next launch continues from there.
func migrateStore(at store: URL, resources: Bundle = .main) async throws -> Bool {
    guard FileManager.default.fileExists(atPath: store.path),  // a new install has nothing to migrate
        let plan = resources.url(forResource: "plan", withExtension: "yaml", subdirectory: "Migrations")
    else { return true }
    let migrator = Migrator(plan: try PlanFileReader.read(url: plan))
    migrator.register(hook: "fillFromAPI") { context in  // a `swift:` hook named in the plan
        let plays = try await PlayCounts.fetch()  // hooks may await; a cancel reaches them
        try context.write { db in try db.execute(sql: #"UPDATE "Track" SET "plays" = ?"#, arguments: [plays]) }
    }
    let result = try await migrator.migrate(store: store, timeBudget: .seconds(10)) { event in print(event) }
    return result.isFinished  // only then is the store at the newest version
}
// launch-example: end

/// Stands in for the app's own code in the example.
enum PlayCounts {
    static func fetch() async throws -> Int { 0 }
}
