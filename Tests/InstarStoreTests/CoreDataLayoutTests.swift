import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport

/// The Core Data layout (`FORMAT.md` §1) in stores, on small hand-written models: constraints, bookkeeping,
/// `Z_METADATA` round trips, detection, and migrations that renumber entities (its naming without a
/// database: CoreDataNamingTests).
@Suite struct CoreDataLayoutTests {
    let layout = CoreDataLayout()

    /// A store of `yaml` in the Core Data layout, in a temporary folder.
    final class Fixture {
        let directory: URL
        let path: String
        let store: SQLiteStore

        init(_ model: Model, layout: CoreDataLayout = CoreDataLayout()) throws {
            directory = try temporaryDirectory()
            path = directory.appendingPathComponent("Store.sqlite").path
            store = try SQLiteStore.create(at: path, model: model, layout: layout)
        }

        deinit {
            try? store.close()
            try? FileManager.default.removeItem(at: directory)
        }

        func execute(_ sql: String, _ arguments: StatementArguments = []) throws {
            try store.withDatabase { db in try db.execute(sql: sql, arguments: arguments) }
        }

        func values(_ sql: String) throws -> [[DatabaseValue]] {
            try store.withDatabase { db in
                try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map { $0 } }
            }
        }

        func primaryKeyRows() throws -> [[DatabaseValue]] {
            try values("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        }

        /// Opens the store again from disk, as a command would (the layout is detected and adapted).
        func reopened() throws -> SQLiteStore {
            try store.close()
            return try SQLiteStore.open(at: path)
        }
    }

    // MARK: Indexes and constraints

    @Test func uniqueTableConstraintsAreCreatedAndReadBack() throws {
        let f = try Fixture(try model(CoreDataModels.indexedYAML), layout: CoreDataLayout(frameworkVersion: 637))
        let table = try #require(try f.store.schema().table(named: "ZBOOK"))
        #expect(Set(table.uniqueConstraints) == [["ZISBN"], ["ZTITLE", "ZEDITION"]])
        try f.execute("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZISBN) VALUES (1, 1, 1, 'x')")
        #expect(throws: DatabaseError.self) { try f.execute("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZISBN) VALUES (2, 1, 1, 'x')") }
        let detection = try f.reopened().detectVersion(among: [try model(CoreDataModels.indexedYAML)])
        #expect(detection.isExactMatch)
    }

    // MARK: Bookkeeping

    @Test func createdStoresHaveCoreDatasBookkeeping() throws {
        let m = try model(CoreDataModels.zooYAML)
        let f = try Fixture(m)
        let sql = try f.store.withDatabase { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE name LIKE 'Z\\_%' ESCAPE '\\' AND type = 'table' ORDER BY name")
        }
        #expect(
            sql == [
                "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
                "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
                "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            ])
        #expect(
            try f.primaryKeyRows() == [
                [.int(1), .text("Animal"), .int(0), .int(0)], [.int(2), .text("Bird"), .int(1), .int(0)],
                [.int(3), .text("Cage"), .int(0), .int(0)], [.int(4), .text("Keeper"), .int(0), .int(0)],
            ])
        #expect(layout.isBookkeepingTable("Z_PRIMARYKEY") && layout.isBookkeepingTable("_instar_journal"))
        #expect(!layout.isBookkeepingTable("ZANIMAL"))
        #expect(try f.store.schema().tables.map(\.name).sorted() == ["ZANIMAL", "ZCAGE", "ZKEEPER"])
        #expect(try f.store.withDatabase { db in try layout.recognizes(db) })
        #expect(try f.store.withDatabase { db in try !InstarLayout().recognizes(db) })
        #expect(try f.reopened().layout.name == "coredata")
    }

    @Test func metadataRecordsTheVersionAsCoreDataDoes() throws {
        let m = try model(CoreDataModels.zooYAML.replacingOccurrences(of: "entities:", with: "identifier: \"2.1\"\nentities:"))
        let f = try Fixture(m)
        let stored = try #require(try f.store.withDatabase { db in try CoreDataMetadata.read(db) })
        let hashes = VersionHashes(model: m)
        #expect(stored.entityHashes == hashes.entityHashes)
        #expect(stored.dictionary["NSStoreType"] as? String == "SQLite")
        #expect(stored.dictionary["NSStoreModelVersionHashesVersion"] as? Int == 3)
        #expect(stored.dictionary["NSStoreModelVersionIdentifiers"] as? [String] == ["2.1"])
        #expect(stored.dictionary["NSStoreModelVersionHashesDigest"] as? String == hashes.versionHashesDigest)
        #expect(stored.dictionary["NSStoreModelVersionChecksumKey"] as? String == hashes.versionChecksum)
        #expect(stored.dictionary["NSPersistenceFrameworkVersion"] as? Int == CoreDataLayout.defaultFrameworkVersion)
        #expect(stored.dictionary["_NSAutoVacuumLevel"] as? String == "2")
        #expect(stored.dictionary["NSStoreUUID"] == nil)  // Core Data keeps it in Z_UUID
        #expect(UUID(uuidString: stored.uuid ?? "") != nil)
        #expect(stored.apiMetadata["NSStoreUUID"] as? String == stored.uuid)
        let plist = try f.store.withDatabase { db in try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") }
        #expect(plist?.prefix(8) == Data("bplist00".utf8))
        let metadata = try #require(try f.store.metadata())
        #expect(metadata.layout == "coredata" && metadata.entityHashes == hashes.entityHashes)
        #expect(metadata.versionChecksum == hashes.versionChecksum)
    }

    @Test func rewritingMetadataKeepsTheAppsKeysAndTheStoreUUID() throws {
        let v1 = try model(CoreDataModels.zooYAML, name: "Zoo 1")
        let v2 = try model(CoreDataModels.zooYAML.replacingOccurrences(of: "attributes: {name: string?}", with: "attributes: {name: string?, age: int16?}"), name: "Zoo 2")
        let f = try Fixture(v1)
        let before = try #require(try f.store.withDatabase { db in try CoreDataMetadata.read(db) })
        var dictionary = before.dictionary
        dictionary["ZMLastAccessToken"] = Data([1, 2, 3])
        dictionary["PersistedClientId"] = "client-7"
        dictionary["NSPersistenceMaximumFrameworkVersion"] = 1500
        dictionary["nested"] = ["a": [1, 2], "b": "text"] as [String: Any]
        try f.execute("UPDATE Z_METADATA SET Z_PLIST = ?", [try CoreDataMetadata.encode(dictionary)])
        try f.execute("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (x'00')")
        try f.store.migrate(from: v1, to: v2)
        let after = try #require(try f.store.withDatabase { db in try CoreDataMetadata.read(db) })
        #expect(after.uuid == before.uuid)
        #expect(after.entityHashes == VersionHashes(model: v2).entityHashes)
        #expect(after.dictionary["ZMLastAccessToken"] as? Data == Data([1, 2, 3]))
        #expect(after.dictionary["PersistedClientId"] as? String == "client-7")
        #expect(after.dictionary["NSPersistenceMaximumFrameworkVersion"] as? Int == 1500)
        let nested = after.dictionary["nested"] as? [AnyHashable: Any]
        #expect(nested?["b"] as? String == "text")
        #expect((nested?["a"] as? [Any])?.compactMap { $0 as? Int } == [1, 2])
        // The cached row (not even a model) is replaced by Zoo 2's own model, in the step's transaction.
        #expect(try f.values("SELECT count(*) FROM Z_MODELCACHE") == [[.int(1)]])
        #expect(try f.store.cachedModel().hashConflicts(with: VersionHashes(model: v2).entityHashes) == [])
    }

    @Test(.needsCorpus) func realMetadataSurvivesARoundTrip() throws {
        let original = corpusRoot.appendingPathComponent("objcio__core-data/Migrations/MigrationsTests/Moody.moody")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("Moody.moody")
        try FileManager.default.copyItem(at: original, to: store)
        let queue = try DatabaseQueue(path: store.path)
        let stored = try #require(try queue.read { db in try CoreDataMetadata.read(db) })
        #expect(stored.dictionary["io.objc.Moody.CloudKitUserID"] != nil)  // an app's own key
        #expect(stored.entityHashes.count == 4)
        let again = try CoreDataMetadata.decode(try CoreDataMetadata.encode(stored.dictionary))
        #expect(Set(again.keys) == Set(stored.dictionary.keys))
        #expect(NSDictionary(dictionary: again).isEqual(to: stored.dictionary))
        #expect(stored.frameworkVersion == 637)
    }

    // MARK: Detection

    @Test func detectionUsesMetadataHashesThenTheSchema() throws {
        let v1 = try model(CoreDataModels.zooYAML, name: "Zoo 1")
        let v2 = try model(CoreDataModels.zooYAML + "\n  Zebra:\n    attributes: {stripes: int16?}\n", name: "Zoo 2")
        let f = try Fixture(v1)
        let byMetadata = try f.store.detectVersion(among: [v2, v1])
        #expect(byMetadata.layout == "coredata" && byMetadata.version?.name == "Zoo 1" && byMetadata.matchedBy == .metadata)
        // Without hashes in the metadata, the tables and columns decide.
        let stored = try #require(try f.store.withDatabase { db in try CoreDataMetadata.read(db) })
        var dictionary = stored.dictionary
        dictionary.removeValue(forKey: "NSStoreModelVersionHashes")
        try f.execute("UPDATE Z_METADATA SET Z_PLIST = ?", [try CoreDataMetadata.encode(dictionary)])
        let bySchema = try f.store.detectVersion(among: [v2, v1])
        #expect(bySchema.version?.name == "Zoo 1" && bySchema.matchedBy == .schema)
        // A stale index left by Core Data is not drift.
        try f.execute("CREATE INDEX Z_Keeper_old ON ZKEEPER (ZCAGE)")
        #expect(try f.store.detectVersion(among: [v1]).isExactMatch)
    }

    @Test func openingAStoreAdoptsItsFrameworkVersion() throws {
        let f = try Fixture(try model(CoreDataModels.indexedYAML), layout: CoreDataLayout(frameworkVersion: 637))
        let reopened = try f.reopened()
        #expect((reopened.layout as? CoreDataLayout)?.frameworkVersion == 637)
        #expect((Layouts.named("coredata:754") as? CoreDataLayout)?.frameworkVersion == 754)
        #expect((Layouts.named("coredata") as? CoreDataLayout)?.frameworkVersion == CoreDataLayout.defaultFrameworkVersion)
        #expect(Layouts.named("coredata:x") == nil)
    }

    // MARK: Migration

    let birdsV1 = """
        entities:
          Bird:
            attributes: {name: string?}
            relationships:
              nests: Nest[] inverse owner
              trees: Tree[] inverse birds
          Parrot:
            parent: Bird
            attributes: {words: int16?}
          Nest:
            attributes: {height: double?}
            relationships:
              owner: Bird? inverse nests
          Tree:
            attributes: {kind: string?}
            relationships:
              birds: Bird[] inverse trees
        """

    /// Bird 1, Parrot 2, Nest 3, Tree 4; rows with every kind of link.
    func filledBirds() throws -> Fixture {
        let f = try Fixture(try model(birdsV1, name: "Birds 1"))
        try f.execute("INSERT INTO ZBIRD (Z_PK, Z_ENT, Z_OPT, ZNAME, ZWORDS) VALUES (1, 1, 3, 'crow', NULL), (2, 2, 1, 'polly', 40)")
        try f.execute(
            "INSERT INTO ZNEST (Z_PK, Z_ENT, Z_OPT, ZHEIGHT, ZOWNER, Z1_OWNER) VALUES (1, 3, 1, 2.5, 1, 1), (2, 3, 1, 7.0, 2, 2), (3, 3, 1, NULL, NULL, NULL)"
        )
        try f.execute("INSERT INTO ZTREE (Z_PK, Z_ENT, Z_OPT, ZKIND) VALUES (5, 4, 1, 'oak')")
        try f.execute("INSERT INTO Z_1TREES (Z_1BIRDS, Z_4TREES) VALUES (1, 5), (2, 5)")
        try f.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 9 WHERE Z_NAME = 'Tree'")
        return f
    }

    @Test func addingAnEntityThatSortsFirstRenumbersEveryEntity() throws {
        let v1 = try model(birdsV1, name: "Birds 1")
        let v2 = try model(birdsV1 + "\n  Aviary:\n    attributes: {size: int32?}\n", name: "Birds 2")
        let f = try filledBirds()
        let outcome = try f.store.migrate(from: v1, to: v2)
        #expect(outcome.plan.rebuiltTables.contains("ZBIRD"))  // Z_ENT values change
        // Aviary 1, Bird 2, Parrot 3, Nest 4, Tree 5.
        #expect(try f.values("SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZWORDS FROM ZBIRD ORDER BY Z_PK") == [
            [.int(1), .int(2), .int(3), .text("crow"), .null], [.int(2), .int(3), .int(1), .text("polly"), .int(40)],
        ])
        // The entity column takes the new number of the destination entity in its name and its values.
        #expect(try f.values("SELECT Z_PK, Z_ENT, ZHEIGHT, ZOWNER, Z2_OWNER FROM ZNEST ORDER BY Z_PK") == [
            [.int(1), .int(4), .real(2.5), .int(1), .int(2)], [.int(2), .int(4), .real(7), .int(2), .int(3)],
            [.int(3), .int(4), .null, .null, .null],
        ])
        #expect(try f.values("SELECT Z_PK, Z_ENT, ZKIND FROM ZTREE") == [[.int(5), .int(5), .text("oak")]])
        // The join table takes the new numbers in its name and columns; links are kept.
        #expect(try f.values("SELECT Z_2BIRDS, Z_5TREES FROM Z_2TREES ORDER BY 1") == [[.int(1), .int(5)], [.int(2), .int(5)]])
        #expect(try f.store.schema().table(named: "Z_1TREES") == nil)
        #expect(
            try f.primaryKeyRows() == [
                [.int(1), .text("Aviary"), .int(0), .int(0)], [.int(2), .text("Bird"), .int(0), .int(2)],
                [.int(3), .text("Parrot"), .int(2), .int(0)], [.int(4), .text("Nest"), .int(0), .int(3)],
                [.int(5), .text("Tree"), .int(0), .int(9)],  // a higher Z_MAX is kept: keys are never reused
            ])
        let detection = try f.reopened().detectVersion(among: [v1, v2])
        #expect(detection.version?.name == "Birds 2" && detection.matchedBy == .metadata && detection.isExactMatch)
    }

    @Test func renamingAnEntityRenumbersAndRenamesItsTableAndJoinTable() throws {
        let v1 = try model(birdsV1, name: "Birds 1")
        let v2 = try model(
            birdsV1.replacingOccurrences(of: "  Tree:\n", with: "  Arbor:\n    renamedFrom: Tree\n")
                .replacingOccurrences(of: "Tree[]", with: "Arbor[]"), name: "Birds 2")
        let f = try filledBirds()
        try f.store.migrate(from: v1, to: v2)
        // Arbor 1, Bird 2, Parrot 3, Nest 4: the join table is now named from Arbor (sorts first).
        #expect(try f.values("SELECT Z_PK, Z_ENT, ZKIND FROM ZARBOR") == [[.int(5), .int(1), .text("oak")]])
        #expect(try f.values("SELECT Z_1TREES, Z_2BIRDS FROM Z_1BIRDS ORDER BY 2") == [[.int(5), .int(1)], [.int(5), .int(2)]])
        #expect(try f.values("SELECT ZOWNER, Z2_OWNER FROM ZNEST ORDER BY Z_PK") == [[.int(1), .int(2)], [.int(2), .int(3)], [.null, .null]])
        #expect(try f.primaryKeyRows().first == [.int(1), .text("Arbor"), .int(0), .int(9)])
    }

    @Test func aDestinationThatGainsSubEntitiesGetsTheEntityColumnFromTheRows() throws {
        let v1 = try model(
            """
            entities:
              Bird: {attributes: {name: string?}, relationships: {nests: "Nest[] inverse owner"}}
              Nest: {relationships: {owner: "Bird? inverse nests"}}
            """, name: "V1")
        let v2 = try model(
            """
            entities:
              Bird: {attributes: {name: string?}, relationships: {nests: "Nest[] inverse owner"}}
              Finch: {parent: Bird}
              Nest: {relationships: {owner: "Bird? inverse nests"}}
            """, name: "V2")
        let f = try Fixture(v1)
        try f.execute("INSERT INTO ZBIRD (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (4, 1, 1, 'crow')")
        try f.execute("INSERT INTO ZNEST (Z_PK, Z_ENT, Z_OPT, ZOWNER) VALUES (1, 2, 1, 4), (2, 2, 1, NULL)")
        try f.store.migrate(from: v1, to: v2)
        // Bird 1, Finch 2, Nest 3: Z1_OWNER is read from the row each key points to.
        #expect(try f.values("SELECT Z_PK, Z_ENT, ZOWNER, Z1_OWNER FROM ZNEST ORDER BY Z_PK") == [
            [.int(1), .int(3), .int(4), .int(1)], [.int(2), .int(3), .null, .null],
        ])
    }

    @Test func aStepThatKeepsTheNumbersAltersTablesInPlace() throws {
        let v1 = try model(birdsV1, name: "Birds 1")
        let v2 = try model(birdsV1.replacingOccurrences(of: "attributes: {height: double?}", with: "attributes: {height: double?, moss: bool?}"), name: "Birds 2")
        let f = try filledBirds()
        let outcome = try f.store.migrate(from: v1, to: v2)
        #expect(outcome.plan.rebuiltTables.isEmpty)
        #expect(outcome.plan.tables["ZNEST"] == .altered(["ADD COLUMN"]))
        #expect(try f.values("SELECT ZOWNER, Z1_OWNER, ZMOSS FROM ZNEST ORDER BY Z_PK") == [[.int(1), .int(1), .null], [.int(2), .int(2), .null], [.null, .null, .null]])
    }

    @Test func removingASubEntityUnlinksItsRowsAsCoreDatasDeleteWould() throws {
        let v1 = try model(birdsV1, name: "Birds 1")
        let v2 = try model(birdsV1.replacingOccurrences(of: "  Parrot:\n    parent: Bird\n    attributes: {words: int16?}\n", with: ""), name: "Birds 2")
        let f = try filledBirds()
        try f.store.migrate(from: v1, to: v2)
        // Bird 1, Nest 2, Tree 3; the parrot is gone, and so are the links to it.
        #expect(try f.values("SELECT Z_PK, Z_ENT FROM ZBIRD") == [[.int(1), .int(1)]])
        #expect(try f.values("SELECT Z_PK, ZOWNER FROM ZNEST ORDER BY Z_PK") == [[.int(1), .int(1)], [.int(2), .null], [.int(3), .null]])
        #expect(try f.values("SELECT Z_1BIRDS, Z_3TREES FROM Z_1TREES") == [[.int(1), .int(5)]])
    }

    @Test func aNewSubEntitysDefaultDoesNotLeakIntoOtherEntitiesRows() throws {
        let v1 = try model(birdsV1, name: "Birds 1")
        let v2 = try model(birdsV1 + "\n  Owl:\n    parent: Bird\n    attributes: {hoots: int16 = 3}\n", name: "Birds 2")
        let f = try filledBirds()
        try f.store.migrate(from: v1, to: v2)
        #expect(try f.values("SELECT ZHOOTS FROM ZBIRD ORDER BY Z_PK") == [[.null], [.null]])
    }

    @Test func entitiesLeavingAHierarchyKeepTheirRowsKeysAndHighestKey() throws {
        // Moody 3 → 4: the abstract GeographicRegion goes, Continent and Country get tables of their own.
        let v1 = try model(
            """
            entities:
              Region: {abstract: true, attributes: {code: int16?}}
              Continent: {parent: Region}
              Country: {parent: Region, attributes: {iso: string?}}
            """, name: "V1")
        let v2 = try model(
            """
            entities:
              Continent: {attributes: {code: int16?}}
              Country: {attributes: {code: int16?, iso: string?}}
            """, name: "V2")
        let f = try Fixture(v1)  // Region 1, Continent 2, Country 3
        try f.execute("INSERT INTO ZREGION (Z_PK, Z_ENT, Z_OPT, ZCODE, ZISO) VALUES (3, 2, 1, 150, NULL), (7, 3, 2, 276, 'DE')")
        try f.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 40 WHERE Z_NAME = 'Region'")
        try f.store.migrate(from: v1, to: v2)
        #expect(try f.values("SELECT Z_PK, Z_ENT, Z_OPT, ZCODE FROM ZCONTINENT") == [[.int(3), .int(1), .int(1), .int(150)]])
        #expect(try f.values("SELECT Z_PK, Z_ENT, Z_OPT, ZCODE, ZISO FROM ZCOUNTRY") == [[.int(7), .int(2), .int(2), .int(276), .text("DE")]])
        // Keys handed out by the older hierarchy are never reused.
        #expect(try f.primaryKeyRows() == [[.int(1), .text("Continent"), .int(0), .int(40)], [.int(2), .text("Country"), .int(0), .int(40)]])
    }

    @Test func binaryValuesTakeTheInlineTagWhenExternalStorageIsAllowed() throws {
        let v1 = try model("entities:\n  Photo:\n    attributes:\n      data: binary?\n", name: "V1")
        let v2 = try model("entities:\n  Photo:\n    attributes:\n      data: {type: binary, optional: true, externalStorage: true}\n", name: "V2")
        let f = try Fixture(v1)
        try f.execute("INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, ZDATA) VALUES (1, 1, 1, x'FFD800'), (2, 1, 1, NULL)")
        try f.store.migrate(from: v1, to: v2)
        // FORMAT.md §1.12: 0x01 then the bytes means "stored inline".
        #expect(try f.values("SELECT ZDATA FROM ZPHOTO ORDER BY Z_PK") == [[Data([0x01, 0xFF, 0xD8, 0x00]).databaseValue], [.null]])
    }

    static let reflexivePairYAML = """
        entities:
          Client:
            attributes: {label: string?}
            relationships:
              trusted: Client[] inverse trustedBy
              trustedBy: Client[] inverse trusted
        """

    @Test func aJoinTableWithinOneEntityIsReadUnderTheStoresNameAndMigratedToTheTargetsName() throws {
        // Core Data's choice of side varies (Wire: Z_24TRUSTEDCLIENTS in one store,
        // Z_24TRUSTEDBYCLIENTS in another); a store with the other name is not drift at its version,
        // and a migration writes the name Core Data gives the target version.
        let yaml = """
            entities:
              Client:
                attributes: {label: string?}
                relationships:
                  trusted: Client[] inverse trustedBy
                  trustedBy: Client[] inverse trusted
            """
        let v1 = try model(yaml, name: "V1")
        #expect(try layout.storageMap(for: v1).joinTables["Z_1TRUSTEDBY"] != nil)
        let f = try Fixture(v1)
        try f.execute("DROP TABLE Z_1TRUSTEDBY")
        try f.execute(
            "CREATE TABLE Z_1TRUSTED ( Z_1TRUSTEDBY INTEGER, Z_1TRUSTED INTEGER, PRIMARY KEY (Z_1TRUSTEDBY, Z_1TRUSTED) )")
        try f.execute("CREATE INDEX Z_1TRUSTED_Z_1TRUSTED_INDEX ON Z_1TRUSTED (Z_1TRUSTED, Z_1TRUSTEDBY)")
        try f.execute("INSERT INTO ZCLIENT (Z_PK, Z_ENT, Z_OPT) VALUES (1, 1, 1), (2, 1, 1)")
        try f.execute("INSERT INTO Z_1TRUSTED VALUES (1, 2)")
        let store = try f.reopened()
        #expect(try store.detectVersion(among: [v1]).isExactMatch)
        let v2 = try model(yaml.replacingOccurrences(of: "{label: string?}", with: "{label: string?, key: binary?}"), name: "V2")
        #expect(try layout.storageMap(for: v2).joinTables["Z_1TRUSTEDBY"] != nil)
        try store.migrate(from: v1, to: v2)
        let tables = try store.schema().tables.map(\.name)
        #expect(tables.contains("Z_1TRUSTEDBY") && !tables.contains("Z_1TRUSTED"))
        #expect(try store.withDatabase { db in try Row.fetchAll(db, sql: "SELECT Z_1TRUSTEDBY, Z_1TRUSTED FROM Z_1TRUSTEDBY").map { [$0[0] as Int64, $0[1] as Int64] } } == [[1, 2]])
        try store.close()
        let migrated = try SQLiteStore.open(at: f.path, readOnly: true)
        defer { try? migrated.close() }
        #expect(try migrated.detectVersion(among: [v1, v2]).version?.name == "V2")
        #expect(try migrated.detectVersion(among: [v2]).isExactMatch)
    }

    @Test func aJoinTableWithinOneEntityMayHoldItsKeyTheOtherWayRound() throws {
        // What Core Data's own migration leaves when it renames such a table to the other side's name
        // (`ALTER TABLE … RENAME`, so the name is quoted in sqlite_master): the columns, the key and
        // the index keep the old side's order. The pair is the same; not drift, and it migrates.
        let v1 = try model(Self.reflexivePairYAML, name: "V1")
        let f = try Fixture(v1)
        try f.execute("DROP TABLE Z_1TRUSTEDBY")
        try f.execute(
            "CREATE TABLE Z_1TRUSTED ( Z_1TRUSTEDBY INTEGER, Z_1TRUSTED INTEGER, PRIMARY KEY (Z_1TRUSTEDBY, Z_1TRUSTED) )")
        try f.execute("CREATE INDEX Z_1TRUSTED_Z_1TRUSTED_INDEX ON Z_1TRUSTED (Z_1TRUSTED, Z_1TRUSTEDBY)")
        try f.execute("ALTER TABLE Z_1TRUSTED RENAME TO Z_1TRUSTEDBY")
        try f.execute("INSERT INTO ZCLIENT (Z_PK, Z_ENT, Z_OPT) VALUES (1, 1, 1), (2, 1, 1), (3, 1, 1)")
        try f.execute("INSERT INTO Z_1TRUSTEDBY (Z_1TRUSTEDBY, Z_1TRUSTED) VALUES (1, 2), (3, 2)")
        let store = try f.reopened()
        let detection = try store.detectVersion(among: [v1])
        #expect(detection.isExactMatch, "\(detection)")
        // A key that differs otherwise is still drift.
        let v2 = try model(Self.reflexivePairYAML.replacingOccurrences(of: "{label: string?}", with: "{label: string?, key: binary?}"), name: "V2")
        try store.migrate(from: v1, to: v2)
        #expect(try store.withDatabase { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_1TRUSTEDBY WHERE Z_1TRUSTED = 2") } == 2)
        try store.close()
        let migrated = try SQLiteStore.open(at: f.path, readOnly: true)
        defer { try? migrated.close() }
        #expect(try migrated.detectVersion(among: [v2]).isExactMatch)
    }

    @Test func aMigrationRenamesAJoinTableWithinOneEntityWhenTheTargetsWalkMeetsTheOtherSideFirst() throws {
        // Core Data's walk over an entity's keys (CoreDataKeyOrder) depends on all of its property
        // names, so adding an attribute can make the other side of the pair name the table (Wire's
        // UserClient pairs between model versions). Find such an attribute, then migrate across it.
        let v1 = try model(Self.reflexivePairYAML, name: "V1")
        #expect(try layout.storageMap(for: v1).joinTables["Z_1TRUSTEDBY"] != nil)
        var flipping: Model?
        // One added attribute of many names, then growing numbers of them (the tables resize).
        let additions = (0..<200).map { ["extra\($0)"] } + (2..<40).map { k in (0..<k).map { "x\($0)" } }
        for names in additions where flipping == nil {
            let attributes = names.map { "\($0): string?" }.joined(separator: ", ")
            let candidate = try model(
                Self.reflexivePairYAML.replacingOccurrences(of: "{label: string?}", with: "{label: string?, \(attributes)}"),
                name: "V2")
            if try layout.storageMap(for: candidate).joinTables["Z_1TRUSTED"] != nil { flipping = candidate }
        }
        guard let v2 = flipping else {
            Issue.record("no added attributes make the other side name the join table")
            return
        }
        let f = try Fixture(v1)
        try f.execute("INSERT INTO ZCLIENT (Z_PK, Z_ENT, Z_OPT) VALUES (1, 1, 1), (2, 1, 1)")
        try f.execute("INSERT INTO Z_1TRUSTEDBY (Z_1TRUSTEDBY, Z_1TRUSTED) VALUES (1, 2)")
        try f.store.migrate(from: v1, to: v2)
        let tables = try f.store.schema().tables.map(\.name)
        #expect(tables.contains("Z_1TRUSTED") && !tables.contains("Z_1TRUSTEDBY"))
        #expect(try f.values("SELECT Z_1TRUSTEDBY, Z_1TRUSTED FROM Z_1TRUSTED") == [[1.databaseValue, 2.databaseValue]])
        #expect(try f.store.detectVersion(among: [v2]).isExactMatch)
    }

}
