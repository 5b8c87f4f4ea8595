@_spi(Layouts) import InstarModel

// An unversioned app (`ModelContainer(for: Trip.self)`, `Schema([...])`) has no SchemaMigrationPlan:
// SwiftData migrates its store automatically, in one inferred step from the model the store caches to the
// app's current schema. These let the CLI describe that step as the plan SwiftData runs, so the same
// checks and summary apply to it as to a declared plan.

extension SwiftDataMigrationStage {
    /// The one `.lightweight` stage SwiftData infers for an unversioned app (made by Instar, not read).
    package static func inferred(from: String, to: String, at location: SourceLocation) -> SwiftDataMigrationStage {
        SwiftDataMigrationStage(kind: .lightweight, fromVersion: from, toVersion: to, willMigrate: nil, didMigrate: nil, location: location)
    }
}

extension SwiftDataMigrationPlan {
    /// The plan SwiftData runs for an unversioned app: its schemas and the inferred stage, if any.
    package static func inferred(schemas: [String], stages: [SwiftDataMigrationStage], at location: SourceLocation) -> SwiftDataMigrationPlan {
        SwiftDataMigrationPlan(name: "inferred", schemas: schemas, stages: stages, location: location)
    }
}
