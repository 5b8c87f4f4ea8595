import Foundation
import GRDB
@_spi(Layouts) import Instar
import Testing
import InstarTestSupport
import InstarRuntimeTestSupport

/// The run sizes its connection's page cache to the store (``Migrator/pageCacheLimit``): read from
/// inside the run, by a hook on the run's own connection.
@Suite struct PageCacheTests {
    /// A fixture whose store is about 6 MB (three labels of 2 MB), larger than SQLite's default cache.
    static func largeFixture() throws -> RuntimeFixture {
        let f = try RuntimeFixture(rows: 3, stage: "after: [native]", hooks: "  native: {swift: probe}\n")
        try f.execute(#"UPDATE "Item" SET "label" = hex(zeroblob(1000000))"#)
        return f
    }

    /// The `cache_size` the run's connection has while its hook runs, and the store's size before it.
    static func cacheDuringRun(limit: Int?, configuration: Configuration? = nil) throws -> (cacheSize: Int, storeBytes: Int) {
        let f = try largeFixture()
        defer { f.remove() }
        let storeBytes = try f.ints("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")[0]
        let migrator = try f.migrator()
        if let limit { migrator.pageCacheLimit = limit }
        let seen = Locked<Int?>(nil)
        migrator.register(hook: "probe") { context in
            try context.write { db in
                let size = try Int.fetchOne(db, sql: "PRAGMA cache_size")
                seen.withLock { $0 = size }
            }
        }
        #expect(try migrator.migrate(storeAt: f.store, configuration: configuration) == .finished(steps: 1))
        #expect(try f.ints(#"SELECT length("label") FROM "Item""#) == [2_000_000, 2_000_000, 2_000_000])
        return (try #require(seen.current), storeBytes)
    }

    @Test func theRunsCacheHoldsTheWholeStore() throws {
        let (cacheSize, storeBytes) = try Self.cacheDuringRun(limit: nil)
        #expect(storeBytes > 4_000_000)
        // Negative: KiB. The store and a quarter more for the tables a step builds beside it.
        #expect(cacheSize == -((storeBytes + storeBytes / 4) / 1024))
    }

    @Test func aStoreLargerThanTheLimitKeepsSQLitesDefault() throws {
        #expect(try Self.cacheDuringRun(limit: 1 << 20).cacheSize == -2000)
        #expect(try Self.cacheDuringRun(limit: 0).cacheSize == -2000)
    }

    /// A limit between the store's size and a quarter more caps the cache at the limit.
    @Test func theCacheNeverExceedsTheLimit() throws {
        let storeBytes = try Self.cacheDuringRun(limit: 0).storeBytes
        let limit = storeBytes + storeBytes / 8
        #expect(try Self.cacheDuringRun(limit: limit).cacheSize == -(limit / 1024))
    }

    /// An app whose own configuration gives its connections a larger cache keeps it for the run: the
    /// run only ever raises the cache.
    @Test func anAppsLargerCacheIsKept() throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -100000") }
        #expect(try Self.cacheDuringRun(limit: nil, configuration: configuration).cacheSize == -100000)
    }
}
