import Foundation
import Instar
import InstarLayouts

/// The plan a bundle implies when no plan file is given: what a Core Data app does at launch.
///
/// `instar migrate --store S --model App.xcdatamodeld` finds the store's version among the bundle's
/// versions and runs the cheapest chain of inferred steps to the bundle's current version, with the
/// journal, resume, lease and progress of a plan. A bundle's versions have no order but its current
/// version (``Plan/versionsAreOrdered``): any of them is a starting point. Several `--model` arguments
/// are versions in the order given (a bundle among them contributes its versions in name order).
enum ImplicitPlan {
    /// - Parameters:
    ///   - references: the `--model` arguments.
    ///   - storePath: the store, whose own bookkeeping tells the layout; nil for a dry run without one.
    static func make(models references: [String], storePath: String?, target: String?) throws -> Plan {
        var versions: [Model] = []
        var current: String?
        for reference in references {
            if isBundle(reference) {
                let bundle = try loadBundle(reference)
                versions += bundle.versions
                current = bundle.currentVersionName ?? bundle.versions.last?.name
            } else {
                let model = try loadModel(reference)
                versions.append(model)
                current = model.name
            }
        }
        if let storePath, let cached = cachedSourceVersion(storePath: storePath, versions: versions) {
            // Right before the target: Core Data migrates from the cache straight to the app's model. At
            // the front, the cache would pass as older than every version, and the cheapest chain could
            // run through an old version that lacks entities the store has (their rows deleted).
            let goal = target ?? current
            versions.insert(cached, at: versions.firstIndex { $0.name == goal } ?? versions.endIndex)
        }
        var seen = Set<String>()
        for version in versions where !seen.insert(version.name).inserted {
            printError(
                "version '\(version.name)' is given twice\n  hint: give each version once; a bundle stands for all of its versions")
            throw InstarExit.invalidInput
        }
        if let target, !versions.contains(where: { $0.name == target }) {
            var message = "the target '\(target)' is not one of the given versions; nothing was changed"
            if let hint = Spelling.suggestion(for: target, among: versions.map(\.name)) { message += "\n  hint: \(hint)" }
            printError(message)
            throw InstarExit.failure
        }
        let name = references.count == 1 ? URL(fileURLWithPath: references[0]).deletingPathExtension().lastPathComponent : "models"
        var plan = Plan(
            name: name, file: references.joined(separator: " "), layout: layout(of: storePath, references: references),
            versions: versions, target: target ?? current)
        // One bundle: its versions have no order but the current one (several --model arguments are
        // versions in the order given).
        plan.versionsAreOrdered = !(references.count == 1 && isBundle(references[0]))
        // The app's mapping models beside its bundle fix their steps, as Core Data uses them first.
        for reference in references where isBundle(reference) {
            let near = URL(fileURLWithPath: reference).standardizedFileURL.deletingLastPathComponent()
            let matched = PlanMappings.match(PlanMappings.discover(near: near), versions: versions)
            plan.mappings += matched.mappings
            plan.unmatchedMappings += matched.unmatched.map(\.description) + matched.unreadable.map(\.description)
        }
        return plan
    }

    /// The plan for a store written through a model merged from several (`--merge`): one version of
    /// each `--model` argument is found in the store, then each part moves to its target in turn (its
    /// bundle's current version, or `--to` for the part that has that version), the other parts staying
    /// where they are; every version of the chain is the merge of the parts' versions at that point.
    static func makeMerged(models references: [String], storePath: String, target: String?) throws -> Plan {
        let groups = try references.map(loadModels)
        let currents: [String?] = try references.map { reference in
            isBundle(reference) ? try loadBundle(reference).currentVersionName : nil
        }
        if let target, !groups.joined().contains(where: { $0.name == target }) {
            printError("the target '\(target)' is not a version of any --model; nothing was changed")
            throw InstarExit.failure
        }
        let store: SQLiteStore
        let detection: VersionDetection?
        do {
            store = try SQLiteStore.open(at: storePath, readOnly: true)
            detection = try store.detectMergedVersion(groups: groups)
        } catch {
            throw fail(error)
        }
        defer { try? store.close() }
        guard let detection, detection.version != nil else {
            printError(
                "the store was not written through a merge of one version of each --model\n"
                    + "  hint: 'instar inspect --store \(storePath)' with the same --model arguments shows what it matches")
            throw InstarExit.failure
        }
        var positions = zip(groups, detection.mergedFrom).map { group, name in group.firstIndex { $0.name == name }! }
        let goals = groups.enumerated().map { index, group in
            group.firstIndex { $0.name == target } ?? currents[index].flatMap { name in group.firstIndex { $0.name == name } }
                ?? group.count - 1
        }
        func merged() throws -> Model {
            do {
                return try Model.merging(zip(groups, positions).map { $0[$1] })
            } catch {
                printError(error.description)
                throw InstarExit.invalidInput
            }
        }
        var versions = [try merged()]
        for part in groups.indices {
            while positions[part] != goals[part] {
                positions[part] += positions[part] < goals[part] ? 1 : -1
                versions.append(try merged())
            }
        }
        return Plan(
            name: "merged model", file: references.joined(separator: " "), layout: store.layout.name, versions: versions,
            target: versions.last?.name)
    }

