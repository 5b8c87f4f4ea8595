import ArgumentParser

/// `--swiftdata` and `--migration-plan`: an app's SwiftData sources instead of a plan file, shared by
/// every command that reads them (plan, migrate, test, lint, export).
struct SwiftDataSourceOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The app's SwiftData sources (files or folders, repeatable): its SchemaMigrationPlan's schemas and stages, or, for an unversioned app, its one schema.",
            valueName: "sources"))
    var swiftdata: [String] = []

    @Option(name: .customLong("migration-plan"), help: "With --swiftdata: the SchemaMigrationPlan to use, when the sources have several.")
    var migrationPlan: String?
}

/// The options that name a SwiftData app's sources, shared by `plan`, `migrate` and `test`, so that
/// each means the same and is explained once: the sources, and for an unversioned app what it migrates from.
struct SwiftDataOptions: ParsableArguments {
    @OptionGroup var sources: SwiftDataSourceOptions

    @Option(help: ArgumentHelp("With --swiftdata and no SchemaMigrationPlan: the app's @Model classes (comma-separated), as its Schema([...]) lists them.", valueName: "classes"))
    var classes: String?

    @Option(name: .customLong("from-swiftdata"), help: ArgumentHelp("With --swiftdata and no SchemaMigrationPlan: the sources the store shipped with (an earlier version of the app's, repeatable), the inferred step's source; without them, the store's own model (Z_MODELCACHE).", valueName: "sources"))
    var fromSwiftdata: [String] = []
}

/// A command with the SwiftData option group: its options read as the command's own.
protocol UsesSwiftDataOptions {
    var swiftDataOptions: SwiftDataOptions { get }
}

extension UsesSwiftDataOptions {
    var swiftdata: [String] { swiftDataOptions.sources.swiftdata }
    var migrationPlan: String? { swiftDataOptions.sources.migrationPlan }
    var classes: String? { swiftDataOptions.classes }
    var fromSwiftdata: [String] { swiftDataOptions.fromSwiftdata }
}
