import Foundation
import GRDB
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarSQL

/// What became of a store's `Z_MODELCACHE` when the store was moved to a version: a report, never a
/// failure — the cache only helps Core Data migrate a store whose model left the app, so a model the writer
/// cannot express costs that help, not the migration.
package enum ModelCacheOutcome: Sendable, Hashable {
    /// The version's model was written (the compressed size), after it decoded back to the version's hashes.
    case written(bytes: Int)
    /// The model has a shape the writer cannot yet express (``ModelCacheRefusal/reasons``): the row the
    /// store had is kept as it was (a stale cache is ignored by Core Data when its hashes disagree with the
    /// store's metadata, which they then do; none would lose a model a later migration may still need).
    case keptPrevious(ModelCacheRefusal)
    /// The layout's framework version predates the cache (before 600): the store gets none.
    case notKept(frameworkVersion: Int)
}

/// Why the writer could not produce a cache for a model, with the facts.
package struct ModelCacheRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The model's version name.
    package let version: String
    /// One sentence per shape (entity and property named), or why the written bytes did not check out.
    package let reasons: [String]
    package var description: String { "\(version): " + reasons.joined(separator: "; ") }
}

/// Writes the store's own model, as Core Data does, in the transaction that records the store's version.
package enum ModelCacheWriter {
    /// The raw-DEFLATE archive of `model` as `Z_MODELCACHE.Z_CONTENT` holds it, checked by inflating and
    /// decoding it back with the reader Instar uses on real caches: its entity hashes and version
    /// identifiers must be the model's. A refusal says which shapes the writer cannot express, or what the
    /// decoded model got wrong.
    package static func compressedArchive(of model: Model) -> Result<Data, ModelCacheRefusal> {
        let archive: Data
        do {
            archive = try ModelCacheArchive.archive(model, style: .coreData)
        } catch {
            return .failure(ModelCacheRefusal(version: model.name, reasons: error.reasons))
        }
        let blob = RawDeflate.deflate(archive)
        let decoded: CachedStoreModel
        do {
            decoded = try CachedStoreModel.decode(archive: try RawDeflate.inflate(blob), compressedSize: blob.count, path: model.name)
        } catch {
            return .failure(ModelCacheRefusal(version: model.name, reasons: ["the written archive does not decode: \(error)"]))
        }
        let conflicts = decoded.hashConflicts(with: VersionHashes(model: model).entityHashes, recordedBy: "the version")
        if !conflicts.isEmpty {
            return .failure(ModelCacheRefusal(version: model.name, reasons: ["the written archive decodes to other hashes: " + conflicts.joined(separator: "; ")]))
        }
        let identifiers = model.versionIdentifiers.isEmpty ? [model.versionIdentifier].compactMap { $0 } : model.versionIdentifiers
        // The reader keeps one identifier of the archived set (a merged model has several).
        if !Set(decoded.model.versionIdentifiers).isSubset(of: Set(identifiers)) {
            return .failure(ModelCacheRefusal(version: model.name, reasons: ["the written archive decodes to version identifiers \(decoded.model.versionIdentifiers), not \(identifiers)"]))
        }
        return .success(blob)
    }

    /// Replaces the store's cache with `model`'s (inside the caller's transaction, beside `Z_METADATA`), or
    /// keeps the row it had when the model cannot be written. A layout before framework 600 gets none.
    @discardableResult
    package static func write(_ db: Database, model: Model, layout: CoreDataLayout) throws -> ModelCacheOutcome {
        guard layout.keepsModelCache else { return .notKept(frameworkVersion: layout.frameworkVersion) }
        let table = CoreDataLayout.modelCacheTable
        guard try db.tableExists(table) else { return .notKept(frameworkVersion: layout.frameworkVersion) }
        switch compressedArchive(of: model) {
        case .failure(let refusal):
            return .keptPrevious(refusal)
        case .success(let blob):
            try db.execute(sql: "DELETE FROM \(table.sqlQuoted)")
            try db.execute(sql: "INSERT INTO \(table.sqlQuoted) (\("Z_CONTENT".sqlQuoted)) VALUES (?)", arguments: [blob])
            return .written(bytes: blob.count)
        }
    }

    /// Empties the cache (a store just created keeps none until a migration writes one).
    static func clear(_ db: Database) throws {
        let table = CoreDataLayout.modelCacheTable
        if try db.tableExists(table) { try db.execute(sql: "DELETE FROM \(table.sqlQuoted)") }
    }
}
