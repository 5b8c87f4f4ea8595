import Foundation
import GRDB
import InstarPlanner
@_spi(Layouts) import InstarStore

/// Mapping steps: one transaction each, never fused with their neighbours, journaled like any step.
extension ChainExecutor {
    /// Runs the mapping step at the journal's position; its journal record commits with it.
    func runMappingStep(_ entry: inout JournalEntry, mapping: PlannedMapping) throws {
        let record = entry.chain[entry.step]
        let label = "\(record.from) → \(record.to)"
        guard let from = plan.versions.first(where: { $0.name == record.from }),
            let to = plan.versions.first(where: { $0.name == record.to })
        else {
            throw ResumeRefused(
                path: store.path, reason: .versionMissing(plan.index(of: record.from) == nil ? record.from : record.to))
        }
        let program = try store.compileMapping(mapping.model, from: from, to: to)
        let resolver = MappingHookResolver(plan: plan, swift: mappingHooks, stop: stop)
        let missing = resolver.missing(in: program)
        if !missing.isEmpty {
            throw HookError(missing: missing.map { MissingHook(hook: $0.requirement.name, step: label, reason: .mapping($0.requirement, $0.gap)) })
        }
        var next = recordAfterSchema(entry.entering(.after))
        next.updatedAt = Date()
        let snapshot = next
        let failures = HookFailures()
        let stageHooks = StageHooks(plan: plan, from: record.from, to: record.to)
        func inline(_ names: [String], _ phase: HookPhase) -> ((Database) throws -> Void)? {
            names.isEmpty ? nil : { db in
                for name in names { try self.inlineHook(name, phase: phase, label: label, failures: failures).run?(db) }
            }
        }
        try commitSchemaTransaction(&entry, next: snapshot, failures: failures) { beforeCommit, onStatement in
            try store.runMapping(
                program,
                hooks: { hook, db in
                    do {
                        try resolver.run(hook, db: db, step: label)
                        self.emit(.hook(name: hook.name, done: 1, total: 1))
                    } catch let error as HookError {
                        failures.first = failures.first ?? error
                        throw error
                    }
                },
                before: inline(stageHooks.beforeInside, .before), after: inline(stageHooks.afterInside, .after),
                beforeCommit: beforeCommit, onStatement: onStatement)
        }
    }
}
