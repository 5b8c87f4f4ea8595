import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarLayouts

/// Which version a store is at, and how Instar knows.
package struct VersionDetection: Sendable {
    /// How the version was recognised, strongest first.
    package enum Method: String, Sendable {
        /// The store's metadata records the version's entity hashes (and no other candidate has them).
        case metadata
        /// Several candidates have the recorded entity hashes (they differ only in what Core Data does
        /// not hash); the version identifiers the store records name this one.
        case metadataAndIdentifiers = "metadata+identifiers"
        /// The store's tables and columns are exactly those of the version.
        case schema
        /// No model was given: the model the store keeps of itself (`Z_MODELCACHE`) has the entity
        /// hashes its metadata records (``StoreInspection``).
        case cache
    }

    /// The name of the store's layout.
    package var layout: String
    /// The matched version, or nil when none matches.
    package var version: Model?
    /// How the version was recognised; nil when none matched.
    package var matchedBy: Method?
    /// What the metadata calls the version (it may name a version not among the candidates).
    package var metadataVersionName: String?
    /// The closest candidate when nothing matched exactly.
    package var closest: String?
    /// Differences between the store's schema and the matched (or closest) version's.
    package var drift: [SchemaDifference]
    /// Other candidates with exactly the matched version's entity hashes, which the store's metadata
    /// could not tell apart from it.
    package var tiedVersions: [String] = []
    /// Where the store's recorded version identifiers disagree with its entity hashes: said, not hidden.
    package var identifierConflict: String?
    /// For a store written through a merged model: the version of each part (``version`` is their merge).
    package var mergedFrom: [String] = []

    /// True when a version matched and the store's schema is exactly that version's (no drift): safe to
    /// migrate from.
    package var isExactMatch: Bool { version != nil && drift.isEmpty }
}

extension SQLiteStore {
    /// Identifies the store's version among `candidates`. Metadata hashes win; without metadata (or
    /// when no candidate has the recorded hashes) the schema is compared with each candidate's layout.
    /// The model a store keeps in its own metadata counts as a candidate too.
    package func detectVersion(among candidates: [Model]) throws(StoreError) -> VersionDetection {
        let metadata = try self.metadata()
        let actual = try schema()
        var all = candidates
        if let text = metadata?.storedModel, let stored = StoredModels.model(text, path: path) {
            all.append(stored)
        }
        func drift(_ model: Model) throws(StoreError) -> [SchemaDifference] {
            let expected: StoreSchema
            do {
                expected = try layout.storageMap(for: model).schema
            } catch {
                throw StoreError.layout(error, path: path)
            }
            return SchemaComparison.differences(
                expected: expected, actual: actual, ignoringExtraIndexes: layout.toleratesExtraIndexes,
            includingViewsAndTriggers: layout.schemaIncludesViewsAndTriggers)
        }
        var detection = VersionDetection(
            layout: layout.name, version: nil, matchedBy: nil, metadataVersionName: metadata?.versionName, closest: nil,
            drift: [])
        let hashes = metadata?.entityHashes ?? [:]
        let matches = hashes.isEmpty ? [] : all.filter { VersionHashes(model: $0).entityHashes == hashes }
        if let metadata, !matches.isEmpty {
            let choice = Self.choose(among: matches, metadata: metadata)
            detection.version = choice.version
            detection.matchedBy = choice.method
            detection.tiedVersions = choice.tied
            detection.identifierConflict = Self.identifierConflict(
                chosen: choice.version, metadata: metadata, candidates: all)
            detection.drift = try drift(choice.version)
            return detection
        }
        var best: (model: Model, differences: [SchemaDifference])?
        for candidate in all {
            let differences = try drift(candidate)
            if differences.isEmpty {
                detection.version = candidate
                detection.matchedBy = .schema
                return detection
            }
            if best == nil || differences.count < best!.differences.count {
                best = (candidate, differences)
            }
        }
        detection.closest = best?.model.name
        detection.drift = best?.differences ?? []
        return detection
    }
}

