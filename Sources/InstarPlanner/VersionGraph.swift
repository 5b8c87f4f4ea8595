import Foundation
import InstarInference
@_spi(Layouts) import InstarModel

/// What running one step costs, as the planner compares chains.
public struct StepCost: Sendable, Hashable, Comparable {
    /// Rows copied by table rebuilds and data moves (adds and renames in place cost nothing).
    public var rowsRewritten: Int
    /// Tables the step rebuilds.
    public var tablesRebuilt: [String]

    /// A cost.
    package init(rowsRewritten: Int, tablesRebuilt: [String] = []) {
        self.rowsRewritten = rowsRewritten
        self.tablesRebuilt = tablesRebuilt
    }

    /// Orders costs by rows rewritten: the planner prefers the step that rewrites fewer rows.
    public static func < (a: StepCost, b: StepCost) -> Bool { a.rowsRewritten < b.rowsRewritten }
}

/// Estimates the cost of a step. The store layer implements it (it knows which changes rebuild a
/// table in its layout and how many rows each table has); the planner only compares numbers.
package protocol StepCostModel: Sendable {
    func cost(from old: Model, to new: Model, diff: ModelDiff) -> StepCost
    /// The rows the store has of an entity (by canonical name), when a store was counted.
    func knownRows(ofEntity canonicalName: String) -> Int?
}

extension StepCostModel {
    package func knownRows(ofEntity canonicalName: String) -> Int? { nil }
}

/// Without a store: every rebuilt table weighs the same nominal amount.
package struct NominalCostModel: StepCostModel {
    /// The nominal model, for planning without a store (`instar lint`, `instar graph`).
    package init() {}
    package func cost(from old: Model, to new: Model, diff: ModelDiff) -> StepCost {
        StepCost(rowsRewritten: 0)
    }
}

/// An edge of the version graph: a step the runtime can perform.
public struct Step: Sendable {
    /// Where a step comes from, and so what runs it.
    public enum Kind: String, Sendable {
        /// Inferred from the two versions, no app code.
        case lightweight
        /// Declared in the plan: an inferred step with hooks before and/or after.
        case custom
        /// Proposed by Instar where no chain exists; needs the user's hook.
        case synthesized
        /// A Core Data mapping model's step: its entity mappings, not inference, say what becomes of
        /// each row; it is never skipped.
        case mapping
    }

    /// The version the step starts at.
    public var from: String
    /// The version the step ends at; a later version, possibly several later (a skip).
    public var to: String
    /// Where the step comes from.
    public var kind: Kind
    /// The changes between the two versions, with their verdicts.
    package var diff: ModelDiff
    /// What the step costs on the store it was planned for (the rows it rewrites); the cheapest chain
    /// is the one whose steps cost least.
    public var cost: StepCost
    /// The custom stage the step runs, for a ``Kind/custom`` step; nil otherwise.
    public var stage: CustomStage?
    /// The mapping model the step runs, for a ``Kind/mapping`` step; nil otherwise.
    public var mapping: PlannedMapping?
    /// Which rule of the planner put the step in its chain (the dry run shows it).
    public var choice: StepChoice = .cheapest
}

/// The single-step diffs of one plan, by version indexes: what graphs over that plan can share
/// (``VersionGraph/init(plan:costModel:sharing:)``). Never share one between plans.
package final class StepDiffs: Sendable {
    let cache = Locked<[Int: ModelDiff]>([:])

    package init() {}
}