    /// The store's own cached model (`Z_MODELCACHE`) as the chain's source, when the store's version is
    /// none of the given versions, as Core Data migrates a store whose version has left the app's
    /// bundle. Only a cache whose computed hashes equal the store's `NSStoreModelVersionHashes` is
    /// taken: anything else is not the model that wrote the store. Says so on standard error.
    static func cachedSourceVersion(storePath: String, versions: [Model]) -> Model? {
        guard FileManager.default.fileExists(atPath: storePath),
            let store = try? SQLiteStore.open(at: storePath, readOnly: true)
        else { return nil }
        defer { try? store.close() }
        guard let recorded = (try? store.metadata())?.entityHashes, !recorded.isEmpty,
            !versions.contains(where: { VersionHashes(model: $0).entityHashes == recorded })
        else { return nil }
        let cached: CachedStoreModel
        do {
            cached = try store.cachedModel()
        } catch {
            // Without a usable cache the store stays unknown, and the migration says so as before.
            if error.kind != .noCache { printError("note: \(error.description)") }
            return nil
        }
        let conflicts = cached.hashConflicts(with: recorded)
        guard conflicts.isEmpty else {
            printError(
                "note: the store's version is not in the bundle, and its cached model is not the one that wrote it:\n"
                    + conflicts.map { "  - \($0)" }.joined(separator: "\n"))
            return nil
        }
        printError(
            "note: the store's version is not in the bundle; its own cached model is the source "
                + "(version '\(cached.model.name)', \(cached.model.entities.count) entities, from Z_MODELCACHE)")
        return cached.model
    }

    static func isBundle(_ reference: String) -> Bool {
        [".xcdatamodeld", ".xcdatamodeld/", ".momd", ".momd/"].contains { reference.hasSuffix($0) }
    }

    /// The store's own layout when it has bookkeeping; else Core Data's for Xcode models, Instar's otherwise.
    private static func layout(of storePath: String?, references: [String]) -> String {
        if let storePath, FileManager.default.fileExists(atPath: storePath),
            let store = try? SQLiteStore.open(at: storePath, readOnly: true)
        {
            defer { try? store.close() }
            let recognised = (try? store.withDatabase { db in try store.layout.recognizes(db) }) ?? false
            if recognised { return store.layout.name }
        }
        let xcode = references.contains { isBundle($0) || $0.hasSuffix(".xcdatamodel") || $0.contains(".xcdatamodeld#") }
        return (xcode ? LayoutName.coreData(frameworkVersion: nil) : LayoutName.instar).description
    }

    /// The command line that continues an implicit plan's run.
    static func resumeCommand(models references: [String], store: String, target: String?, merge: Bool) -> String {
        let models = references.map { "--model '\($0)'" }.joined(separator: " ")
        return "instar migrate --store '\(store)' \(models)" + (merge ? " --merge" : "") + (target.map { " --to '\($0)'" } ?? "")
    }
}

func loadBundle(_ reference: String) throws -> ModelBundle {
    do {
        let bundle = try ModelBundle.read(xcdatamodeld: URL(fileURLWithPath: reference))
        reportWarnings(of: bundle.versions)
        return bundle
    } catch {
        printError(error.description)
        let unreadable = error.problems.allSatisfy { $0.kind == .unreadable }
        throw unreadable ? InstarExit.unreadable : InstarExit.invalidInput
    }
}
