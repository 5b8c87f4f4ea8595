import Foundation
import GRDB
import InstarInference
import InstarModel
import InstarPlanner
import InstarStore

/// Runs a plan's chain on a store: the Swift API behind `instar migrate <plan>`.
///
/// ```swift
/// let migrator = Migrator(plan: try PlanFileReader.read(path: "Plans/music/plan.yaml"))
/// migrator.register(hook: "fillArtists") { context in
///     try context.db.execute(sql: "…")
/// }
/// try migrator.migrate(storeAt: "music.sqlite")
/// ```
public final class Migrator {
    public let plan: Plan
    /// Lets command hooks run (they execute outside the transaction, so the user must opt in).
    public var allowCommands = false
    /// Overrides the plan's `secureDelete` option: `on`, `off` or `fast` (see ``SQLiteStore/setSecureDelete(_:)``).
    public var secureDelete: String?
    private var swiftHooks: [String: SwiftHook] = [:]

    public init(plan: Plan) {
        self.plan = plan
    }

    public func register(hook name: String, _ body: @escaping SwiftHook) {
        swiftHooks[name] = body
    }

    public var layout: any StoreLayout {
        Layouts.named(plan.layout) ?? InstarLayout()
    }

    /// The store's version among the plan's versions, or an error saying what the store looks like.
    public func currentVersion(of store: SQLiteStore) throws -> (Model, VersionDetection) {
        let detection = try store.detectVersion(among: plan.versions)
        guard let version = detection.version, let known = plan.versions.first(where: { VersionHashes(model: $0) == VersionHashes(model: version) })
        else {
            var message = "the store's version is not one of the plan's versions"
            if let name = detection.metadataVersionName { message += " (its metadata says '\(name)')" }
            if let closest = detection.closest {
                message += "; closest is \(closest), differing by:\n  " + detection.drift.map(\.description).joined(separator: "\n  ")
            }
            throw StoreError(.unknownVersion, path: store.path, message, hint: "add the store's version to the plan's versions")
        }
        if !detection.drift.isEmpty {
            throw StoreError(
                .schemaDrift, path: store.path,
                "the store is at \(known.name) but its schema differs:\n  " + detection.drift.map(\.description).joined(separator: "\n  "),
                hint: "repair the schema, or restore a backup, before migrating")
        }
        return (known, detection)
    }

    /// The cheapest chain from the store's version to `target` (default: the plan's target).
    public func chain(for store: SQLiteStore, to target: String? = nil) throws -> (current: Model, chain: Chain, graph: VersionGraph) {
        let (current, _) = try currentVersion(of: store)
        let rows = try store.rowsByEntity(at: current)
        let graph = VersionGraph(plan: plan, costModel: StepCostEstimator(layout: layout, rowsByEntity: rows))
        guard let targetName = target ?? plan.targetVersion else {
            throw StoreError(.unknownVersion, path: store.path, "the plan has no versions")
        }
        guard plan.index(of: targetName) != nil else {
            throw StoreError(
                .unknownVersion, path: store.path, "the target '\(targetName)' is not a version of the plan",
                hint: Spelling.suggestion(for: targetName, among: plan.versions.map(\.name)))
        }
        let chain = try ChainFinder(graph: graph).cheapestChain(from: current.name, to: targetName)
        return (current, chain, graph)
    }

    /// Migrates the store at `path` to `target`, one transaction per step; returns what ran.
    @discardableResult
    public func migrate(storeAt path: String, to target: String? = nil, progress: ((String) -> Void)? = nil) throws
        -> [StepOutcome]
    {
        let store = try SQLiteStore.open(at: path, layout: layout)
        defer { try? store.close() }
        if let mode = secureDelete ?? plan.options.secureDelete {
            try store.setSecureDelete(mode)
        }
        let (_, chain, _) = try chain(for: store, to: target)
        let hooks = HookRunner(plan: plan, swiftHooks: swiftHooks, allowCommands: allowCommands, storePath: path)
        var outcomes: [StepOutcome] = []
        for (index, step) in chain.steps.enumerated() {
            guard let old = plan.versions.first(where: { $0.name == step.from }),
                let new = plan.versions.first(where: { $0.name == step.to })
            else { continue }
            let label = "\(step.from) → \(step.to)"
            progress?("step \(index + 1)/\(chain.steps.count): \(label) (\(step.kind.rawValue))")
            var hookError: HookError?
            do {
                let outcome = try store.migrate(
                    from: old, to: new,
                    before: { db in
                        do { try hooks.run(step.stage?.before ?? [], phase: .before, step: label, db: db) } catch let e as HookError {
                            hookError = e
                            throw e
                        }
                    },
                    after: { db in
                        do { try hooks.run(step.stage?.after ?? [], phase: .after, step: label, db: db) } catch let e as HookError {
                            hookError = e
                            throw e
                        }
                    })
                outcomes.append(outcome)
            } catch {
                if let hookError { throw hookError }
                throw error
            }
        }
        return outcomes
    }
}
