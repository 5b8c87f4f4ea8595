@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts
import Foundation
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore
import InstarRuntime

extension MigrationTester {
    /// Snapshots the store, migrates it through the real chain (timed, its disk sampled), then checks it.
    /// `seeded` is the version a seeded store was created at: the run is reported under it even when
    /// the store is detected as another version with identical hashes (a store cannot tell them apart,
    /// and the run says so), so that no two runs are reported under one name.
    func migrateAndCheck(
        path: String, source: String, folder: URL, options: MigrationTestOptions, seeded: Model? = nil
    ) -> MigrationTestRun {
        let snapshot = folder.appendingPathComponent("before.sqlite").path
        let current: Model
        let chain: Chain
        // The store's version, when it is known but no chain leads from it: a failed run names it
        // ("?" only for a store that matches no version).
        var detected: String?
        do {
            let store = try SQLiteStore.open(at: path, layout: try migrator.layout, readOnly: true)
            defer { try? store.close() }
            let found = try migrator.currentVersion(of: store).0
            detected = found.name
            (current, chain, _) = try migrator.chain(for: store, to: nil, from: found)
            try store.backup(to: snapshot)
        } catch {
            return failedRun(
                source: source, from: seeded?.name ?? detected ?? "?",
                "no chain to the target: " + Self.message(error, path: path, source: source))
        }
        let detectedAs = seeded.flatMap { $0.name == current.name ? nil : current.name }
        let target = plan.targetVersion ?? current.name
        var run = MigrationTestRun(
            source: source, fromVersion: seeded?.name ?? current.name, steps: chain.steps.map(Self.label), rowsBefore: [:], rowsAfter: [:],
            checks: [], seconds: 0, extraBytes: 0, bytesBefore: DiskSampler.size(of: path), bytesAfter: 0)
        let sampler = DiskSampler(path: path)
        sampler.start()
        let started = Date()
        var migration = MigrationCheck(.migration, .passed, "ran \(chain.steps.count) step(s): " + chain.steps.map(describe).joined(separator: ", "))
        if let detectedAs, let seeded {
            migration.notes.append(
                "a store of \(seeded.name) is detected as \(detectedAs): their entity hashes are identical and no version identifier tells them apart, so it is migrated from \(detectedAs)")
        }
        do {
            if case .paused(let reason) = try migrator.migrate(storeAt: path, progress: { _ in sampler.sample() }) {
                migration = MigrationCheck(.migration, .failed, "paused: \(reason)")
            }
        } catch let error as HookError {
            migration = MigrationCheck(.migration, .failed, "failed: " + Self.message(error, path: path, source: source), step: error.step)
            migration.hook = error.hook
        } catch {
            migration = MigrationCheck(
                .migration, .failed, "failed: " + Self.message(error, path: path, source: source), step: failingStep(path))
        }
        run.seconds = Date().timeIntervalSince(started)
        run.extraBytes = max(0, sampler.stop() - run.bytesBefore)
        run.bytesAfter = DiskSampler.size(of: path)
        run.checks.append(migration)
        if migration.status == .failed, let store = try? SQLiteStore.open(at: snapshot, layout: try migrator.layout, readOnly: true) {
            run.rowsBefore = (try? RowComparison.counts(of: store, model: current)) ?? [:]
            try? store.close()
        }
        if migration.status == .passed, let targetModel = version(named: target) {
            run.checks += check(
                path: path, snapshot: snapshot, from: current, to: targetModel, chain: chain, folder: folder,
                accepted: options.acceptedDrops, run: &run)
        }
        if !run.passed, let keep = options.keep { run.keptAt = Self.keep(path: path, snapshot: snapshot, in: keep, name: source, from: current.name) }
        return run
    }

    /// An error's text with the temporary copy's path replaced by the name the report gives the store.
    static func message(_ error: any Error, path: String, source: String) -> String {
        String(describing: error).replacingOccurrences(of: path, with: source == "seeded" ? "the seeded store" : source)
    }

    /// The step the journal was at when the run failed, if it says.
    private func failingStep(_ path: String) -> String? {
        guard let store = try? SQLiteStore.open(at: path, layout: try migrator.layout, readOnly: true) else { return nil }
        defer { try? store.close() }
        guard let entry = (try? store.withDatabase { db in try Journal.latest(db) }) ?? nil, let step = entry.currentStep
        else { return nil }
        return "\(step.from) → \(step.to)"
    }

