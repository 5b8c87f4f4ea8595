import Foundation
import GRDB
import InstarCompiler
import InstarInference
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore

/// Runs a chain step by step, hook by hook, batch by batch, each unit committed with its journal record.
///
/// Within a step, hooks are split around the step's transaction: SQL hooks right next to the schema
/// change (the `before` SQL hooks after the last non-SQL one, the `after` SQL hooks before the first
/// non-SQL one) run inside the step's transaction; every other hook commits on its own (batched SQL
/// and Swift hooks once per batch, with their checkpoint).
final class ChainExecutor {
    let plan: Plan
    let store: SQLiteStore
    let hooks: [String: RegisteredHook]
    /// Swift hooks of mapping steps, by name (they run inside the step's transaction).
    let mappingHooks: [String: MappingSwiftHook]
    let allowCommands: Bool
    /// Run consecutive steps without hooks between them as one fused transaction.
    let fuse: Bool
    /// Whether table rewrites are copied ahead in slices (``copyAhead(_:versions:hooks:reach:)``).
    let slicing: Slicing
    let stop: StopRequest
    let deadline: Deadline?
    let emit: (ProgressEvent) -> Void
    /// Every unit's commit: the transaction, the lease, the journal record, the failpoints.
    let committer: RunCommitter
    /// Whether the store had this run's journal when the call began (a resumed run).
    var resumedRun = false
    /// The step (or fused segment) running now, by its first step's label: its time goes into the
    /// record that moves the journal past it.
    var stepTiming: (label: String, start: Date)?
    /// Rows each step of the chain rewrites, by position: the planner's prices for a fresh run,
    /// counted on the store for the remaining steps of a resumed one (``estimatedRows(_:through:)``).
    var rowEstimates: [Int: Int] = [:]
    /// Whether the store has `auto_vacuum = INCREMENTAL`: the run gives back the pages it frees
    /// (``reclaimThenFinish(_:)``).
    var incrementalVacuum = false
    /// What this call measured of the machine and store as it went: it sizes the next slice.
    var rates = MeasuredRates()
    /// Whether a slice of a sliced copy is in flight (``rateAfterInterruptedSlice(_:)``).
    var sliceInFlight = false
    /// The target of the run this call resumed or started (nil before it read the journal, or when
    /// there was nothing to run): the caller reports `.finished` only when it is the target asked for.
    var runTarget: String?

    init(
        plan: Plan, store: SQLiteStore, hooks: [String: RegisteredHook], mappingHooks: [String: MappingSwiftHook] = [:],
        allowCommands: Bool, fuse: Bool = true, slicing: Slicing = .default, stop: StopRequest, deadline: Deadline?,
        lease: Lease = .mine(), emit: @escaping (ProgressEvent) -> Void
    ) {
        self.committer = RunCommitter(store: store, lease: lease)
        self.slicing = slicing
        self.fuse = fuse
        self.mappingHooks = mappingHooks
        self.plan = plan
        self.store = store
        self.hooks = hooks
        self.allowCommands = allowCommands
        self.stop = stop
        self.deadline = deadline
        self.emit = emit
    }

    // MARK: Run

    /// What a step of the chain is made of (its versions' hashes, its hooks, its mapping model): a
    /// resumed run refuses a step whose fingerprint changed since the journal recorded it.
    static func fingerprint(_ plan: Plan, from: String, to: String) -> String {
        let old = plan.versions.first { $0.name == from }?.versionHashes.versionChecksum ?? "?"
        let new = plan.versions.first { $0.name == to }?.versionHashes.versionChecksum ?? "?"
        let stage = plan.stages.first { $0.from == from && $0.to == to }
        let hooks = (stage?.before ?? []).map { "before \($0)=\(String(describing: plan.hooks[$0]))" }
            + (stage?.after ?? []).map { "after \($0)=\(String(describing: plan.hooks[$0]))" }
            + (plan.mapping(from: from, to: to).map { ["mapping \($0.model.name)"] } ?? [])
        return Fingerprint.of(([old, new] + hooks).joined(separator: "|"))
    }

