import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport

/// Core Data has named the same index differently across framework versions (`docs/coredata-layout.md`,
/// "Index names"): an index's name carries no data, so a store whose index has another name for the
/// same table, columns, order and uniqueness is not drift, and a migration writes the target's name.
@Suite struct IndexNamingTests {
    typealias Fixture = CoreDataLayoutTests.Fixture

    let v1YAML = """
        entities:
          Conversation:
            indexes:
              normalized: [normalizedName]
            attributes:
              normalizedName: string?
              topic: string?
        """

    /// A framework-640 store of `v1YAML` whose fetch index carries the name the real store had
    /// (`<T>_<COL>_INDEX`), where Instar's rule for 640 says `<T>_<COL>`.
    func storeWithOlderName(columns: String = "ZNORMALIZEDNAME") throws -> Fixture {
        let f = try Fixture(try model(v1YAML, name: "V1"), layout: CoreDataLayout(frameworkVersion: 640))
        try f.execute("DROP INDEX ZCONVERSATION_ZNORMALIZEDNAME")
        try f.execute("CREATE INDEX ZCONVERSATION_ZNORMALIZEDNAME_INDEX ON ZCONVERSATION (\(columns))")
        try f.execute("INSERT INTO ZCONVERSATION (Z_PK, Z_ENT, Z_OPT, ZNORMALIZEDNAME, ZTOPIC) VALUES (1, 1, 1, 'ann', 'x')")
        return f
    }

    func indexNames(_ f: Fixture) throws -> [String] {
        try f.values("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZCONVERSATION' ORDER BY name")
            .compactMap { String.fromDatabaseValue($0[0]) }
    }

    @Test func anotherNameForTheSameIndexIsNotDrift() throws {
        let f = try storeWithOlderName()
        let detection = try f.reopened().detectVersion(among: [try model(v1YAML, name: "V1")])
        #expect(detection.version?.name == "V1" && detection.isExactMatch)
    }

    @Test func aMigrationWritesTheTargetsNameAndKeepsTheRows() throws {
        let v1 = try model(v1YAML, name: "V1")
        let v2 = try model(v1YAML + "\n      muted: bool?\n", name: "V2")
        let f = try storeWithOlderName()
        let store = try f.reopened()
        defer { try? store.close() }
        try store.migrate(from: v1, to: v2)
        let names = try store.withDatabase { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZCONVERSATION' ORDER BY name")
        }
        #expect(names == ["ZCONVERSATION_ZNORMALIZEDNAME"])
        #expect(try store.withDatabase { db in try String.fetchAll(db, sql: "SELECT ZNORMALIZEDNAME FROM ZCONVERSATION") } == ["ann"])
    }

    @Test func anIndexOverOtherColumnsIsStillDrift() throws {
        let v1 = try model(v1YAML, name: "V1")
        let v2 = try model(v1YAML + "\n      muted: bool?\n", name: "V2")
        let f = try storeWithOlderName(columns: "ZNORMALIZEDNAME, ZTOPIC")
        let store = try f.reopened()
        defer { try? store.close() }
        let before = try Data(contentsOf: URL(fileURLWithPath: f.path))
        #expect {
            try store.migrate(from: v1, to: v2)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .schemaDrift && error.drift.contains { $0.index == "ZCONVERSATION_ZNORMALIZEDNAME" }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.path)) == before)
    }

    @Test func twoIndexesOfOneShapeNeedTwoIndexesInTheStore() {
        // LoopKit's framework-1048 store keeps `Z_PumpEvent_date` and `Z_PumpEvent_byDateIndex`, both on
        // (ZDATE): each expected index takes its own store index.
        let date = SchemaIndex(name: "Z_PumpEvent_date", table: "ZPUMPEVENT", columns: ["ZDATE"])
        let byDate = SchemaIndex(name: "Z_PumpEvent_byDateIndex", table: "ZPUMPEVENT", columns: ["ZDATE"])
        let table = SchemaTable(name: "ZPUMPEVENT", columns: [SchemaColumn(name: "ZDATE", declaredType: "TIMESTAMP")])
        let expected = StoreSchema(tables: [table], indexes: [date, byDate])
        var renamed = byDate
        renamed.name = "ZPUMPEVENT_ZDATE_INDEX"
        let one = SchemaComparison.differences(
            expected: expected, actual: StoreSchema(tables: [table], indexes: [renamed]), ignoringExtraIndexes: true)
        #expect(one.map(\.kind) == [.missingIndex])
        let both = SchemaComparison.differences(
            expected: expected, actual: StoreSchema(tables: [table], indexes: [date, renamed]), ignoringExtraIndexes: true)
        #expect(both.isEmpty)
    }
}

/// Real stores by path: each keeps the naming of the framework that wrote it, and Instar, adapted to
/// that framework, must accept the store with either naming.
@Suite struct IndexNamingCorpusTests {
    @Test(.needsCorpus) func aMoodyStoreWithItsIndexesRenamedIsStillItsVersion() throws {
        // Moody 1 (framework 637) names `ZMOOD_ZREMOTEIDENTIFIER_INDEX` and the compound
        // `ZMOOD_ZMARKEDFORREMOTEDELETION_ZMARKEDFORDELETIONDATE_ZDATE`; renamed as framework 800+ would.
        let corpus = corpusRoot.appendingPathComponent("objcio__core-data/Migrations")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Moody.moody").path
        try FileManager.default.copyItem(atPath: corpus.appendingPathComponent("MigrationsTests/Moody.moody").path, toPath: path)
        let bundle = try ModelBundle.read(xcdatamodeld: corpus.appendingPathComponent("Migrations/Moody.xcdatamodeld"))
        let moody1 = try #require(bundle.version(named: "Moody"))
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            for (old, new) in [
                ("ZMOOD_ZREMOTEIDENTIFIER_INDEX", "Z_Mood_remoteIdentifier"),
                ("ZMOOD_ZMARKEDFORREMOTEDELETION_ZMARKEDFORDELETIONDATE_ZDATE", "Z_Mood_compound"),
            ] {
                let sql = try #require(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [old]))
                try db.execute(sql: "DROP INDEX \(old)")
                try db.execute(sql: sql.replacingOccurrences(of: old, with: new))
            }
        }
        try queue.close()
        let store = try SQLiteStore.open(at: path, readOnly: true)
        defer { try? store.close() }
        #expect((store.layout as? CoreDataLayout)?.frameworkVersion == 637)
        let detection = try store.detectVersion(among: [moody1])
        #expect(detection.version?.name == "Moody" && detection.isExactMatch)
    }
}