extension SQLiteStore {
    /// Versions differing only in what Core Data does not hash (defaults, indexes, identifiers) share
    /// their entity hashes. The version name a layout records (Instar's) decides first; then the
    /// version identifiers Core Data records (`NSStoreModelVersionIdentifiers`, compared as a set, as
    /// Core Data keeps them); else the earliest candidate, with the others reported as tied.
    static func choose(among matches: [Model], metadata: StoreMetadata)
        -> (version: Model, method: VersionDetection.Method, tied: [String])
    {
        if let named = matches.first(where: { $0.name == metadata.versionName }) {
            return (named, .metadata, [])
        }
        if matches.count == 1 { return (matches[0], .metadata, []) }
        if let identifiers = metadata.versionIdentifiers {
            let recorded = Set(identifiers)
            let agreeing = matches.filter { Set($0.versionIdentifiers) == recorded }
            if let first = agreeing.first, agreeing.count < matches.count {
                return (first, .metadataAndIdentifiers, agreeing.dropFirst().map(\.name))
            }
        }
        return (matches[0], .metadata, matches.dropFirst().map(\.name))
    }

    /// A sentence when the recorded identifiers belong to another candidate than the one whose entity
    /// hashes the store has (a store edited by hand, or a model whose identifier was reused).
    static func identifierConflict(chosen: Model, metadata: StoreMetadata, candidates: [Model]) -> String? {
        guard let identifiers = metadata.versionIdentifiers, Set(identifiers) != Set(chosen.versionIdentifiers),
            Set(identifiers) != [""]
        else { return nil }
        let named = candidates.filter { Set($0.versionIdentifiers) == Set(identifiers) }.map(\.name)
        let list = identifiers.map { "'\($0)'" }.joined(separator: ", ")
        return "the store records the version identifier(s) \(list)"
            + (named.isEmpty ? ", which no given version has" : ", which are \(named.joined(separator: ", "))'s")
            + ", but its entity hashes are \(chosen.name)'s; the hashes decide"
    }
}

extension SQLiteStore {
    /// The version of a store written through a model merged from several (``Model/merging(_:name:)``):
    /// from each group (the versions of one bundle or one model argument) the version whose every entity
    /// the store records with the same hash, such that together they account for every entity of the
    /// store, each once. Ties within a group go to the version whose identifier the store records, else
    /// the earliest. Nil when the store has no entity hashes or no such combination exists.
    package func detectMergedVersion(groups: [[Model]]) throws(StoreError) -> VersionDetection? {
        guard groups.count > 1, let metadata = try self.metadata(), !metadata.entityHashes.isEmpty else { return nil }
        let hashes = metadata.entityHashes
        let recorded = Set(metadata.versionIdentifiers ?? [])
        var parts: [Model] = []
        for group in groups {
            let fitting = group.filter { version in
                let own = VersionHashes(model: version).entityHashes
                return !own.isEmpty && own.allSatisfy { hashes[$0.key] == $0.value }
            }
            guard let part = fitting.first(where: { !recorded.isDisjoint(with: $0.versionIdentifiers) }) ?? fitting.first
            else { return nil }
            parts.append(part)
        }
        let covered = parts.flatMap { $0.entities.map(\.name) }
        guard covered.count == Set(covered).count, Set(covered) == Set(hashes.keys),
            let merged = try? Model.merging(parts)
        else { return nil }
        var detection = try detectVersion(among: [merged])
        detection.mergedFrom = parts.map(\.name)
        return detection
    }
}

/// The models stores keep in their metadata, parsed once per text: a run detects the version several
/// times (deciding, then planning, on two connections), and the parsed model keeps what is derived
/// from it (hashes, storage maps) for the next detection.
enum StoredModels {
    private static let parsed = Locked<[String: Model]>([:])

    /// The stored model `text` of the store at `path`, or nil when it does not parse (the store is then
    /// matched against the plan's versions alone).
    static func model(_ text: String, path: String) -> Model? {
        let key = path + "\u{0}" + text
        if let model = parsed.withLock({ $0[key] }) { return model }
        guard let model = try? ModelFileReader.parse(text, file: "\(path) (stored model)") else { return nil }
        parsed.withLock { cache in
            if cache.count >= 8 { cache.removeAll() }  // a handful of stores per process; bounded all the same
            cache[key] = model
        }
        return model
    }
}