    func run(start: () throws -> [Step]) throws -> MigrationResult {
        try committer.markRead()
        incrementalVacuum = try store.withDatabase(Self.readIncrementalVacuum)
        guard var entry = try resumeOrStart(start) else { return .finished(steps: 0) }
        runTarget = entry.target
        if let reason = pauseReason() { return .paused(reason) }
        // No commit of its own for the start: the first unit's transaction carries the lease claim and
        // the start record (a hook that commits on its own is preceded by them: ``recordStart(_:)``).
        let started = Date()
        do {
            while entry.step < entry.chain.count {
                if let reason = pauseReason() { return try pause(&entry, reason) }
                if let paused = try runUnit(&entry) { return paused }
            }
        } catch {
            return try recover(from: error, &entry)
        }
        if entry.status != .finished, let paused = try finish(&entry) { return paused }
        // At the target: the space the run retired goes back within the time left (``tidyUp()``).
        try tidyUp()
        emit(.finished(steps: entry.chain.count, seconds: Date().timeIntervalSince(started)))
        return .finished(steps: entry.chain.count)
    }

    /// The journal's unfinished run, checked against the plan as it is now, or a new run of the chain
    /// `start` finds (nil when it is empty). Nothing is written: the first unit's commit records it.
    private func resumeOrStart(_ start: () throws -> [Step]) throws -> JournalEntry? {
        var entry: JournalEntry
        if let existing = try store.withDatabase({ db in try Journal.unfinished(db) }) {
            entry = existing
            resumedRun = true
            for (index, record) in entry.chain.enumerated() where index >= entry.step {
                let now = Self.fingerprint(plan, from: record.from, to: record.to)
                if now != record.fingerprint {
                    throw ResumeRefused(path: store.path, reason: .stepChanged(index: index + 1, from: record.from, to: record.to))
                }
            }
            // A run left `running` was killed: count it like a failure, so a command hook that may have
            // been running is told it is resumed (at least once).
            if entry.status == .failed || entry.status == .running { entry.attempts += 1 }
            entry.status = .running
            entry.owner = committer.lease.owner
            emit(.started(run: entry.run, steps: entry.chain.count, resumedAt: Self.position(entry)))
            return entry
        }
        let steps = try start()
        guard let target = steps.last?.to else { return nil }
        for (index, step) in steps.enumerated() { rowEstimates[index] = step.cost.rowsRewritten }
        let now = Date()
        entry = JournalEntry(
            run: UUID().uuidString, plan: plan.name, planFile: plan.file, target: target,
            chain: steps.map {
                .init(from: $0.from, to: $0.to, kind: $0.kind.rawValue, fingerprint: Self.fingerprint(plan, from: $0.from, to: $0.to))
            }, step: 0, phase: .before, hook: 0, checkpoint: nil, attempts: 1, lastError: nil, startedAt: now,
            updatedAt: now, owner: committer.lease.owner, status: .running, timings: [:])
        emit(.started(run: entry.run, steps: steps.count, resumedAt: nil))
        return entry
    }

    /// Runs the unit of work at the journal's position (a step or a fused segment, with its hooks),
    /// reporting it as progress; returns a result when it paused.
    private func runUnit(_ entry: inout JournalEntry) throws -> MigrationResult? {
        let record = entry.chain[entry.step]
        let stepStart = Date()
        stepTiming = ("\(record.from) → \(record.to)", stepStart)
        // A transaction may carry several steps: the event names where it ends.
        let reach = entry.phase == .after ? entry.step : segmentEnd(from: entry.step, in: entry)
        emit(
            .stepStarted(
                index: entry.step, of: entry.chain.count, from: record.from, to: entry.chain[reach].to,
                kind: reach > entry.step ? .fused : ProgressEvent.StepKind(rawValue: record.kind) ?? .lightweight,
                estimatedRows: entry.phase == .after ? 0 : estimatedRows(entry, through: reach)))
        if let paused = try runStep(&entry) { return paused }
        // A step without hooks after it moved the journal on inside its own transaction (with its
        // timing); one with such hooks ends in the `after` phase, and moving on commits alone.
        let movedOn = entry.phase != .after
        emit(
            .stepFinished(
                index: movedOn ? entry.step - 1 : entry.step, of: entry.chain.count,
                seconds: Date().timeIntervalSince(stepStart)))
        if !movedOn {
            entry.timings["\(record.from) → \(record.to)", default: 0] += Date().timeIntervalSince(stepStart)
            entry = entry.nextStep()
            // Past the last step, moving on is the finish: one commit, not two.
            if entry.step < entry.chain.count {
                try commit(entry, .stepDone)
            } else if let paused = try finish(&entry, unit: .finishAfterHooks) {
                return paused
            }
        }
        return nil
    }

