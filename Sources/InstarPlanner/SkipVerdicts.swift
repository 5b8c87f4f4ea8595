import InstarInference
@_spi(Layouts) import InstarModel

/// Whether the skips of an ordered plan are steps, judged one entity pair at a time and each pair
/// once: what `instar graph` asks of up to `maxSkip` skips from every version.
///
/// ``VersionGraph/step(_:_:following:)`` diffs the two whole versions of every skip it is asked for;
/// a long history's graph asked for 64 of them per version, and each diffed every entity although
/// most entities of a skip are declared as they were in the skips before it. Here each version's
/// entities get revision numbers (an entity keeps its number while each version declares it as the
/// one before did), and an entity pair's verdict is kept under the two revisions and those of the
/// entities its relationships lead to, on both sides: everything ``EntityMatching`` lets a pair's
/// verdict depend on. A skip is a step when every shared entity's verdict is inferable and the
/// single steps take every entity and property where the skip does (``ChainTrace``), as
/// ``VersionGraph/step(_:_:)`` decides.
///
/// Skips between versions that ``EntityMatching`` does not accept (a hierarchy, an entity renamed)
/// get no verdict here: the caller asks the graph. Meant for one caller walking the versions in
/// increasing order (verdicts kept for an entity are dropped once the walk leaves its revision).
package final class SkipVerdicts {
    private struct PairKey: Hashable {
        var source: Int
        var destination: Int
        /// The revisions of the entities the pair's relationships lead to, older then newer side, in
        /// the order of their names; -1 where a side has no such entity.
        var destinations: [Int]
    }

    private let graph: VersionGraph
    /// `revisions[k][name]`: the revision of the entity `name` that version `k` declares.
    private let revisions: [[String: Int]]
    private let hasHierarchy: [Bool]
    private let matchesByName: [Bool]
    /// Kept verdicts, by entity name and pair.
    private var verdicts: [String: [PairKey: EntityPairVerdict]] = [:]
    private var walkedFrom = -1

    /// How many pair verdicts were computed rather than reused: the tests check reuse with it.
    package private(set) var computedVerdicts = 0

    /// Verdicts over `graph`'s versions; the revisions are numbered now, one comparison per entity
    /// and version.
    package init(graph: VersionGraph) {
        self.graph = graph
        var revisions: [[String: Int]] = []
        revisions.reserveCapacity(graph.versions.count)
        var next = 0
        for (k, model) in graph.versions.enumerated() {
            var current: [String: Int] = [:]
            current.reserveCapacity(model.entities.count)
            for entity in model.entities {
                if k > 0, let revision = revisions[k - 1][entity.name],
                    graph.versions[k - 1].entity(named: entity.name) == entity
                {
                    current[entity.name] = revision
                } else {
                    current[entity.name] = next
                    next += 1
                }
            }
            revisions.append(current)
        }
        self.revisions = revisions
        self.hasHierarchy = graph.versions.map(EntityMatching.hasHierarchy)
        self.matchesByName = graph.versions.map(EntityMatching.matchesByName)
    }

    /// Whether the skip from version `i` to version `j` is a lightweight step, as
    /// ``VersionGraph/step(_:_:)`` would say for a skip without a stage or mapping model; nil when
    /// its versions cannot be judged pair by pair. `trace` must start at `i` and not be past `j`.
    package func isStep(_ i: Int, _ j: Int, following trace: inout ChainTrace) -> Bool? {
        guard graph.plan.versionsAreOrdered, j > i + 1, !graph.isFixed(i, j), trace.start == i, j >= trace.reached,
            !hasHierarchy[i], !hasHierarchy[j]
        else { return nil }
        let old = graph.versions[i], new = graph.versions[j]
        var matching: EntityMatching?
        if !(matchesByName[i] && matchesByName[j]) {
            // Renaming identifiers: only the matcher can say whether the names still pair.
            guard let exact = EntityMatching(from: old, to: new) else { return nil }
            matching = exact
        }
        walk(from: i)
        trace.advance(to: j, in: graph)
        for entity in old.entities {
            let name = entity.name
            guard let after = new.entity(named: name), let revision = revisions[j][name] else {
                // Removed: inferable; kept only if the single steps drop it too.
                guard let kept = trace.keeps(entity: name, as: nil, propertyDestinations: [:], keepsEveryPropertyName: false)
                else { return nil }
                if !kept { return false }
                continue
            }
            let key = PairKey(
                source: revisions[i][name]!, destination: revision, destinations: destinationRevisions(entity, after, i, j))
            let verdict: EntityPairVerdict
            if let known = verdicts[name]?[key] {
                verdict = known
            } else {
                if matching == nil { matching = EntityMatching(from: old, to: new) }
                guard let matching else { return nil }
                verdict = matching.verdict(onEntity: name)
                verdicts[name, default: [:]][key] = verdict
                computedVerdicts += 1
            }
            if !verdict.isInferable { return false }
            guard
                let kept = trace.keeps(
                    entity: name, as: name, propertyDestinations: verdict.propertyDestinations,
                    keepsEveryPropertyName: verdict.keepsEveryPropertyName)
            else { return nil }
            if !kept { return false }
        }
        // Entities only the newer version has are added: always inferable, nothing to keep.
        return true
    }

    /// The revisions, in versions `i` and `j`, of the entities that the relationships of `before`
    /// (in `i`) and `after` (in `j`) lead to.
    private func destinationRevisions(_ before: Entity, _ after: Entity, _ i: Int, _ j: Int) -> [Int] {
        if before.relationships.isEmpty && after.relationships.isEmpty { return [] }
        let names = Set(before.relationships.map(\.destination)).union(after.relationships.map(\.destination)).sorted()
        var result: [Int] = []
        result.reserveCapacity(names.count * 2)
        for name in names {
            result.append(revisions[i][name] ?? -1)
            result.append(revisions[j][name] ?? -1)
        }
        return result
    }

    /// Starts judging skips from version `i`: verdicts on revisions that `i` no longer declares are
    /// never asked for again (a revision, once replaced, does not come back) and are dropped.
    private func walk(from i: Int) {
        guard i != walkedFrom else { return }
        walkedFrom = i
        for (name, kept) in verdicts {
            let current = revisions[i][name]
            let live = kept.filter { $0.key.source == current }
            verdicts[name] = live.isEmpty ? nil : live
        }
    }
}
