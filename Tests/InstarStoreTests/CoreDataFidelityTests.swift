import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport

/// Issue 11: what a real app's models and stores need beyond the layout's naming rules — Xcode's
/// leniency, version identity among hash-identical versions, merged models, and progressive migration
/// straight from a bundle.
@Suite struct CoreDataFidelityTests {
    /// Two entities whose inverses do not name each other: Xcode compiles this and Core Data runs it.
    static let nonMutualInverses = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
            <entity name="Artist" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="thumbnail" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Thumbnail" inverseName="thumbnail" inverseEntity="Thumbnail"/>
            </entity>
            <entity name="Thumbnail" syncable="YES">
                <relationship name="artist" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Artist" inverseName="thumbnail" inverseEntity="Artist"/>
                <relationship name="thumbnail" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Artist" inverseName="artist" inverseEntity="Artist"/>
            </entity>
        </model>
        """

    @Test func xcodeModelsWithNonMutualInversesAreReadWithWarnings() throws {
        let model = try XcodeModelReader.parse(data: Data(Self.nonMutualInverses.utf8), name: "Music", file: "Music.xcdatamodel/contents")
        #expect(model.entities.map(\.name) == ["Artist", "Thumbnail"])
        let warning = try #require(model.warnings.first { $0.kind == .inverseMismatch })
        #expect(warning.severity == .warning)
        #expect(warning.location?.file == "Music.xcdatamodel/contents", "\(warning)")
        #expect(warning.location?.line != nil)
        // Still stored as Core Data stores it: each to-one has its key column.
        let map = try CoreDataLayout().storageMap(for: model)
        let thumbnails = try #require(map.schema.table(named: "ZTHUMBNAIL")).columns.map(\.name)
        #expect(thumbnails.contains("ZARTIST") && thumbnails.contains("ZTHUMBNAIL"))
    }

    @Test func instarFilesStayStrictAboutInverses() throws {
        let yaml = """
            name: M
            entities:
              A:
                relationships:
                  b: B? inverse x
              B:
                relationships:
                  x: A? inverse other
                  other: A? inverse x
            """
        do {
            _ = try model(yaml)
            Issue.record("a non-mutual inverse was accepted in an Instar model file")
        } catch {
            #expect(error.problems.contains { $0.kind == .inverseMismatch && $0.severity == .error })
        }
    }

    @Test func xcodeStillRefusesWhatMakesAModelMeaningless() throws {
        let xml = Self.nonMutualInverses.replacingOccurrences(of: "destinationEntity=\"Thumbnail\"", with: "destinationEntity=\"Nowhere\"")
        #expect(throws: ModelError.self) {
            try XcodeModelReader.parse(data: Data(xml.utf8), name: "Music", file: "Music.xcdatamodel/contents")
        }
    }

    // MARK: Join tables

    /// Two pairs give the user side's join column the same name (`users` from Reaction and from
    /// SystemMessage, as in the Wire app), plus a reflexive pair. The expected names come from a second,
    /// independent implementation of the rule in docs/coredata-layout.md, not from this code.
    static let chat = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
            <entity name="Message" syncable="YES">
                <attribute name="text" optional="YES" attributeType="String"/>
            </entity>
            <entity name="SystemMessage" parentEntity="Message" syncable="YES">
                <relationship name="users" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="systemMessages" inverseEntity="User"/>
                <relationship name="addedUsers" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="showingUserAdded" inverseEntity="User"/>
            </entity>
            <entity name="Reaction" syncable="YES">
                <attribute name="unicodeValue" optional="YES" attributeType="String"/>
                <relationship name="users" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="reactions" inverseEntity="Reaction"/>
            </entity>
            <entity name="User" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="reactions" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Reaction" inverseName="users" inverseEntity="Reaction"/>
                <relationship name="systemMessages" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="SystemMessage" inverseName="users" inverseEntity="SystemMessage"/>
                <relationship name="showingUserAdded" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="SystemMessage" inverseName="addedUsers" inverseEntity="SystemMessage"/>
                <relationship name="trustedClients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="trustedByClients" inverseEntity="User"/>
                <relationship name="trustedByClients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="trustedClients" inverseEntity="User"/>
            </entity>
        </model>
        """

    @Test func collidingJoinColumnsAndReflexivePairsFollowCoreDatasWalk() throws {
        let chat = try XcodeModelReader.parse(data: Data(Self.chat.utf8), name: "Chat", file: "Chat.xcdatamodel/contents")
        let schema = try CoreDataLayout().storageMap(for: chat).schema
        func columns(_ table: String) -> [String]? { schema.table(named: table)?.columns.map(\.name) }
        #expect(columns("Z_3USERS") == ["Z_3REACTIONS", "Z_4USERS"])
        #expect(columns("Z_2USERS") == ["Z_2SYSTEMMESSAGES", "Z_4USERS1"])
        #expect(columns("Z_2ADDEDUSERS") == ["Z_2SHOWINGUSERADDED", "Z_4ADDEDUSERS"])
        #expect(columns("Z_4TRUSTEDBYCLIENTS") == ["Z_4TRUSTEDCLIENTS", "Z_4TRUSTEDBYCLIENTS"])
        #expect(schema.table(named: "Z_4TRUSTEDCLIENTS") == nil)
    }