/// The versions of a plan and the steps between them, built lazily: a skip edge (V1 → V4) is only
/// inferred when a chain search asks for it.
///
/// `Sendable` because its only mutable state, the caches of diffs and costs, is ``Locked`` (the work
/// itself runs outside the lock: two tasks asking for the same edge at once may both infer it, and the
/// results are equal).
package final class VersionGraph: Sendable {
    /// The plan whose versions the graph connects.
    package let plan: Plan
    /// How steps are priced.
    package let costModel: any StepCostModel
    /// Each version's hashes, in the order of ``versions``.
    package let hashes: [VersionHashes]
    private let diffs: StepDiffs
    private let skipDiffs = Locked<[Int: ModelDiff]>([:])
    private let costs = Locked<[Int: StepCost]>([:])
    /// Each version's index by name (the first version of a name, as ``Plan/index(of:)`` finds it):
    /// the checks look names up once per version or step, and a scan of the plan each time made them
    /// quadratic in the number of versions.
    private let indexes: [String: Int]
    /// The first custom stage and the first mapping model of each pair (``key(_:_:)``), as ``stage(_:_:)``
    /// and ``mapping(_:_:)`` return them: asked for every edge a search looks at.
    private let stages: [Int: CustomStage]
    private let mappings: [Int: PlannedMapping]
    private let diffsComputed = Locked(0)

    /// How many diffs this graph has inferred (single steps and skips, cached or not): what lint and
    /// graph spend their time on, counted so tests can see it grows linearly with the versions.
    package var diffCount: Int { diffsComputed.withLock { $0 } }

    /// A graph over the plan's versions; hashes are computed now, diffs and costs when a search asks for them.
    package convenience init(plan: Plan, costModel: any StepCostModel = NominalCostModel()) {
        self.init(plan: plan, costModel: costModel, sharing: StepDiffs())
    }

    /// A graph whose single-step diffs are kept in `diffs`, shared with the other graphs over the same
    /// plan: costs depend on a store's row counts, diffs only on the versions, so a migrator that builds
    /// a graph per store (every run of `instar test`) infers each single step once.
    package init(plan: Plan, costModel: any StepCostModel, sharing diffs: StepDiffs) {
        self.plan = plan
        self.costModel = costModel
        self.diffs = diffs
        self.hashes = ParallelMap.map(plan.versions) { $0.versionHashes }
        var indexes: [String: Int] = [:]
        for (i, version) in plan.versions.enumerated() where indexes[version.name] == nil { indexes[version.name] = i }
        self.indexes = indexes
        let count = plan.versions.count
        func pairs<T>(_ items: [T], _ ends: (T) -> (String, String)) -> [Int: T] {
            var result: [Int: T] = [:]
            for item in items {
                let (from, to) = ends(item)
                guard let i = indexes[from], let j = indexes[to] else { continue }
                if result[i * count + j] == nil { result[i * count + j] = item }
            }
            return result
        }
        self.stages = pairs(plan.stages) { ($0.from, $0.to) }
        self.mappings = pairs(plan.mappings) { ($0.from, $0.to) }
    }

    /// The index of the version named `name`, as ``Plan/index(of:)`` gives it, without scanning the plan.
    package func index(of name: String) -> Int? { indexes[name] }

    /// Infers and prices every single step of [a, b] on all cores: a chain search needs them all.
    package func prepareSingleSteps(from a: Int, to b: Int) {
        let pending = costs.withLock { costs in (a..<max(a, b)).filter { costs[key($0, $0 + 1)] == nil } }
        let results = ParallelMap.map(pending) { k -> StepCost in
            costModel.cost(from: versions[k], to: versions[k + 1], diff: diff(k, k + 1))
        }
        costs.withLock { costs in
            for (k, cost) in zip(pending, results) { costs[key(k, k + 1)] = cost }
        }
    }

    /// The plan's versions, oldest first; steps refer to them by index.
    package var versions: [Model] { plan.versions }

    private func key(_ i: Int, _ j: Int) -> Int { i * versions.count + j }

    /// The diff from version `i` to version `j` (indexes into ``versions``), computed once and cached.
    package func diff(_ i: Int, _ j: Int) -> ModelDiff {
        // Single steps are kept in the shared cache, skip edges in this graph's own: every store's
        // search crosses the same single steps, but each asks for the skip edges from its own version,
        // and keeping all of those (a hundred versions have 5,000) would grow with the square of the plan.
        let cache = j == i + 1 ? diffs.cache : skipDiffs
        if let cached = cache.withLock({ $0[key(i, j)] }) { return cached }
        let diff = ModelDiff(from: versions[i], to: versions[j])
        diffsComputed.withLock { $0 += 1 }
        cache.withLock { $0[key(i, j)] = diff }
        return diff
    }

    /// Drops the cached diffs and costs of skips from version `i`: a caller that walks the versions once
    /// (`instar graph`) never asks for them again, and keeping every skip of a long history (up to
    /// `maxSkip` per version) held most of its memory.
    package func forgetSkips(from i: Int) {
        let keys = (i + 2)..<max(i + 2, versions.count)
        skipDiffs.withLock { cache in for j in keys { cache[key(i, j)] = nil } }
        costs.withLock { cache in for j in keys { cache[key(i, j)] = nil } }
    }

    /// Drops everything kept of the steps from version `i`, its single step too: for a caller that has
    /// drawn every step from `i` and only walks on (`instar graph`; at 3,000 versions the single steps
    /// behind the walk were a sixth of its memory). A single step asked for again is inferred again.
    package func forgetSteps(from i: Int) {
        forgetSkips(from: i)
        diffs.cache.withLock { $0[key(i, i + 1)] = nil }
        costs.withLock { $0[key(i, i + 1)] = nil }
    }

    package func cost(_ i: Int, _ j: Int) -> StepCost {
        if let cached = costs.withLock({ $0[key(i, j)] }) { return cached }
        let cost = costModel.cost(from: versions[i], to: versions[j], diff: diff(i, j))
        costs.withLock { $0[key(i, j)] = cost }
        return cost
    }

    /// The declared custom stage from `i` to `j`, if any.
    package func stage(_ i: Int, _ j: Int) -> CustomStage? {
        stages.isEmpty ? nil : stages[key(i, j)]
    }

    /// The mapping model from `i` to `j`, if the plan has one.
    package func mapping(_ i: Int, _ j: Int) -> PlannedMapping? {
        mappings.isEmpty ? nil : mappings[key(i, j)]
    }

    /// A step the plan fixes, which a chain crosses as it is and never skips: a custom stage or a
    /// mapping model.
    package func isFixed(_ i: Int, _ j: Int) -> Bool { stage(i, j) != nil || mapping(i, j) != nil }

    /// The step from `i` to `j` if the runtime can perform it: a declared stage, or an inferable diff
    /// that loses nothing the versions in between would keep.
    package func step(_ i: Int, _ j: Int) -> Step? {
        step(i, j) { _ in preservesChain(i, j) }
    }

    /// ``step(_:_:)``, with the single steps from `trace`'s start followed once for all its skips: for a
    /// caller that asks for the skips from one version in increasing order of their ends (`instar graph`
    /// asks for up to `maxSkip` of them), each skip's check costs one comparison instead of a walk over
    /// the versions it skips. The same steps as ``step(_:_:)``.
    package func step(_ i: Int, _ j: Int, following trace: inout ChainTrace) -> Step? {
        guard trace.start == i, j >= trace.reached else { return step(i, j) }
        return step(i, j) { direct in
            trace.advance(to: j, in: self)
            return trace.preserves(direct) ?? preservesChain(i, j)
        }
    }

    /// ``step(_:_:)``, with `preserves` judging (from the direct diff) whether a skip keeps what the
    /// single steps keep.
    private func step(_ i: Int, _ j: Int, preserves: (ModelDiff) -> Bool) -> Step? {
        let d = diff(i, j)
        if let mapping = mapping(i, j) {
            return Step(
                from: versions[i].name, to: versions[j].name, kind: .mapping, diff: d, cost: cost(i, j), stage: stage(i, j),
                mapping: mapping)
        }
        if let stage = stage(i, j) {
            return Step(from: versions[i].name, to: versions[j].name, kind: .custom, diff: d, cost: cost(i, j), stage: stage)
        }
        guard d.isInferable else { return nil }
        // Versions of a bundle have no order: there is no "in between" to preserve.
        if plan.versionsAreOrdered && j > i + 1 && !preserves(d) { return nil }
        return Step(from: versions[i].name, to: versions[j].name, kind: .lightweight, diff: d, cost: cost(i, j))
    }

    /// A skip edge is only safe when it keeps every entity and property that the consecutive steps keep
    /// (and maps them to the same place): otherwise skipping would drop data that stepping preserves,
    /// for example a rename whose identifier is not carried into the later version.
    func preservesChain(_ i: Int, _ j: Int) -> Bool {
        let direct = diff(i, j)
        for mapping in direct.mappings {
            guard let source = mapping.source else { continue }
            // Follow the entity and each of its properties through the consecutive steps.
            var entity: String? = source
            var properties: [String: String] = [:]
            for property in mapping.properties {
                if let s = property.source { properties[s.name] = s.name }
            }
            for k in i..<j {
                guard let current = entity else { break }
                let step = diff(k, k + 1)
                entity = step.destination(ofEntity: current)
                properties = properties.compactMapValues { step.destination(ofProperty: $0, in: current) }
            }
            if entity != mapping.destination { return false }
            for property in mapping.properties {
                guard let s = property.source else { continue }
                if properties[s.name] != property.destination?.name { return false }
            }
        }
        return true
    }
}

