import ArgumentParser
@_spi(Layouts) import Instar

/// `instar`: the root command. Each subcommand is a small declarative type in its own file.
@main
struct InstarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "instar",
        abstract: "Plan and run progressive schema migrations of SQLite stores.",
        discussion: """
            Instar reads versioned data models (Instar YAML/JSON model files or Xcode .xcdatamodeld \
            bundles), identifies versions exactly as Core Data does, and tells for every change between \
            two versions whether it can be migrated in place, and why not.

            A model argument is one of:
              path/to/model.yaml          an Instar model file (YAML or JSON)
              path/to/Name.xcdatamodel    one version of an Xcode model
              path/to/Name.xcdatamodeld   an Xcode bundle: its current version, or
                                          every version where a store's is sought
              'path/to/Name.xcdatamodeld#Name 2'
                                          a named version of a bundle
              path/to/Name.momd, .mom     compiled, as an app ships them: a bundle,
                                          one version

            Core Data mapping models (.xcmappingmodel) beside a bundle are found and matched to its \
            versions ('instar mapping' shows one). A chain takes each mapping model's step, except that an \
            inferred step may go past mapping models that only copy values and drop nothing.

            Exit codes: 0 success; 1 the operation failed; 2 another migration holds the store (or \
            another connection has it locked): try again later; 64 bad command line; 65 invalid model or \
            plan file; 66 a file could not be read; 75 stopped at a safe point (time budget): run again. \
            'instar check' alone: 3 the migration will fail on the given stores (or on every store); 4 it \
            loses data (or changes a meaning) the intent file does not declare; 5 it cannot decide (a \
            store's version is unknown, or a step's app code cannot run here).
            """,
        subcommands: [
            ModelCommand.self, DiffCommand.self, StoreCommand.self, InspectCommand.self, PlanCommand.self,
            MigrateCommand.self, StatusCommand.self, RestoreCommand.self, GraphCommand.self, LintCommand.self,
            MappingCommand.self, TestCommand.self, CheckCommand.self, ExportCommand.self,
        ]
    )
}
