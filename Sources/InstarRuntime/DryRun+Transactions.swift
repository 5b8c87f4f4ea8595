import Foundation
import GRDB
import InstarInference
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts
import InstarCompiler

/// The transactions `migrate` will run, as the dry run reports them.
extension DryRun {
    /// The transactions of the chain that cover two steps or more, planned as `migrate` will run them
    /// (``TransactionPlan``), with their SQL.
    static func fusedSegments(
        chain: Chain, plan: Plan, layout: any StoreLayout, actual: StoreSchema?, freedPagesZeroed: Bool
    ) throws -> [DryRunReport.Segment] {
        var segments: [DryRunReport.Segment] = []
        let stageHooks = chain.steps.map { StageHooks(plan: plan, from: $0.from, to: $0.to) }
        var start = 0
        var schema = actual
        while start < chain.steps.count {
            var end = start
            // A mapping step is always a transaction of its own.
            while end + 1 < chain.steps.count, chain.steps[end].kind != .mapping, chain.steps[end + 1].kind != .mapping,
                StageHooks.canShareTransaction(stageHooks[end], stageHooks[end + 1])
            {
                end += 1
            }
            defer { start = end + 1 }
            let names = [chain.steps[start].from] + chain.steps[start...end].map(\.to)
            let versions = names.compactMap { name in plan.versions.first { $0.name == name } }
            guard versions.count == names.count else { continue }
            // A transaction of one step is reported with its step; the next one starts from the layout's
            // schema of the version it reaches.
            guard end > start else {
                schema = nil
                continue
            }
            let hooks = StageHooks.inlineHooks(of: chain.steps[start...end].map { ($0.from, $0.to) }, in: plan) { name, _, _ in
                InlineHook(name: name, statements: StageHooks.statements(of: name, in: plan))
            }
            let transaction = try TransactionPlan.make(versions: versions, hooks: hooks, layout: layout, fuse: true)
            var current = try schema ?? layout.storageMap(for: versions[0]).schema
            current.freedPagesZeroed = freedPagesZeroed
            var sql: [String] = []
            var rebuilt: [String: Int] = [:]
            for part in transaction.parts {
                switch part {
                case .steps(let unit):
                    let planned = StepSQLPlanner.plan(unit.program, actual: current, viewsAndTriggers: [])
                    sql += planned.statements.map(\.description)
                    for table in planned.rebuiltTables { rebuilt[table, default: 0] += 1 }
                    current = unit.program.targetSchema
                    current.freedPagesZeroed = freedPagesZeroed
                case .hooks(let hooks, _, let access):
                    for hook in hooks {
                        sql.append("-- hook \(hook.name)" + (access.opaqueReason.map { " (nothing moves across it: \($0))" } ?? ""))
                    }
                }
            }
            schema = current
            segments.append(
                DryRunReport.Segment(
                    from: names.first!, to: names.last!, steps: end - start + 1, sql: sql,
                    tablesRebuilt: rebuilt.keys.sorted().map { rebuilt[$0]! > 1 ? "\($0) (\(rebuilt[$0]!) times)" : $0 },
                    moved: transaction.moves.map { move in
                        let what = move.work.tables.map { "rebuild of \($0) (fused with the steps after it)" }
                            + move.work.indexes.map { "index \($0)" }
                        return "after hook \(move.hooks.joined(separator: ", ")) at \(versions[move.position].name): "
                            + what.joined(separator: "; ")
                    },
                    notFused: transaction.refusals.map { "at \(versions[$0.position].name): \($0.reason)" }))
        }
        return segments
    }
}