extension VersionGraph {
    /// The step's warnings, less the probable renames that only skipping versions makes up.
    ///
    /// A step that skips versions (A → D) sees every removal and addition of the way at once, so an
    /// attribute removed in C → D and one of the same type added in A → B (the two side by side for
    /// every version in between) look like a rename there. Such a warning counts only when a
    /// consecutive step within the skip gives it as well (by the skip's starting names: a drop renamed
    /// earlier within the skip is then not suspected). `plan` and `test` both judge by this, so they
    /// agree. Versions of a bundle have nothing in between: every warning counts.
    public func confirmedWarnings(of step: Step) -> [Warning] {
        Self.confirmedWarnings(of: step, versions: versions, ordered: plan.versionsAreOrdered) { diff($0, $1) }
    }

    /// ``confirmedWarnings(of:)`` over `versions`, with `diff` giving the diff of two of them by index.
    package static func confirmedWarnings(
        of step: Step, versions: [Model], ordered: Bool, diff: (Int, Int) -> ModelDiff
    ) -> [Warning] {
        guard ordered, let i = versions.firstIndex(where: { $0.name == step.from }),
            let j = versions.firstIndex(where: { $0.name == step.to }), j > i + 1
        else { return step.diff.warnings }
        var within: [Warning]?
        return step.diff.warnings.filter { warning in
            guard warning.kind == .probableRename || warning.kind == .probableEntityRename else { return true }
            if within == nil { within = (i..<j).flatMap { diff($0, $0 + 1).warnings } }
            return within!.contains { $0.kind == warning.kind && $0.dropped == warning.dropped }
        }
    }
}