    @Test func theWalkOrderIsAHashTableSlotOrderNotNameOrder() {
        // Deterministic: the same keys in the same order give the same slots, whatever else runs.
        let keys = ["_ent", "_pk", "_opt", "name", "reactions", "systemMessages", "trustedClients", "trustedByClients"]
        let first = CoreDataKeyOrder.tiger(CoreDataKeyOrder.leopard(keys))
        #expect(first == CoreDataKeyOrder.tiger(CoreDataKeyOrder.leopard(keys)))
        #expect(Set(first) == Set(keys))
        #expect(first != keys.sorted())
        // A name longer than 23 units is hashed from its first 8 and last 16 units by the second table.
        let long = "abcdefgh" + String(repeating: "x", count: 20) + "0123456789abcdef"
        let other = "abcdefgh" + String(repeating: "y", count: 20) + "0123456789abcdef"
        #expect(CoreDataKeyOrder.stringHash(long, truncateLong: true) == CoreDataKeyOrder.stringHash(other, truncateLong: true))
        #expect(CoreDataKeyOrder.stringHash(long, truncateLong: false) != CoreDataKeyOrder.stringHash(other, truncateLong: false))
    }

    /// CareKit 2.1's tag pairs with five entities: the store Core Data wrote is the evidence.
    @Test(.needsCorpus)
    func careKitJoinTablesAreExactlyTheStores() throws {
        let base = corpusRoot.appendingPathComponent("carekit-apple__CareKit/CareKitStore")
        let bundle = try ModelBundle.read(
            xcdatamodeld: base.appendingPathComponent("CareKitStore/CoreData/CareKitStore.xcdatamodeld"))
        let version = try #require(bundle.version(named: "CareKitStore2.1"))
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("SampleStore2.1.sqlite").path
        let source = base.appendingPathComponent("CareKitStoreTests/CoreDataSchema/Migrations/SampleStore2.1.sqlite").path
        for suffix in ["", "-wal", "-shm"] { try FileManager.default.copyItem(atPath: source + suffix, toPath: path + suffix) }
        let real = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*'")
        }
        let expected = try CoreDataLayout().storageMap(for: version).schema.tables.filter { $0.name.hasPrefix("Z_") && $0.name.dropFirst(2).first?.isNumber == true }
        #expect(expected.count == real.count)
        for table in expected {
            let line = try #require(real.first { $0.contains("TABLE \(table.name) (") }, "no \(table.name) in the store")
            for column in table.columns { #expect(line.contains(" \(column.name) INTEGER"), "\(table.name).\(column.name)") }
        }
    }

    // MARK: Version identity

    static func version(_ name: String, identifier: String, defaultValue: String) throws -> Model {
        // The default value is not hashed: both versions have the same entity hashes.
        try model(
            """
            name: \(name)
            identifier: "\(identifier)"
            entities:
              Note:
                attributes:
                  title: string? = \(defaultValue)
            """, name: name)
    }

    @Test func storedIdentifiersBreakTiesBetweenHashIdenticalVersions() throws {
        let first = try Self.version("Notes", identifier: "1", defaultValue: "a")
        let second = try Self.version("Notes 2", identifier: "2", defaultValue: "b")
        #expect(VersionHashes(model: first).entityHashes == VersionHashes(model: second).entityHashes)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Notes.sqlite").path
        let store = try SQLiteStore.create(at: path, model: second, layout: CoreDataLayout())
        defer { try? store.close() }

        let detection = try store.detectVersion(among: [first, second])
        #expect(detection.version?.name == "Notes 2")
        #expect(detection.matchedBy == .metadataAndIdentifiers)
        #expect(detection.identifierConflict == nil)

        // Without a version carrying the recorded identifier, the earliest wins and the tie is said.
        let third = try Self.version("Notes 3", identifier: "3", defaultValue: "c")
        let tied = try store.detectVersion(among: [first, third])
        #expect(tied.version?.name == "Notes")
        #expect(tied.matchedBy == .metadata)
        #expect(tied.tiedVersions == ["Notes 3"])
        #expect(tied.identifierConflict?.contains("'2'") == true)
    }

    // MARK: Merged models

    @Test func mergedModelsKeepEveryPartAndRefuseSharedEntities() throws {
        let a = try model("name: A\nidentifier: \"\"\nentities:\n  One:\n    attributes:\n      x: int32?", name: "A")
        let b = try model("name: B\nidentifier: \"3\"\nentities:\n  Two:\n    attributes:\n      y: string?", name: "B")
        let c = try model("name: C\nentities:\n  Three:\n    attributes:\n      z: date?", name: "C")
        let merged = try Model.merging([a, b, c])
        #expect(merged.entities.map(\.name) == ["One", "Two", "Three"])
        #expect(merged.versionIdentifiers == ["", "3"])
        #expect(merged.name == "A + B + C")
        for part in [a, b, c] {
            for (entity, hash) in VersionHashes(model: part).entityHashes {
                #expect(VersionHashes(model: merged).entityHashes[entity] == hash)
            }
        }
        #expect(throws: ModelError.self) { try Model.merging([a, a]) }
    }

    @Test func aStoreOfAMergedModelIsFoundAmongTheParts() throws {
        let v1 = try model("name: App\nentities:\n  Item:\n    attributes:\n      x: int32?", name: "App")
        let v2 = try model("name: App 2\nentities:\n  Item:\n    attributes:\n      x: int32?\n      y: string?", name: "App 2")
        let kit = try model("name: Kit\nidentifier: \"3\"\nentities:\n  Setting:\n    attributes:\n      k: string?", name: "Kit")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("App.sqlite").path
        let store = try SQLiteStore.create(at: path, model: try Model.merging([v1, kit]), layout: CoreDataLayout())
        defer { try? store.close() }

        #expect(try store.detectVersion(among: [v1, v2, kit]).version == nil)
        let merged = try #require(try store.detectMergedVersion(groups: [[v1, v2], [kit]]))
        #expect(merged.mergedFrom == ["App", "Kit"])
        #expect(merged.isExactMatch)
        // A part missing from the groups: no merge accounts for every entity.
        #expect(try store.detectMergedVersion(groups: [[v1, v2], [v2]]) == nil)
    }

    // MARK: Progressive migration from a bundle

}
