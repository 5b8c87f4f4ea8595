import ArgumentParser

// Options that several commands take, each declared once: its name, value and help cannot drift apart
// between commands. A command reads the value through a one-line forwarding property (`var store:
// String { storeOption.store }`), so its code reads as if the option were its own. `--format text|json`
// is `FormatOption` (Support.swift); the SwiftData sources are `SwiftDataOptions`.

/// `--store`: the store a command reads or migrates (inspect, status, migrate, restore, model export).
struct StoreOption: ParsableArguments {
    @Option(help: "Path of the store (a SQLite file).")
    var store: String
}

/// `--store` where a command only plans from a store: its version is where the chain starts (plan, graph).
struct ReadOnlyStoreOption: ParsableArguments {
    @Option(help: "A store whose version the chain starts from (opened read-only, never written).")
    var store: String?
}

/// The plan file, or nothing when the versions come from `--model` or `--swiftdata` (plan, lint, test,
/// migrate).
struct PlanArgument: ParsableArguments {
    @Argument(help: "The plan file (YAML or JSON): versions, stages and hooks. Or give --model (or --swiftdata) instead.")
    var plan: String?
}

/// `--model` standing for an app's versions where no plan lists them (plan, lint, test, migrate, export).
struct AppModelsOption: ParsableArguments {
    @Option(
        name: .customLong("model"),
        help: ArgumentHelp(
            "The app's model bundle (.xcdatamodeld or .momd: every version), or its versions oldest first (repeatable).",
            valueName: "model"))
    var models: [String] = []
}

/// `--model` as candidates for the version a store is at (inspect, store seed).
struct CandidateModelsOption: ParsableArguments {
    @Option(
        name: .customLong("model"),
        help: ArgumentHelp(
            "A candidate version of the store (repeatable); an .xcdatamodeld bundle stands for all its versions.",
            valueName: "model"))
    var models: [String] = []
}

/// `--format text|markdown|json` of the commands that write reports (plan, test).
struct ReportFormatOption: ParsableArguments {
    @Option(help: "Output format: text, markdown (pull requests, CI summaries) or json.")
    var format: ReportFormat = .text
}

/// `--hooks` of the commands that read a SchemaMigrationPlan (plan, migrate, export): SQL for its
/// custom stages. (`instar test --hooks` also takes a bundle's mapping policies, and says so itself.)
struct SwiftDataHooksOption: ParsableArguments {
    @Option(help: ArgumentHelp("With --swiftdata: SQL for the custom stages' hooks (YAML: hook name → SQL).", valueName: "file"))
    var hooks: String?
}
