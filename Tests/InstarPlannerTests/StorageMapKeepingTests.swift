import InstarInference
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarPlanner
import Testing
import InstarTestSupport

/// Issue 41: pricing a long history keeps the storage maps of the versions around the steps being priced,
/// not every version's (they held most of `instar plan`'s memory), and prices nothing differently for it.
@Suite struct StorageMapKeepingTests {
    /// Version `i` of one entity: odd versions have an `extra` attribute, even ones drop it again, so every
    /// other step rewrites the table (SQLite rewrites it to drop a column) and its price comes from the maps.
    func alternating(_ count: Int) throws -> [Model] {
        try (1...count).map { i in
            try model(
                "name: V\(i)\nentities:\n  E:\n    attributes:\n      title: string?\n" + (i % 2 == 1 ? "      extra: int64?\n" : ""),
                name: "V\(i)")
        }
    }

    /// The cheapest chain through `count` alternating versions, searched in `layout`.
    func search(_ count: Int, layout: any StorageLayout) throws -> (versions: [Model], estimator: StepCostEstimator, graph: VersionGraph) {
        let versions = try alternating(count)
        let estimator = StepCostEstimator(layout: layout, nominalRows: 1000)
        let graph = VersionGraph(plan: Plan(name: "p", file: "p.yaml", versions: versions), costModel: estimator)
        #expect(try ChainFinder(graph: graph).cheapestChain(from: "V1", to: "V\(count)").steps.last?.to == "V\(count)")
        return (versions, estimator, graph)
    }

    @Test func aSearchOverALongHistoryKeepsBoundedMapsAndTheSamePrices() throws {
        let count = 3 * StepCostEstimator.storageMapsKeptAtMost
        let layout = InstarLayout()
        let (versions, estimator, graph) = try search(count, layout: layout)
        #expect(estimator.storageMapsKept > 0)
        #expect(estimator.storageMapsKept <= StepCostEstimator.storageMapsKeptAtMost)

        // Every single step is priced as an estimator that never dropped a map prices it, the first ones
        // (whose maps were dropped long ago) again by the same estimator too.
        func fresh(_ k: Int) -> StepCost {
            StepCostEstimator(layout: layout, nominalRows: 1000).cost(
                from: versions[k], to: versions[k + 1], diff: ModelDiff(from: versions[k], to: versions[k + 1]))
        }
        for k in 0..<(count - 1) {
            #expect(graph.cost(k, k + 1) == fresh(k), "V\(k + 1) → V\(k + 2)")
        }
        for k in 0..<4 {
            let again = estimator.cost(from: versions[k], to: versions[k + 1], diff: graph.diff(k, k + 1))
            #expect(again == fresh(k))
        }
        // The prices do come from the maps: dropping `extra` rewrites the table, adding it does not.
        #expect(fresh(0).rowsRewritten == 1000)
        #expect(fresh(1).rowsRewritten == 0)
        #expect(estimator.storageMapsKept <= StepCostEstimator.storageMapsKeptAtMost)
    }

    /// The Core Data layout keeps each model's map in the model, for the callers that ask for one
    /// version's map again and again (`instar test`); the planner's pricing is not one of them, so a
    /// search keeps no map in any model, and prices as the kept maps do.
    @Test func theCoreDataLayoutKeepsNoMapInTheModelsASearchPrices() throws {
        let count = 2 * StepCostEstimator.storageMapsKeptAtMost
        let layout = CoreDataLayout()
        let (versions, _, graph) = try search(count, layout: layout)
        let kept = versions.filter { version in
            let map: StorageMap? = version.derivedIfKept("coredata.storageMap:\(layout.frameworkVersion)")
            return map != nil
        }.count
        #expect(kept == 0, "maps kept in \(kept) of \(count) models")

        // A map the model does keep is the one the planner uses, and equal to one built afresh.
        let kept0 = try layout.storageMap(for: versions[0])
        let again0 = try layout.storageMapNotKept(for: versions[0])
        #expect(again0.schema == kept0.schema && again0.entities == kept0.entities)
        let built1 = try layout.storageMapNotKept(for: versions[1])
        let kept1 = try CoreDataLayout().storageMap(for: try alternating(2)[1])
        #expect(built1.schema == kept1.schema && built1.entities == kept1.entities)
        #expect(graph.cost(0, 1).rowsRewritten == 1000 && graph.cost(1, 2).rowsRewritten == 0)
    }
}
