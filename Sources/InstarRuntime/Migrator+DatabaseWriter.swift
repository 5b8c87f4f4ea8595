import Foundation
import GRDB
@_spi(Layouts) import InstarStore

extension Migrator {
    /// Runs (or resumes) the migration of the database behind an app's GRDB `DatabaseQueue` or
    /// `DatabasePool`, while nothing else of the app touches it.
    ///
    /// The migration runs on a connection of its own to the same file, configured as the writer's
    /// connections are (its `prepareDatabase` runs first), inside the writer's barrier: the app's
    /// writes wait, and a pool's reads finish first and wait too, so no part of the app ever sees a
    /// half-migrated schema. When it returns, the app's connections see the new schema (GRDB notices
    /// the schema change and clears its caches). Everything else is as in
    /// ``migrate(store:to:timeBudget:wait:backup:stop:configuration:progress:)``.
    ///
    /// Hooks must use the ``HookContext``'s connection, not `writer`: the writer is held by the barrier
    /// for the whole run, and a hook that waits for it waits forever.
    ///
    /// - Throws: ``StoreError`` with kind `.notFound` for an in-memory or temporary database (there is
    ///   no file to migrate), and the errors of the synchronous `migrate(storeAt:…)`. A task cancelled
    ///   before the barrier is reached returns `.paused(.cancelled)` with nothing written.
    @discardableResult
    public func migrate(
        database writer: some DatabaseWriter, to target: String? = nil, timeBudget: Duration? = nil,
        wait: Duration = .zero, backup: URL? = nil, stop: StopRequest = StopRequest(),
        progress: (@Sendable (ProgressEvent) -> Void)? = nil
    ) async throws -> MigrationResult {
        let path = writer.path
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file::memory:"), FileManager.default.fileExists(atPath: path)
        else {
            hub.finishAll()
            throw StoreError(
                .notFound, path: path.isEmpty ? "<temporary database>" : path, reason: .inMemoryDatabase)
        }
        let seconds = timeBudget.map(Self.seconds)
        let configuration = writer.configuration
        do {
            return try await withTaskCancellationHandler {
                try await writer.barrierWriteWithoutTransaction { db in
                    // The app's connection is idle here and stays so: the run uses its own connection.
                    let result = try self.migrate(
                        storeAt: path, to: target, timeBudget: seconds, wait: Self.seconds(wait), backup: backup?.path,
                        stop: stop, configuration: configuration, progress: progress)
                    db.clearSchemaCache()
                    return result
                }
            } onCancel: {
                stop.request(.cancelled)
            }
        } catch is CancellationError {
            hub.finishAll()  // the run never started: its streams end here
            return .paused(stop.requested ?? .cancelled)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