    /// What a failed unit leaves: a stop's interruption pauses at the journal's last committed position;
    /// contention before this call wrote anything is reported as such (nothing was written); a fresh run
    /// that committed nothing is thrown without a record (the store is untouched); any other failure
    /// is recorded in the journal and thrown.
    private func recover(from error: any Error, _ entry: inout JournalEntry) throws -> MigrationResult {
        // A stop interrupted the work in flight: it was rolled back, and the journal (reread, as
        // SQLite may have rolled back more than this call knows) says where the run is.
        if let reason = stop.requested, Self.isInterruption(error) {
            if let stored = try store.withDatabase({ db in try Journal.unfinished(db) }), stored.run == entry.run {
                entry = stored
            }
            if sliceInFlight, entry.slices != nil {
                entry.slices!.rowsPerSecond = Self.rateAfterInterruptedSlice(entry.slices!.rowsPerSecond)
            }
            return try pause(&entry, reason)
        }
        if error is LeaseError { throw error }  // another run owns the journal now
        if committer.claimPending, Self.isClaimContention(error) { throw error }  // nothing written: another writer has the store
        if committer.claimPending, let drift = error as? StoreError, drift.kind == .schemaDrift, try committer.storeChangedSinceRead() {
            throw Self.storeChanged(path: store.path)  // not drift: another run migrated it since this one read it
        }
        // A fresh run that committed nothing leaves the store exactly as it was: no journal, no lease,
        // no record of the attempt (the error itself says what failed; running again starts afresh).
        if committer.claimPending && !resumedRun {
            if var hook = error as? HookError {
                hook.storeUnchanged = true
                throw hook
            }
            throw error
        }
        entry.status = .failed
        entry.lastError = "\(error)"
        try? commit(entry, .failure, releasingLease: true)
        throw error
    }

    /// The finish as a commit of its own: the last step's hooks that commit on their own are done (its
    /// record moves past the step and ends the run), or the run resumed at the end. Not interrupted.
    /// Where the store gives free pages back, they go first (``reclaimThenFinish(_:)``); returns the
    /// pause when a stop comes before the end.
    private func finish(_ entry: inout JournalEntry, unit: CommitUnit = .finish) throws -> MigrationResult? {
        if incrementalVacuum, try store.withDatabase({ db in try Self.freePages(db) > 0 && store.retiredTables(db).isEmpty }) {
            return try reclaimThenFinish(&entry)
        }
        entry.status = .finished
        entry = try committer.commit(unit) { [entry] _ in entry }
        return nil
    }

    static func position(_ entry: JournalEntry) -> String {
        guard let record = entry.currentStep else { return "at the end" }
        var text = "step \(entry.step + 1)/\(entry.chain.count) (\(record.from) → \(record.to)), \(entry.phase.rawValue) phase"
        if entry.phase != .schema { text += ", hook \(entry.hook + 1)" }
        if let checkpoint = entry.checkpoint { text += " at checkpoint \(checkpoint)" }
        if let slices = entry.slices { text += ", \(slices.rowsCopied)/\(slices.rowsTotal) rows copied ahead" }
        return text
    }

    private func hooks(of record: JournalEntry.StepRecord) -> StageHooks {
        StageHooks(plan: plan, from: record.from, to: record.to)
    }

    /// The last step of the transaction starting at `first`: following steps join while only SQL hooks
    /// that run inside a transaction stand between them (the earlier step's `after` hooks and the
    /// later one's `before` hooks are all inline), so that the whole run commits at once and work can
    /// move across those hooks (``TransactionPlan``).
    private func segmentEnd(from first: Int, in entry: JournalEntry) -> Int {
        // A mapping step is a transaction of its own: one ends before it and the next starts after it.
        let mapping = Step.Kind.mapping.rawValue
        guard fuse, entry.chain[first].kind != mapping else { return first }
        var last = first
        while last + 1 < entry.chain.count, entry.chain[last + 1].kind != mapping {
            let current = hooks(of: entry.chain[last])
            let next = hooks(of: entry.chain[last + 1])
            guard StageHooks.canShareTransaction(current, next) else { break }
            last += 1
        }
        return last
    }

    /// The inline hooks of the transaction covering steps `first...last`, keyed by the position of the
    /// version at which they run (0 = the store's version before `first`).
    private func inlineHooks(first: Int, last: Int, in entry: JournalEntry, failures: HookFailures) -> [Int: [InlineHook]] {
        StageHooks.inlineHooks(of: entry.chain[first...last].map { ($0.from, $0.to) }, in: plan) { name, phase, label in
            inlineHook(name, phase: phase, label: label, failures: failures)
        }
    }

