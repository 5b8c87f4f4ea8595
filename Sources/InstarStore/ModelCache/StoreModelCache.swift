import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// The model a Core Data or SwiftData store keeps of itself, read from `Z_MODELCACHE`.
///
/// Core Data (framework 600 and later) and SwiftData store the compiled model that last wrote the store
/// in `Z_MODELCACHE.Z_CONTENT`: a keyed archive, the `.mom` format, compressed as raw DEFLATE. Core Data
/// migrates from it when the store's version has left the app's bundle; Instar reads it for the same
/// reason, and to describe a store given without its model.
package struct CachedStoreModel: Sendable {
    /// The decoded model; named ``CachedStoreModel/name(identifier:)``.
    package let model: Model
    /// Bytes of `Z_CONTENT` as stored (compressed).
    package let compressedSize: Int
    /// Bytes of the inflated archive.
    package let archiveSize: Int
    /// The inflated archive (a `.mom`), for writing it out or decoding it again.
    package let archive: Data

    /// The version name a cached model gets: `cached <identifier>`, or `cached` when the model declares
    /// no identifier. It says where the version came from wherever a plan or report names it.
    package static func name(identifier: String?) -> String {
        guard let identifier, !identifier.isEmpty else { return "cached" }
        return "cached \(identifier)"
    }

    /// Decodes an inflated archive; `path` (the store) is used in messages.
    package static func decode(archive: Data, compressedSize: Int, path: String) throws(ModelCacheError)
        -> CachedStoreModel
    {
        guard archive.starts(with: Array("bplist00".utf8)) else {
            let head = archive.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
            throw ModelCacheError(.notAPropertyList(firstBytes: head.isEmpty ? "(nothing)" : head), path: path)
        }
        let file = "\(path) (Z_MODELCACHE)"
        let model: Model
        do {
            let read = try CompiledModelReader.parse(data: archive, name: "cached", file: file)
            // Renamed once the identifier is known; the entities were validated already, so this cannot fail.
            model = try Model(
                name: name(identifier: read.versionIdentifier), versionIdentifier: read.versionIdentifier,
                entities: read.entities, source: file, validatesDefaultValues: false)
        } catch {
            let text = error.problems.map(\.message).joined(separator: "; ")
            let archiveReason = (error.underlying as? KeyedArchiveError)?.reason
            if error.problems.contains(where: { $0.kind == .missingKey }) {
                throw ModelCacheError(.noEntities(text), path: path, archiveReason: archiveReason)
            }
            throw ModelCacheError(.notAModelArchive(text), path: path, archiveReason: archiveReason)
        }
        return CachedStoreModel(model: model, compressedSize: compressedSize, archiveSize: archive.count, archive: archive)
    }
}

extension SQLiteStore {
    /// The model this store keeps in `Z_MODELCACHE`, inflated and decoded.
    /// - Throws: ``ModelCacheError``: `.noCache` when there is none, else what is wrong with it.
    package func cachedModel() throws(ModelCacheError) -> CachedStoreModel {
        let blob: Data?
        do {
            blob = try withDatabase { db -> Data? in
                let table = CoreDataLayout.modelCacheTable
                guard try db.tableExists(table) else { return nil }
                return try Data.fetchOne(db, sql: "SELECT \("Z_CONTENT".sqlQuoted) FROM \(table.sqlQuoted) LIMIT 1")
            }
        } catch {
            throw ModelCacheError(.sqlite("\(error)"), path: path)
        }
        guard let blob, !blob.isEmpty else { throw ModelCacheError(.noCache, path: path) }
        let archive: Data
        do {
            archive = try RawDeflate.inflate(blob)
        } catch {
            switch error {
            case .invalid(let message): throw ModelCacheError(.notDeflate(message), path: path)
            case .truncated: throw ModelCacheError(.notDeflate("the stream ends early"), path: path)
            case .tooLarge(let inflated, let limit):
                // A well-formed stream, refused for its size: stopped at the limit, before decoding.
                let passed = ArchiveLimitPassed(.bytes, found: inflated, maximum: limit)
                throw ModelCacheError(
                    .notAModelArchive("it inflates past \(limit) bytes (stopped at \(inflated)), more than a model can hold"),
                    path: path, archiveReason: .exceedsLimit(passed))
            }
        }
        return try CachedStoreModel.decode(archive: archive, compressedSize: blob.count, path: path)
    }
}

extension CachedStoreModel {
    /// Where the cached model's computed entity hashes disagree with `recorded` (a store's
    /// `NSStoreModelVersionHashes`, or a bundle version's): one line per entity, empty when they agree.
    ///
    /// They agree for every cache in the corpus Instar can hash (docs/coredata-layout.md); a
    /// disagreement means the cache is not the model that wrote the hashes, or holds something Instar
    /// does not hash yet (derived attributes), and the cache must not stand in for the store's version.
    package func hashConflicts(with recorded: [String: Data], recordedBy: String = "the metadata") -> [String] {
        let computed = VersionHashes(model: model).entityHashes
        var lines: [String] = []
        for name in Set(computed.keys).union(recorded.keys).sorted(by: CoreDataOrder.precedes) {
            switch (computed[name], recorded[name]) {
            case let (mine?, theirs?) where mine != theirs:
                lines.append(
                    "entity \(name): the cache hashes to \(mine.base64EncodedString()), "
                        + "\(recordedBy) records \(theirs.base64EncodedString())")
            case (_?, nil): lines.append("entity \(name) is in the cache, not in \(recordedBy)")
            case (nil, _?): lines.append("entity \(name) is in \(recordedBy), not in the cache")
            default: break
            }
        }
        return lines
    }
}
