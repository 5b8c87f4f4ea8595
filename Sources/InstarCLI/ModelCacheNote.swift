import Foundation
@_spi(Layouts) import Instar

/// After a run: when a Core Data or SwiftData store's `Z_MODELCACHE` is not the model of the version its
/// metadata now names, a note says why (the library writes the cache in the step's transaction and, for a
/// model it cannot archive, keeps the row the store had; see ``ModelCacheWriter``). Silent when the cache
/// is the store's model, when the layout keeps none (Core Data before framework 600, other layouts), and
/// when the store cannot be read back (the run's own output already said what happened).
extension MigrateCommand {
    func noteModelCache(_ plan: Plan) {
        guard let opened = try? SQLiteStore.open(at: store, readOnly: true) else { return }
        defer { try? opened.close() }
        guard let metadata = try? opened.metadata(), metadata.layout == CoreDataLayout.layoutName,
            !metadata.entityHashes.isEmpty,
            let version = plan.versions.last(where: { VersionHashes(model: $0).entityHashes == metadata.entityHashes })
        else { return }
        guard (try? opened.withDatabase { db in try db.tableExists(CoreDataLayout.modelCacheTable) }) == true else { return }
        if let cached = try? opened.cachedModel(), cached.hashConflicts(with: metadata.entityHashes).isEmpty { return }
        switch ModelCacheWriter.compressedArchive(of: version) {
        case .failure(let refusal):
            printError(ErrorHints.modelCacheKept(refusal))
        case .success:
            // Written in the step's transaction unless the store moved on since; nothing to say.
            break
        }
    }
}
