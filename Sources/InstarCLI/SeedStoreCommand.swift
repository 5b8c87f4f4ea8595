import ArgumentParser
import Foundation
@_spi(Layouts) import Instar
import InstarSeeding

/// `instar store seed <store> --rows N`: synthetic data at the store's version.
struct SeedStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Fill a store with realistic synthetic rows at its version.",
        discussion: """
            Writes --rows rows for every concrete (non-abstract) entity: an entity with sub-entities gets \
            that many of its own and each sub-entity as many (--rows-for Entity=K overrides one entity). \
            Every stored attribute is filled: values at the edges first (empty and non-ASCII strings, quotes, \
            extreme and negative numbers, empty blobs, far dates), then ordinary values, with NULLs in \
            optional attributes and the default where one is declared. To-ones are linked (required ones \
            always), to-many and many-to-many relationships get one to three links per row, ordered ones \
            positions; uniqueness constraints hold by construction. Links point only at rows this seed \
            writes. A store that has rows gets more: new keys follow the highest one (and Core Data's \
            Z_PRIMARYKEY, which is kept right).

            The same --seed on the same store writes the same bytes. Rows are written in one transaction: \
            a request the model cannot satisfy (a required to-one to an entity that gets no rows, a unique \
            Boolean on more than two rows) is refused with the reason and exit status 65, and any failure \
            rolls back; the store is never left half-filled.

            The store's version comes from its metadata, compared with the --model candidates (an \
            .xcdatamodeld bundle stands for all its versions); an instar-layout store also carries its own \
            model, so --model is optional there. A store of the sql layout has no bookkeeping: give \
            --layout sql and its version with --model.

            Example:
              instar store seed /tmp/garage.sqlite --rows 200
              instar store seed App.sqlite --rows 1000 --seed 7 --model App.xcdatamodeld
              instar store seed /tmp/shop.sqlite --rows 50 --rows-for Category=5 --layout sql --model Plans/shop/models/v1.yaml
            """
    )

    @Argument(help: "Path of the store to fill.")
    var store: String

    @Option(help: "Rows per concrete entity.")
    var rows: Int

    @Option(
        name: .customLong("rows-for"),
        help: ArgumentHelp("Rows for one entity, overriding --rows (repeatable).", valueName: "entity=count"))
    var rowsFor: [String] = []

    @Option(help: "Seed of every random choice (same seed, same store: same bytes).")
    var seed: UInt64 = 1

    @OptionGroup var candidateModels: CandidateModelsOption
    var models: [String] { candidateModels.models }

    @Option(help: "Layout of the store (instar, coredata or sql); by default the store's bookkeeping tells.")
    var layout: String?

    func validate() throws {
        for entry in rowsFor {
            let parts = entry.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, Int(parts[1]) != nil else {
                throw ValidationError("--rows-for takes entity=count, not '\(entry)'")
            }
        }
    }

    func run() throws {
        let candidates = try models.flatMap(loadModels)
        let chosen = try storeLayout(named: layout)
        // Read-only while the version is detected: a refusal leaves the store (and its -wal) byte for byte.
        var opened: SQLiteStore
        do {
            opened = try SQLiteStore.open(at: store, layout: chosen, readOnly: true)
        } catch {
            throw fail(error)
        }
        let version = try detect(opened, candidates: candidates)
        do {
            let layout = opened.layout
            try opened.close()
            opened = try SQLiteStore.open(at: store, layout: layout)
        } catch let error as StoreError {
            throw fail(error)
        }
        var perEntity: [String: Int] = [:]
        for entry in rowsFor {
            let parts = entry.split(separator: "=", maxSplits: 1)
            perEntity[String(parts[0])] = Int(parts[1])!
        }
        let started = Date()
        do {
            let report = try opened.seed(model: version, options: SeedOptions(rows: rows, rowsPerEntity: perEntity, seed: seed))
            let seconds = Date().timeIntervalSince(started)
            printOut(summary(report, seconds: seconds))
        } catch {
            printError(error.description)
            throw error.isRefusal ? InstarExit.invalidInput : InstarExit.failure
        }
    }

    /// The store's version, or a message and exit status 1.
    private func detect(_ opened: SQLiteStore, candidates: [Model]) throws -> Model {
        let detection: VersionDetection
        do {
            detection = try opened.detectVersion(among: candidates)
        } catch {
            throw fail(error)
        }
        guard let version = detection.version, detection.drift.isEmpty else {
            var message = "cannot tell which version the store is at"
            if let version = detection.version { message = "the store is at \(version.name) but differs from it" }
            if let closest = detection.closest { message += "; closest is \(closest)" }
            if !detection.drift.isEmpty { message += ", with differences:\n  " + detection.drift.map(\.description).joined(separator: "\n  ") }
            printError(message + "\n  hint: pass the store's version with --model <model> (and --layout sql for a plain store)")
            throw InstarExit.failure
        }
        return version
    }

    private func summary(_ report: SeedReport, seconds: Double) -> String {
        let total = report.rows.values.reduce(0, +)
        let links = report.linkRows.values.reduce(0, +)
        var lines = ["seeded \(store) at version \(report.version): \(total) rows, \(links) link rows "
            + "(seed \(seed), \(String(format: "%.2f", seconds)) s)"]
        lines += report.rows.keys.sorted().map { "  \($0): \(report.rows[$0]!)" }
        lines += report.linkRows.keys.sorted().map { "  \($0) (links): \(report.linkRows[$0]!)" }
        return lines.joined(separator: "\n")
    }
}