    /// Every check on the migrated store at `path`, against the `snapshot` taken before the run.
    private func check(
        path: String, snapshot: String, from current: Model, to target: Model, chain: Chain, folder: URL,
        accepted: Set<String>, run: inout MigrationTestRun
    ) -> [MigrationCheck] {
        let result: SQLiteStore
        let before: SQLiteStore
        do {
            result = try SQLiteStore.open(at: path, layout: try migrator.layout)
            before = try SQLiteStore.open(at: snapshot, layout: try migrator.layout, readOnly: true)
        } catch {
            return [MigrationCheck(.schema, .failed, "could not open the migrated store: \(error)")]
        }
        defer {
            try? result.close()
            try? before.close()
        }
        var checks = [StoreChecks.schema(of: result, target: target, scratch: folder)]
        let correspondence = RowCorrespondence(source: current, steps: chain.steps, versions: plan.versions, ordered: plan.versionsAreOrdered)
        do {
            let comparison = RowComparison(
                before: .init(store: before, model: current, map: try before.layout.storageMap(for: current)),
                after: .init(store: result, model: target, map: try result.layout.storageMap(for: target)),
                correspondence: correspondence)
            let outcome = try comparison.run()
            run.rowsBefore = outcome.rowsBefore
            run.rowsAfter = outcome.rowsAfter
            var findings: [StepFinding]?
            if !outcome.missing.isEmpty || !outcome.changed.isEmpty {
                findings = try? replay(snapshot: snapshot, chain: chain, folder: folder)
            }
            checks += judge(outcome, findings: findings, chain: chain)
            checks.append(try drops(correspondence, comparison: comparison, notes: outcome.notes, accepted: accepted))
        } catch {
            checks.append(MigrationCheck(.rows, .failed, "could not compare the rows: \(error)"))
        }
        checks.append(StoreChecks.integrity(of: result))
        checks.append(
            chain.steps.isEmpty
                ? MigrationCheck(.journal, .skipped, "the store is at the target already: nothing ran")
                : StoreChecks.journal(of: result, target: target.name))
        return checks
    }

    /// The drops check: a drop the step's diff calls a probable rename, of data that is there, fails.
    private func drops(
        _ correspondence: RowCorrespondence, comparison: RowComparison, notes: [String], accepted: Set<String>
    ) throws -> MigrationCheck {
        var dropped: [String] = notes.filter { $0.contains(": dropped by step") }
        for (entity, path) in correspondence.entities.sorted(by: { $0.key < $1.key }) {
            for (property, step) in path.droppedProperties.sorted(by: { $0.key < $1.key }) {
                dropped.append("\(entity).\(property): dropped by step \(step), as its diff says")
            }
        }
        for suspect in correspondence.suspectDrops {
            let count = try comparison.nonNullCount(entity: suspect.entity, property: suspect.property)
            guard count > 0 else { continue }
            let subject = suspect.property.map { "\(count) value(s) of \(suspect.entity).\($0)" } ?? "\(count) row(s) of \(suspect.entity)"
            let sourceName = suspect.property.map { "\(suspect.entity).\($0)" } ?? suspect.entity
            if accepted.contains(sourceName) || accepted.contains(suspect.stepName) {
                dropped.append("\(suspect.stepName): accepted drop of \(subject) in step \(suspect.step) (the diff calls it a probable rename)")
                continue
            }
            var check = MigrationCheck(
                .drops, .failed, "step \(suspect.step) drops \(subject): \(suspect.message)", step: suspect.step, notes: dropped)
            check.count = count
            check.probableRename = suspect.rename
            return check
        }
        return MigrationCheck(.drops, .passed, "only what the steps' diffs drop is dropped (\(dropped.count) drop(s))", notes: dropped)
    }

    /// Copies the failing run's stores to `keep/<name>-<version>/` (before.sqlite, after.sqlite).
    static func keep(path: String, snapshot: String, in keep: String, name: String, from: String) -> String? {
        let safe = "\(name)-\(from)".map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }
        let folder = URL(fileURLWithPath: keep).appendingPathComponent(String(safe))
        try? FileManager.default.removeItem(at: folder)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: snapshot, toPath: folder.appendingPathComponent("before.sqlite").path)
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: folder.appendingPathComponent("after.sqlite" + suffix).path)
            }
            return folder.path
        } catch {
            return nil
        }
    }
}
