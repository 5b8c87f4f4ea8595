import Foundation
import GRDB
@_spi(Layouts) import Instar
import Testing
import InstarTestSupport
import InstarRuntimeTestSupport

/// A launch prices its chain by counting the rows of the tables a step rewrites. It decides on a new
/// connection and the executor prices the chain again as it starts; on a large store each pricing is
/// most of what a launch does before its first write. On one connection, while the store is as it was,
/// a table is counted once, and the run's connection takes the counts of the read-only look before it
/// when nothing was committed in between.
@Suite struct LaunchCountingTests {
    /// Every statement each connection of a run executed outside a transaction, by connection.
    final class Recorder: @unchecked Sendable {
        private let statements = Locked<[Int: [String]]>([:])
        private let connections = Locked(0)

        var configuration: Configuration {
            var configuration = Configuration()
            configuration.prepareDatabase { [self] db in
                let connection = connections.withLock { n in
                    n += 1
                    return n
                }
                db.trace(options: .statement) { [self, unowned db] event in
                    guard case .statement(let statement) = event, !db.isInsideTransaction else { return }
                    statements.withLock { $0[connection, default: []].append(statement.sql) }
                }
            }
            return configuration
        }

        /// The row counts of `table` each connection read outside a transaction.
        func counts(of table: String) -> [Int] {
            statements.withLock { byConnection in
                byConnection.keys.sorted().map { connection in
                    byConnection[connection]!.filter { $0.hasPrefix("SELECT count(*) FROM \"\(table)\"") }.count
                }
            }
        }
    }

    @Test func aRunCountsATableOnce() throws {
        // `label` becomes required: `Item` is rebuilt, so pricing the step counts it.
        let f = try RuntimeFixture(rows: 5, v2Label: "string = none", stage: "before: []", hooks: "  {}\n")
        defer { f.remove() }
        let recorder = Recorder()
        #expect(try f.migrator().migrate(storeAt: f.store, configuration: recorder.configuration) == .finished(steps: 1))
        let counts = recorder.counts(of: "Item")
        #expect(counts.count >= 2, "a read-only look, then the run's own connection")
        #expect(counts.reduce(0, +) == 1, "the look's count is the run's while nothing was committed: \(counts)")
        #expect(try f.ints(#"SELECT count(*) FROM "Item" WHERE "label" = 'none'"#) == [5])
    }
}