    private func model(_ name: String) throws -> Model {
        guard let model = plan.versions.first(where: { $0.name == name }) else {
            throw ResumeRefused(path: store.path, reason: .versionMissing(name))
        }
        return model
    }

    /// One step (or a fused run of steps) from wherever the journal says; returns a result when it paused.
    private func runStep(_ entry: inout JournalEntry) throws -> MigrationResult? {
        let record = entry.chain[entry.step]
        let stepHooks = hooks(of: record)
        let label = "\(record.from) → \(record.to)"

        if entry.phase == .before {
            if let paused = try runSeparate(stepHooks.beforeSeparate, phase: .before, label: label, entry: &entry) {
                return paused
            }
            // Not a commit of its own: a run killed here resumes past the last `before` hook (the
            // journal's hook index), exactly where the schema phase begins.
            entry = entry.entering(.schema)
        }
        if entry.phase == .schema, record.kind == Step.Kind.mapping.rawValue,
            let mapping = plan.mapping(from: record.from, to: record.to)
        {
            try runMappingStep(&entry, mapping: mapping)
            if entry.status == .finished { return nil }
            if let reason = pauseReason() { return try pause(&entry, reason) }
        }
        if entry.phase == .schema {
            // Steps with only inline SQL hooks between them run as one transaction, fused where exact.
            let last = segmentEnd(from: entry.step, in: entry)
            let versions = try [model(record.from)] + (entry.step...last).map { try model(entry.chain[$0].to) }
            let failures = HookFailures()
            let hooks = inlineHooks(first: entry.step, last: last, in: entry, failures: failures)
            // What an earlier transaction retired goes before this one copies, so that the extra
            // disk at the peak stays one transaction's; only the last one's waits until the finish.
            guard try tidyUp() else { return try pause(&entry, pauseReason() ?? .timeBudget) }
            let prefilled: [SlicedCopy]
            switch try copyAhead(&entry, versions: versions, hooks: hooks, reach: last) {
            case .copied(let copies): prefilled = copies
            case .paused(let result): return result
            }
            var next = recordAfterSchema(entry.entering(.after, atStep: last))
            next.updatedAt = Date()
            let snapshot = next
            try commitSchemaTransaction(&entry, next: snapshot, failures: failures) { beforeCommit, onStatement in
                try store.migrate(
                    through: versions, fuse: fuse, hooks: hooks, prefilled: prefilled, beforeCommit: beforeCommit,
                    onStatement: onStatement)
            }
            if entry.status == .finished { return nil }
            if let reason = pauseReason() { return try pause(&entry, reason) }
        }
        if entry.phase == .after {
            let current = entry.chain[entry.step]
            if let paused = try runSeparate(
                hooks(of: current).afterSeparate, phase: .after, label: "\(current.from) → \(current.to)", entry: &entry)
            {
                return paused
            }
        }
        return nil
    }
}

extension ChainExecutor {
    /// Rows the steps from the journal's position through `reach` rewrite (a fused segment sums its
    /// steps). Steps not priced by this run (a resumed one) are priced now on the store, which is at
    /// the current step's first version; a step that cannot be priced counts 0.
    func estimatedRows(_ entry: JournalEntry, through reach: Int) -> Int {
        // A sliced copy under way counted its rows when it started: counting a big table again would
        // spend much of a small launch's budget before its first slice.
        if let slices = entry.slices, entry.phase == .schema { return slices.rowsTotal }
        var rows = 0
        for index in entry.step...reach {
            if let known = rowEstimates[index] {
                rows += known
                continue
            }
            let record = entry.chain[index]
            guard let from = plan.versions.first(where: { $0.name == record.from }),
                let to = plan.versions.first(where: { $0.name == record.to }),
                let current = plan.versions.first(where: { $0.name == entry.chain[entry.step].from })
            else { continue }
            let counts = StoreRowCounts(store: store, model: current)
            let estimator = StepCostEstimator(layout: store.layout, rows: counts.rows(ofCanonical:))
            let estimate = estimator.cost(from: from, to: to, diff: ModelDiff(from: from, to: to)).rowsRewritten
            rowEstimates[index] = estimate
            rows += estimate
        }
        return rows
    }
}

/// Rates a call measures as it works, each sizing the next unit of its kind to fit the time left.
struct MeasuredRates {
    /// Rows per second deleting retired tables (``ChainExecutor/tidyUp()``).
    var retire: Double?
    /// Rows per second of this call's slices, which estimates a retired table's drop.
    var copy: Double?
    /// Free pages per second given back (``ChainExecutor/givePagesBack()``).
    var page: Double?
}
