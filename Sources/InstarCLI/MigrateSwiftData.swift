import ArgumentParser
import Foundation
import Instar
import InstarSwiftData

/// `instar migrate --swiftdata <sources> --store <store>`: a SwiftData app's store migrated through its
/// `SchemaMigrationPlan` (or, unversioned, the one step SwiftData infers), with the checks of
/// `instar plan --swiftdata` first: a plan SwiftData would refuse, or a store at no schema of it, is not run.
extension MigrateCommand {
    func validateSwiftData() throws {
        if swiftdata.isEmpty { throw ValidationError("--migration-plan, --hooks, --classes and --from-swiftdata go with --swiftdata") }
        if plan != nil || toModel != nil || !models.isEmpty || merge {
            throw ValidationError("give --swiftdata without a plan file, --model, --to-model or --merge: the sources declare the versions")
        }
        if dryRun { throw ValidationError("use 'instar plan --swiftdata <sources> --store <store>' for a dry run") }
        for (flag, value) in [("--time-budget", timeBudget), ("--wait", wait)] {
            if let value, value.isNaN || value < 0 {
                throw ValidationError("\(flag) takes a number of seconds, 0 or more; not \(value)")
            }
        }
    }

    func runSwiftData() throws {
        let names = classes.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        var checked = try SwiftDataPlan.make(
            sources: swiftdata, planName: migrationPlan, hooksFile: hooks, store: store, classes: names, earlier: fromSwiftdata)
        if !checked.isInferred { try checked.matchStore(store) }
        printOut(checked.summary.joined(separator: "\n"))
        for finding in checked.findings { printError(finding.text) }
        if !checked.findings.isEmpty {
            printError("nothing was changed")
            throw InstarExit.failure
        }
        var resume = "instar migrate --store '\(store)'" + swiftdata.map { " --swiftdata '\($0)'" }.joined()
        if let migrationPlan { resume += " --migration-plan '\(migrationPlan)'" }
        if let hooks { resume += " --hooks '\(hooks)'" }
        if let classes { resume += " --classes '\(classes)'" }
        resume += fromSwiftdata.map { " --from-swiftdata '\($0)'" }.joined()
        if let to { resume += " --to '\(to)'" }
        try runPlan(checked.plan, resume: resume, preview: "instar plan " + resume.dropFirst("instar migrate ".count))
        writeModelCache(checked.plan)
    }

    /// After the run, the store's own model in `Z_MODELCACHE`, as SwiftData keeps it: SwiftData (Core Data)
    /// migrates from that model at the next launch whose schema differs, and an unversioned app has no
    /// other. Written for the version the store's metadata now names, in the shapes the corpus's caches
    /// show (``ModelCacheArchive``: each corpus store's cache is reproduced from its sources as an object
    /// graph), and checked by decoding it back to the same hashes. When the model has a shape no cache
    /// shows, the cache stays empty (as a step leaves it) and the note says why. A cache that already
    /// describes the store (nothing to migrate) is kept.
    func writeModelCache(_ plan: Plan) {
        do {
            let opened = try SQLiteStore.open(at: store, readOnly: false)
            defer { try? opened.close() }
            guard let hashes = try opened.metadata()?.entityHashes, !hashes.isEmpty,
                let version = plan.versions.last(where: { VersionHashes(model: $0).entityHashes == hashes })
            else { return }
            if let existing = try? opened.cachedModel(), existing.hashConflicts(with: hashes).isEmpty { return }
            let archive: Data
            do {
                archive = try ModelCacheArchive.archive(version)
            } catch {
                printError("note: Z_MODELCACHE left empty: \(version.name) has what no SwiftData cache in the corpus shows (\(error)); until the app writes its own, a later inferred migration has no source model")
                return
            }
            let blob = RawDeflate.deflate(archive)
            let decoded = try CachedStoreModel.decode(archive: try RawDeflate.inflate(blob), compressedSize: blob.count, path: store)
            guard decoded.hashConflicts(with: hashes).isEmpty else {
                printError("note: Z_MODELCACHE left empty: the archive written for \(version.name) does not decode to the store's hashes")
                return
            }
            try opened.withDatabase { db in
                guard try db.tableExists(CoreDataLayout.modelCacheTable) else { return }
                try db.inTransaction(.immediate) {
                    try db.execute(sql: "DELETE FROM Z_MODELCACHE")
                    try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", arguments: [blob])
                    return .commit
                }
            }
            printOut("model cache: \(version.name) written to Z_MODELCACHE (\(blob.count) bytes), as SwiftData keeps it")
        } catch {
            printError("note: Z_MODELCACHE not written: \(error)")
        }
    }
}
