import ArgumentParser
import GRDB
@_spi(Layouts) import Instar
@_spi(Layouts) import InstarStore

/// `instar store …`: creating stores.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Create and seed stores.",
        subcommands: [CreateStoreCommand.self, SeedStoreCommand.self]
    )
}

/// `instar store create <model> --store <db>`: an empty store at a version.
struct CreateStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an empty store at a model version.",
        discussion: """
            Creates the tables, indexes and metadata of the model version in the chosen layout. \
            Refuses to overwrite an existing file.

            Example:
              instar store create Plans/garage/models/v1.yaml --store /tmp/garage.sqlite
              instar store create 'App.xcdatamodeld#App 2' --store /tmp/App.sqlite --layout coredata
            """
    )

    @Argument(help: "The model version of the new store.")
    var model: String

    @Option(help: "Path of the store to create.")
    var store: String

    @Option(
        help: """
            Store layout: instar (readable tables named after entities), coredata (Core Data's Z… tables; \
            coredata:<NSPersistenceFrameworkVersion> follows an older framework's conventions, e.g. coredata:637) \
            or sql (hand-written SQL conventions: id primary keys, <relationship>_id foreign keys, no metadata).
            """)
    var layout: String = "instar"

    func run() throws {
        let model = try loadModel(model)
        guard let layout = try storeLayout(named: layout) else { throw ExitCode.validationFailure }
        do {
            let created = try SQLiteStore.create(at: store, model: model, layout: layout)
            let tables = try created.schema().tables.count
            printOut("created \(store) at version \(model.name) (\(layout.name) layout, \(tables) tables)")
            // Core Data (framework 600 on) keeps the model in a store it creates: so does this command, so
            // that a later migration from a model the app no longer ships has its source.
            if let coreData = created.layout as? CoreDataLayout, coreData.keepsModelCache {
                let outcome = try StoreError.wrapping(path: store, doing: .writingModelCache) {
                    try created.withDatabase { db in
                        var outcome = ModelCacheOutcome.notKept(frameworkVersion: coreData.frameworkVersion)
                        try db.inTransaction {
                            outcome = try ModelCacheWriter.write(db, model: model, layout: coreData)
                            return .commit
                        }
                        return outcome
                    }
                }
                if case .keptPrevious(let refusal) = outcome { printError(ErrorHints.modelCacheKept(refusal)) }
            }
        } catch let error as StoreError {
            throw fail(error)
        } catch {
            throw fail(StoreError.from(error, path: store, doing: .writingModelCache))
        }
    }
}
