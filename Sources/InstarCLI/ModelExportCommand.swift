import ArgumentParser
import Foundation
@_spi(Layouts) import Instar

/// `instar model export --store S [--output F]`: the model a store keeps of itself, as an Instar model file.
struct ModelExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the model a store keeps of itself (Z_MODELCACHE) as an Instar model file.",
        discussion: """
            Core Data (framework 600 and later) and SwiftData keep the compiled model that last wrote a \
            store in the store's Z_MODELCACHE table. This writes it as an Instar YAML model file, which \
            Instar reads back to the same version hashes (checked before writing): the starting version \
            of a plan for a store whose model is lost, or a SwiftData app's schema as a file.

            Refuses (exit 1) when the cache's hashes differ from the store's NSStoreModelVersionHashes: \
            such a cache is not the model that wrote the store's tables. Exit 66 when the store has no cache.

            Example:
              instar model export --store default.store --output models/v1.yaml
            """
    )

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.store }

    @Option(help: "Where to write the model file (it must not exist, unless --force); standard output by default.")
    var output: String?

    @Flag(help: "Replace an existing regular file at --output (never the store itself, a link or a device).")
    var force = false

    func run() throws {
        if let output { try checkOutputTarget(output, inputs: [store], force: force) }
        let opened = try openStore(store, readOnly: true)
        let cached: CachedStoreModel
        let metadata: StoreMetadata?
        do {
            cached = try opened.cachedModel()
            metadata = try opened.metadata()
        } catch let error as ModelCacheError {
            printError(ErrorHints.text(error))
            throw error.kind == .noCache ? InstarExit.unreadable : InstarExit.invalidInput
        } catch let error as StoreError {
            throw fail(error)
        }
        let conflicts = cached.hashConflicts(with: metadata?.entityHashes ?? [:])
        if let metadata, !metadata.entityHashes.isEmpty, !conflicts.isEmpty {
            printError(
                "\(store): the cached model's hashes differ from the store's metadata; not exported:\n"
                    + conflicts.map { "  - \($0)" }.joined(separator: "\n"))
            throw InstarExit.failure
        }
        let text = ModelFileWriter.yaml(
            cached.model, comment: "The model cached in \(store) (Z_MODELCACHE), exported by instar model export.")
        // The file must stand for the same version: read it back and compare the hashes before writing.
        let expected = VersionHashes(model: cached.model).entityHashes
        do {
            let reread = try ModelFileReader.parse(text, file: output ?? "<export>", defaultName: cached.model.name)
            guard VersionHashes(model: reread).entityHashes == expected else {
                printError("\(store): the exported model file does not hash as the cache does; not written (an instar bug)")
                throw InstarExit.failure
            }
        } catch let error as ModelError {
            printError("\(store): the exported model file does not read back: \(error.description)")
            throw InstarExit.failure
        }
        guard let output else {
            printOut(text.hasSuffix("\n") ? String(text.dropLast()) : text)
            return
        }
        try writeOutputFile(text, to: output, inputs: [store] + ["-wal", "-shm", "-journal"].map { store + $0 }, force: force)
        printOut("wrote \(output): model '\(cached.model.name)', \(cached.model.entities.count) entities")
    }
}
