import ArgumentParser

/// The options that name a SwiftData app's sources, shared by `plan`, `migrate` and `test`, so that
/// each means the same and is explained once.
struct SwiftDataOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Without a plan: the app's SwiftData sources (files or folders, repeatable): its SchemaMigrationPlan is the chain, or, for an unversioned app, the one step SwiftData infers from the store's own model.",
            valueName: "sources"))
    var swiftdata: [String] = []

    @Option(name: .customLong("migration-plan"), help: "With --swiftdata: the SchemaMigrationPlan to use, when the sources have several.")
    var migrationPlan: String?

    @Option(help: ArgumentHelp("With --swiftdata and no SchemaMigrationPlan: the app's @Model classes (comma-separated), as its Schema([...]) lists them.", valueName: "classes"))
    var classes: String?

    @Option(name: .customLong("from-swiftdata"), help: ArgumentHelp("With --swiftdata and no SchemaMigrationPlan: the sources the store shipped with (an earlier version of the app's, repeatable), the inferred step's source.", valueName: "sources"))
    var fromSwiftdata: [String] = []
}

/// A command with the SwiftData option group: its options read as the command's own.
protocol UsesSwiftDataOptions {
    var swiftDataOptions: SwiftDataOptions { get }
}

extension UsesSwiftDataOptions {
    var swiftdata: [String] { swiftDataOptions.swiftdata }
    var migrationPlan: String? { swiftDataOptions.migrationPlan }
    var classes: String? { swiftDataOptions.classes }
    var fromSwiftdata: [String] { swiftDataOptions.fromSwiftdata }
}
