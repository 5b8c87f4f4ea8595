import Foundation
import GRDB
import InstarModel
import InstarModelIO

/// Which version a store is at, and how Instar knows.
public struct VersionDetection: Sendable {
    public enum Method: String, Sendable {
        /// The store's metadata records the version's entity hashes.
        case metadata
        /// The store's tables and columns are exactly those of the version.
        case schema
    }

    public var layout: String
    /// The matched version, or nil when none matches.
    public var version: Model?
    public var matchedBy: Method?
    /// What the metadata calls the version (it may name a version not among the candidates).
    public var metadataVersionName: String?
    /// The closest candidate when nothing matched exactly.
    public var closest: String?
    /// Differences between the store's schema and the matched (or closest) version's.
    public var drift: [SchemaDifference]

    public var isExactMatch: Bool { version != nil && drift.isEmpty }
}

extension SQLiteStore {
    /// Identifies the store's version among `candidates`. Metadata hashes win; without metadata (or
    /// when no candidate has the recorded hashes) the schema is compared with each candidate's layout.
    /// The model a store keeps in its own metadata counts as a candidate too.
    public func detectVersion(among candidates: [Model]) throws(StoreError) -> VersionDetection {
        let metadata = try self.metadata()
        let actual = try schema()
        var all = candidates
        if let text = metadata?.storedModel, let stored = try? ModelFileReader.parse(text, file: "\(path) (stored model)") {
            all.append(stored)
        }
        func drift(_ model: Model) throws(StoreError) -> [SchemaDifference] {
            let expected: StoreSchema
            do {
                expected = try layout.storageMap(for: model).schema
            } catch {
                throw StoreError(.layout, path: path, error.description)
            }
            return SchemaComparison.differences(
                expected: expected, actual: actual, ignoringExtraIndexes: layout.toleratesExtraIndexes)
        }
        var detection = VersionDetection(
            layout: layout.name, version: nil, matchedBy: nil, metadataVersionName: metadata?.versionName, closest: nil,
            drift: [])
        // Versions differing only in what Core Data does not hash (defaults, indexes) share their hashes:
        // the one the metadata names is the store's.
        let hashes = metadata?.entityHashes ?? [:]
        let matches = hashes.isEmpty ? [] : all.filter { VersionHashes(model: $0).entityHashes == hashes }
        if let match = matches.first(where: { $0.name == metadata?.versionName }) ?? matches.first {
            detection.version = match
            detection.matchedBy = .metadata
            detection.drift = try drift(match)
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
