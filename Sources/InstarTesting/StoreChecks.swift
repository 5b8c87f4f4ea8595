import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import InstarRuntime
@_spi(Layouts) import InstarLayouts

/// The checks on a migrated store that need no snapshot: its schema against a fresh store of the
/// target, SQLite's own integrity and foreign-key checks, and the journal.
enum StoreChecks {
    /// Creates a store at `target` beside the result, in the result's (adapted) layout, and compares
    /// the two schemas as version detection does (Core Data's stale indexes tolerated where the layout
    /// says so).
    static func schema(of result: SQLiteStore, target: Model, scratch: URL) -> MigrationCheck {
        let freshPath = scratch.appendingPathComponent("fresh-\(UUID().uuidString).sqlite").path
        defer { removeStore(at: freshPath) }
        do {
            let fresh = try SQLiteStore.create(at: freshPath, model: target, layout: result.layout)
            defer { try? fresh.close() }
            let differences = SchemaComparison.differences(
                expected: try fresh.schema(), actual: try result.schema(),
                ignoringExtraIndexes: result.layout.toleratesExtraIndexes,
                includingViewsAndTriggers: result.layout.schemaIncludesViewsAndTriggers)
            if differences.isEmpty {
                return MigrationCheck(.schema, .passed, "equals a store created at \(target.name)")
            }
            let listed = differences.prefix(5).map(\.description).joined(separator: "; ")
            return MigrationCheck(
                .schema, .failed,
                "differs from a store created at \(target.name) in \(differences.count) way(s): \(listed)")
        } catch {
            return MigrationCheck(.schema, .failed, "could not compare with a fresh store: \(error)")
        }
    }

    /// `PRAGMA integrity_check` and `PRAGMA foreign_key_check` on the whole store.
    static func integrity(of store: SQLiteStore) -> MigrationCheck {
        do {
            return try store.withDatabase { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                if integrity != ["ok"] {
                    return MigrationCheck(.integrity, .failed, "integrity_check: " + integrity.prefix(3).joined(separator: "; "))
                }
                if let violation = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") {
                    let table: String = violation[0]
                    let rowid = (violation[1] as DatabaseValue).description
                    let parent: String = violation[2]
                    return MigrationCheck(
                        .integrity, .failed, "foreign_key_check: \(table) row \(rowid) points to a missing \(parent) row")
                }
                return MigrationCheck(.integrity, .passed, "integrity_check ok, no foreign key violation")
            }
        } catch {
            return MigrationCheck(.integrity, .failed, "could not run the checks: \(error)")
        }
    }

    /// The run finished: the newest journal record says so, for the target. Layouts that remove their
    /// journal after a run (Core Data, plain SQL) must have no unfinished record instead.
    static func journal(of store: SQLiteStore, target: String) -> MigrationCheck {
        do {
            let (latest, unfinished) = try store.withDatabase { db in (try Journal.latest(db), try Journal.unfinished(db)) }
            if let unfinished {
                return MigrationCheck(
                    .journal, .failed, "an unfinished run is recorded (\(unfinished.status.rawValue) at \(unfinished.position))")
            }
            guard store.layout.keepsMigrationJournal else {
                return MigrationCheck(
                    .journal, .passed, "no unfinished run (the \(store.layout.name) layout keeps no journal after a finished run)")
            }
            guard let latest else {
                return MigrationCheck(.journal, .failed, "no journal record: the run left no trace that it finished")
            }
            guard latest.status == .finished, latest.target == target else {
                return MigrationCheck(
                    .journal, .failed, "the newest record is \(latest.status.rawValue), to \(latest.target) (expected finished, to \(target))")
            }
            return MigrationCheck(.journal, .passed, "finished, \(latest.chain.count) step(s) to \(target)")
        } catch {
            return MigrationCheck(.journal, .failed, "could not read the journal: \(error)")
        }
    }

    static func removeStore(at path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

/// The peak size of a store's files (database, `-wal`, `-journal`) during a run, sampled on a thread of
/// its own every few milliseconds and at each progress event.
final class DiskSampler: Sendable {
    private let path: String
    private let state: Locked<(peak: Int64, running: Bool)>

    init(path: String) {
        self.path = path
        state = Locked((peak: Self.size(of: path), running: true))
    }

    /// Database plus its `-wal` and `-journal` files (the `-shm` index is memory, not data).
    static func size(of path: String) -> Int64 {
        ["", "-wal", "-journal"].reduce(0) { total, suffix in
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + suffix)
            return total + ((attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }

    func start() {
        Thread { [self] in
            while state.withLock({ $0.running }) {
                sample()
                Thread.sleep(forTimeInterval: 0.002)
            }
        }.start()
    }

    func sample() {
        let size = Self.size(of: path)
        state.withLock { $0.peak = max($0.peak, size) }
    }

    /// Stops sampling and returns the peak.
    func stop() -> Int64 {
        sample()
        return state.withLock { state in
            state.running = false
            return state.peak
        }
    }
}
