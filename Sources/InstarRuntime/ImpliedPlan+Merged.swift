@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarPlanner
@_spi(Layouts) import InstarStore

extension ImpliedPlan {
    /// The plan for a store written through a model merged from several (an app whose container loads
    /// its model with `NSManagedObjectModel(byMerging:)`, e.g. its own model and a framework's).
    ///
    /// One version of each reference is found in the store; then each part moves to its target in
    /// turn (its bundle's current version, or `target` for the part that has that version), the other
    /// parts staying where they are; every version of the chain is the merge of the parts' versions at
    /// that point.
    ///
    /// - Throws: ``ModelError`` for a model that cannot be read or parts that do not merge,
    ///   ``StoreError`` for a store that cannot be read, ``ImpliedPlanError`` when the store is no
    ///   merge of the parts or the target is in none.
    package static func merged(models: [URL], store url: URL, target: String? = nil) throws -> ImpliedPlan {
        let groups: [[Model]] = try models.map { reference in
            isBundle(reference) ? try ModelBundle.read(xcdatamodeld: reference).versions : [try ModelLoader.load(reference.path)]
        }
        let currents: [String?] = try models.map { reference in
            isBundle(reference) ? try ModelBundle.read(xcdatamodeld: reference).currentVersionName : nil
        }
        if let target, !groups.joined().contains(where: { $0.name == target }) {
            throw ImpliedPlanError(.targetInNoGroup(target))
        }
        let store = try SQLiteStore.open(at: url.path, readOnly: true)
        defer { try? store.close() }
        guard let detection = try store.detectMergedVersion(groups: groups), detection.version != nil else {
            throw ImpliedPlanError(.notAMerge(store: url.path))
        }
        var positions = zip(groups, detection.mergedFrom).map { group, name in group.firstIndex { $0.name == name } ?? 0 }
        let goals = groups.enumerated().map { index, group in
            group.firstIndex { $0.name == target } ?? currents[index].flatMap { name in group.firstIndex { $0.name == name } }
                ?? group.count - 1
        }
        func merged() throws -> Model { try Model.merging(zip(groups, positions).map { $0[$1] }) }
        var versions = [try merged()]
        for part in groups.indices {
            while positions[part] != goals[part] {
                positions[part] += positions[part] < goals[part] ? 1 : -1
                versions.append(try merged())
            }
        }
        let plan = Plan(
            name: "merged model", file: models.map(\.path).joined(separator: " "), layout: store.layout.name,
            versions: versions, target: versions.last?.name)
        return ImpliedPlan(plan: plan, notes: [])
    }

    init(plan: Plan, notes: [Note]) {
        self.plan = plan
        self.notes = notes
    }
}

extension ImpliedPlan {
    /// The plan for migrating a store to one model: the store's version is found among `candidates`
    /// (a bundle stands for all its versions) and the chain goes to `target` as a bundle's would, with
    /// the journal, lease and progress of any plan.
    ///
    /// - Throws: ``ModelError`` for a model that cannot be read, ``ImpliedPlanError`` when a
    ///   candidate has the target's name but not its contents.
    package static func toModel(_ target: URL, from candidates: [URL], store: URL?) throws -> ImpliedPlan {
        let goal = try ModelLoader.load(target.path)
        var versions: [Model] = []
        for reference in candidates {
            let models = isBundle(reference) ? try ModelBundle.read(xcdatamodeld: reference).versions : [try ModelLoader.load(reference.path)]
            for model in models where !versions.contains(where: { $0.name == model.name }) {
                // The target among the candidates (a bundle holding it) is the target itself.
                if model.name == goal.name {
                    guard VersionHashes(model: model) == VersionHashes(model: goal) else {
                        throw ImpliedPlanError(.versionGivenTwice(model.name))
                    }
                    continue
                }
                versions.append(model)
            }
        }
        var notes: [Note] = []
        if let store, let own = storesOwnVersion(store: store, among: versions + [goal], notes: &notes) {
            versions.append(own)
        }
        var plan = Plan(
            name: goal.name, file: target.path, layout: layout(of: store, models: candidates + [target]), versions: versions + [goal],
            target: goal.name)
        plan.versionsAreOrdered = false
        for reference in candidates where isBundle(reference) {
            let matched = PlanMappings.match(
                PlanMappings.discover(near: reference.standardizedFileURL.deletingLastPathComponent()), versions: plan.versions)
            plan.mappings += matched.mappings
        }
        return ImpliedPlan(plan: plan, notes: notes)
    }
}

extension ImpliedPlan {
    /// The model a store keeps of itself, when its version is none of `versions`: the one Instar's
    /// layout records in its metadata, else Core Data's cached model (``cachedSourceVersion(store:versions:notes:)``).
    static func storesOwnVersion(store url: URL, among versions: [Model], notes: inout [Note]) -> Model? {
        guard FileManager.default.fileExists(atPath: url.path), let store = try? SQLiteStore.open(at: url.path, readOnly: true)
        else { return nil }
        let detected = try? store.detectVersion(among: versions).version
        try? store.close()
        if let detected, !versions.contains(where: { $0.name == detected.name }) { return detected }
        if detected != nil { return nil }
        return cachedSourceVersion(store: url, versions: versions, notes: &notes)
    }
}
