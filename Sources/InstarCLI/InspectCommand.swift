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
        let candidates = groups.flatMap { $0 }
        let chosen = try storeLayout(named: layout)
        var opened: SQLiteStore
        do {
            opened = try SQLiteStore.open(at: store, layout: chosen, readOnly: true)
        } catch {
            throw fail(error)
        }
        // Without --model, a store that keeps its model in its metadata (Instar's layout) is matched
        // against it as before; any other is described from its Core Data cache.
        if models.isEmpty, (try? opened.metadata())??.storedModel == nil {
            try runFromCache(opened)
            return
        }
        var detection: VersionDetection
        let counts: [String: Int]
        do {
            detection = try opened.detectVersion(among: candidates)
            // No layout recognised the store and no version matches it in the default layout: it may be
            // a store without bookkeeping (the sql layout), so compare its schema in every other layout.
            if chosen == nil, !detection.isExactMatch, detection.metadataVersionName == nil {
                let layouts = Layouts.all  // in this task, which may have a registry scope of its own
                let recognised = try opened.withDatabase { db in try layouts.contains { try $0.recognizes(db) } }
                for other in layouts where !recognised && other.name != opened.layout.name {
                    guard let reopened = try? SQLiteStore.open(at: store, layout: other, readOnly: true) else { continue }
                    if let found = try? reopened.detectVersion(among: candidates), found.isExactMatch {
                        try? opened.close()
                        opened = reopened
                        detection = found
                        break
                    }
                    try? reopened.close()
                }
            }
            // Several models given and none matches alone: the store may have been written through
            // their merge (NSManagedObjectModel(byMerging:)), one version of each.
            if !detection.isExactMatch, groups.count > 1, let merged = try opened.detectMergedVersion(groups: groups),
                merged.version != nil
            {
                detection = merged
            }
            counts = try opened.rowCounts()
        } catch let error as StoreError {
            throw fail(error)
        }
        // The store's own model, when it has one, is compared with the metadata and the matched version.
        var cache = (try? opened.cachedModel()).map { CachedModelReport(cached: $0, metadata: try? opened.metadata()) }
        if let version = detection.version, let cached = cache?.cached {
            cache?.bundleConflicts = cached.hashConflicts(
                with: VersionHashes(model: version).entityHashes, recordedBy: "version \(version.name)")
        }
        switch format {
        case .json:
            printOut(
                jsonText(
                    InspectJSON(
                        layout: detection.layout, version: detection.version?.name, matchedBy: detection.matchedBy?.rawValue,
                        drift: detection.drift.map(\.description), rowCounts: counts, metadataVersion: detection.metadataVersionName,
                        tiedWith: detection.tiedVersions.isEmpty ? nil : detection.tiedVersions,
                        mergedFrom: detection.mergedFrom.isEmpty ? nil : detection.mergedFrom,
                        identifierConflict: detection.identifierConflict, closest: detection.closest,
                        cache: cache.map(CachedModelJSON.init))))
        case .text:
            var lines = ["store \(store) (\(detection.layout) layout)"]
            if let version = detection.version {
                let how: String
                switch detection.matchedBy {
                case .metadata?: how = "its metadata's entity hashes"
                case .metadataAndIdentifiers?: how = "its metadata's entity hashes and version identifiers"
                default: how = "its tables and columns"
                }
                lines.append("version \(version.name), known from \(how)")
                if !detection.mergedFrom.isEmpty {
                    lines.append("  (written through a model merged from \(detection.mergedFrom.joined(separator: ", ")))")
                }
                if !detection.tiedVersions.isEmpty {
                    lines.append(
                        "  (the same entity hashes as \(detection.tiedVersions.joined(separator: ", ")); "
                            + "nothing in the store tells them apart)")
                }
                if let conflict = detection.identifierConflict { lines.append("  warning: \(conflict)") }
            } else {
                lines.append("version unknown" + (detection.metadataVersionName.map { " (metadata says '\($0)', which no given model matches)" } ?? ""))
                if let closest = detection.closest { lines.append("closest version: \(closest)") }
            }
            if !detection.drift.isEmpty {
                lines.append("drift:")
                lines += detection.drift.map { "  - \($0)" }
            }
            if let cache { lines += cache.verdictLines }
            lines.append("rows: " + counts.keys.sorted().map { "\($0) \(counts[$0]!)" }.joined(separator: ", "))
            printOut(lines.joined(separator: "\n"))
        }
        if !detection.isExactMatch { throw InstarExit.failure }
    }
}

/// `instar inspect --format json`: the store's version, how it was known, drift and row counts.
struct InspectJSON: Codable, Sendable, Equatable {
    var layout: String
    /// The matched version (null when none matches).
    @AlwaysPresent var version: String?
    /// `metadata`, `metadataAndIdentifiers`, `schema`, `cache` (null when no version matched).
    @AlwaysPresent var matchedBy: String?
    var drift: [String]
    var rowCounts: [String: Int]
    var metadataVersion: String?
    var tiedWith: [String]?
    var mergedFrom: [String]?
    var identifierConflict: String?
    var closest: String?
    /// The store's own model (Z_MODELCACHE), when it has one.
    var cache: CachedModelJSON?
}

