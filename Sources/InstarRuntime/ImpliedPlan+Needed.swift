import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarPlanner
@_spi(Layouts) import InstarStore

/// Which versions of a bundle an implied plan decodes.
public enum VersionReading: Sendable, Hashable {
    /// Every version: for a plan that is shown, linted or tested from every version.
    case every
    /// Only the versions the store's chain needs, when the bundle is a compiled `.momd` whose
    /// `VersionInfo.plist` records every version's hashes: what an app at launch needs. Every version
    /// is read whenever the recorded facts cannot prove the chain the same as with all of them.
    case neededByStore
}

extension ImpliedPlan {
    /// The plan of a compiled bundle with only the store's version and the target decoded, or nil when
    /// the chain could differ from the one over every version (the caller then reads them all).
    ///
    /// Over a bundle's versions without mapping models the chain is the direct step when it drops
    /// nothing; only otherwise does the planner search other versions for a chain that keeps more, and
    /// not at all in a bundle of more than ``ChainFinder/unorderedSearchLimit`` versions. So the two
    /// versions are enough when mapping models lie near the bundle for none, and the bundle is that
    /// large or the direct step is lossless. Decoding the rest is most of a launch's planning time.
    static func readingNeeded(models: [URL], store: URL?, target: String?) throws -> ImpliedPlan? {
        guard models.count == 1, let bundle = models.first, bundle.pathExtension.lowercased() == "momd",
            let store, let recorded = storeHashes(of: store),
            PlanMappings.discover(near: bundle.standardizedFileURL.deletingLastPathComponent()).isEmpty,
            let selection = try ModelBundle.read(momd: bundle, versionsOf: recorded, to: target)
        else { return nil }
        var plan = Plan(
            name: bundle.deletingPathExtension().lastPathComponent, file: bundle.path,
            layout: layout(of: store, models: models), versions: selection.bundle.versions, target: selection.target)
        plan.versionsAreOrdered = false
        guard selection.versionCount > ChainFinder.unorderedSearchLimit
            || directStepKeepsEverything(plan, from: selection.storeVersion, to: selection.target)
        else { return nil }
        return ImpliedPlan(plan: plan, notes: [])
    }

    /// The store's recorded entity hashes, nil when it has none to find its version by.
    private static func storeHashes(of url: URL) -> [String: Data]? {
        guard FileManager.default.fileExists(atPath: url.path),
            let store = try? SQLiteStore.open(at: url.path, readOnly: true)
        else { return nil }
        defer { try? store.close() }
        guard let hashes = (try? store.metadata())?.entityHashes, !hashes.isEmpty else { return nil }
        return hashes
    }

    /// Whether the step from `from` to `to` exists and removes nothing, so that the planner takes it
    /// without looking at any other version.
    private static func directStepKeepsEverything(_ plan: Plan, from: String, to: String) -> Bool {
        guard let start = plan.index(of: from), let end = plan.index(of: to) else { return false }
        if start == end { return true }
        guard let step = VersionGraph(plan: plan).step(start, end) else { return false }
        return ChainFinder.losses(step) == 0
    }
}
