import GRDB
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore

extension DryRun {
    /// A synthesized decomposition for each gap of a missing chain. When the store is at a gap's
    /// source version, each risk that can be counted is counted there (read-only).
    static func proposals(for noChain: NoChain, plan: Plan, layout: any StoreLayout, store: SQLiteStore?, current: Model)
        -> [Decomposition]
    {
        let decomposer = Decomposer(layout: layout)
        return noChain.gaps.compactMap { gap -> Decomposition? in
            guard let a = plan.versions.first(where: { $0.name == gap.from }),
                let b = plan.versions.first(where: { $0.name == gap.to })
            else { return nil }
            var proposal = decomposer.decompose(from: a, to: b)
            if let store, current.name == gap.from {
                for index in proposal.risks.indices {
                    guard let sql = proposal.risks[index].countSQL else { continue }
                    proposal.risks[index].count = try? store.withDatabase { db in try Int.fetchOne(db, sql: sql) }
                }
            }
            return proposal
        }
    }
}
