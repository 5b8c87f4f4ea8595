import ArgumentParser
import Foundation
@_spi(Layouts) import Instar

/// `instar inspect --store <db> [--model <model>…]`: which version a store is at, and how Instar knows.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Tell which version a store is at, and how.",
        discussion: """
            Reads the store without writing. The version comes from the store's metadata (entity \
            hashes) when it has some; otherwise the tables and columns are compared with each given \
            model version. When nothing matches, the closest version is named with the exact \
            differences (missing or extra tables, columns, types, indexes).

            Several --model arguments are candidates; when none matches alone, the store may have been \
            written through their merge (NSManagedObjectModel(byMerging:), an app's model and its \
            frameworks'): one version of each is sought whose entities together are exactly the store's.

            Without --model, a Core Data or SwiftData store is described from the model it keeps of \
            itself (Core Data from framework 600 on, and SwiftData, cache it in Z_MODELCACHE): its \
            version identifier, entities, attributes and relationships, and whether its version hashes \
            equal the store's NSStoreModelVersionHashes (a store of Instar's layout is matched against \
            the model its metadata keeps, as before). With --model, a cache that disagrees with the metadata or with the \
            matched version is reported too.

            Exit status 0 when the store matches a version exactly (without --model: when the cache's \
            hashes equal the metadata's), 1 when it does not (drift or unknown version), 65/66 when an \
            input cannot be read (66: no cache and no --model).

            Example:
              instar inspect --store /tmp/garage.sqlite --model Plans/garage/models/v1.yaml --model Plans/garage/models/v2.yaml
              instar inspect --store App.sqlite --model App.xcdatamodeld
              instar inspect --store default.store
            """
    )

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.store }

    @OptionGroup var candidateModels: CandidateModelsOption
    var models: [String] { candidateModels.models }

    @Option(
        help: """
            Layout of the store: instar, coredata or sql. By default the store's bookkeeping tells; a store \
            without any (a hand-written schema) is compared in every layout and the one that matches is named.
            """)
    var layout: String?

    @OptionGroup var output: FormatOption
    var format: OutputFormat { output.format }

    func run() throws {
        let groups = try models.map(loadModels)
        let inspection: StoreInspection
        do {
            inspection = try StoreInspection.of(storeAt: store, layout: try storeLayout(named: layout), candidates: groups)
        } catch let error as StoreError {
            throw fail(error)
        } catch let error as ModelCacheError {
            printError(ErrorHints.text(error))
            throw error.kind == .noCache ? InstarExit.unreadable : InstarExit.invalidInput
        }
        switch format {
        case .json: printOut(jsonText(inspection))
        case .text: printOut(inspection.textLines(store: store).joined(separator: "\n"))
        }
        if !inspection.isExactMatch { throw InstarExit.failure }
    }
}
