import Foundation
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarTestSupport
import Testing

/// The Core Data layout's naming without a database: entity numbers, tables, columns and their declared
/// types, join tables, indexes, as its storage map lays them out (the store's tests create them).
@Suite struct CoreDataNamingTests {
    let layout = CoreDataLayout()

    func map(_ yaml: String, layout: CoreDataLayout = CoreDataLayout()) throws -> StorageMap {
        try layout.storageMap(for: try model(yaml))
    }

    func columns(_ map: StorageMap, _ table: String) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (map.schema.table(named: table)?.columns ?? []).map { ($0.name, $0.declaredType) })
    }

    func index(_ map: StorageMap, _ name: String) -> SchemaIndex? {
        map.schema.indexes.first { $0.name == name }
    }

    @Test func entitiesAreNumberedRootsByNameEachFollowedByItsSubEntitiesDepthFirst() throws {
        let yaml = """
            entities:
              Zoo: {}
              Animal: {abstract: true}
              Mammal: {parent: Animal}
              Bird: {parent: Animal}
              Parrot: {parent: Bird}
              Eagle: {parent: Bird}
              Cat: {parent: Mammal}
              keeper: {}
            """
        let numbers = layout.entityNumbers(for: try model(yaml))
        #expect(numbers.map(\.entity) == ["Animal", "Bird", "Eagle", "Parrot", "Mammal", "Cat", "keeper", "Zoo"])
        #expect(numbers.map(\.number) == Array(1...8))
        #expect(numbers.map(\.parent) == [0, 1, 2, 2, 1, 5, 0, 0])
    }

    @Test func numberingIgnoresCaseAsTheRealSyncMetadataStoreShows() throws {
        // DuckDuckGo's SyncMetadata store: 1 SyncableSettingsMetadata, 2 SyncFeatureEntity.
        let numbers = layout.entityNumbers(for: try model("entities:\n  SyncFeatureEntity: {}\n  SyncableSettingsMetadata: {}\n"))
        #expect(numbers.map(\.entity) == ["SyncableSettingsMetadata", "SyncFeatureEntity"])
    }

    @Test func oneTablePerRootWithPkEntAndOpt() throws {
        let m = try map(
            """
            entities:
              Media: {abstract: true, attributes: {title: string?}}
              Song: {parent: Media, attributes: {length: double?}}
              Café: {attributes: {name: string?}}
            """)
        #expect(Set(m.schema.tables.map(\.name)) == ["ZMEDIA", "ZCAFé"])
        let media = try #require(m.schema.table(named: "ZMEDIA"))
        #expect(media.columns.prefix(3).map(\.name) == ["Z_PK", "Z_ENT", "Z_OPT"])
        #expect(media.columns[0].isPrimaryKey && media.columns[0].declaredType == "INTEGER")
        #expect(media.columns.allSatisfy { !$0.notNull && $0.defaultValue == nil && $0.references == nil })
        #expect(m.entities["Song"]?.table == "ZMEDIA")
        #expect(m.entities["Song"]?.discriminatorValue == .integer(3))
        #expect(m.entityTables["ZMEDIA"]?.discriminator == "Z_ENT")
        #expect(m.entityTables["ZMEDIA"]?.bookkeeping["Z_OPT"] == .preserved(.integer(1)))
        // Z_ENT is indexed only where a table holds several entities.
        #expect(index(m, "ZMEDIA_Z_ENT_INDEX")?.elements.map(\.column) == ["Z_ENT"])
        #expect(index(m, "ZCAFé_Z_ENT_INDEX") == nil)
    }

    @Test func columnNamesShareOneRegistryPerHierarchyAndClashesTakeSuffixes() throws {
        // Root first, then sub-entities in entity order: Note (2) gets ZTEXT, Post (3) ZTEXT1, as in Wire's
        // ZMESSAGE; Apptentive's ZPENDINGSTATE1 likewise.
        let m = try map(
            """
            entities:
              Message: {attributes: {sender: string?}}
              Post: {parent: Message, attributes: {text: string?, sender2: int16?}}
              Note: {parent: Message, attributes: {text: string?}}
            """)
        #expect(m.entities["Note"]?.columns["text"] == "ZTEXT")
        #expect(m.entities["Post"]?.columns["text"] == "ZTEXT1")
        #expect(m.entities["Post"]?.columns["sender"] == "ZSENDER")  // inherited
        #expect(m.entities["Post"]?.columns["sender2"] == "ZSENDER2")
    }

    @Test func declaredTypesFollowCoreData() throws {
        let m = try map(
            """
            entities:
              Thing:
                attributes:
                  a16: int16?
                  a32: int32?
                  a64: int64?
                  flag: bool?
                  ratio: double?
                  weight: float?
                  price: decimal?
                  when: date?
                  name: string?
                  link: uri?
                  photo: binary?
                  value: transformable?
                  id: uuid?
                  scratch: {type: string, optional: true, transient: true}
            """)
        #expect(
            columns(m, "ZTHING") == [
                "Z_PK": "INTEGER", "Z_ENT": "INTEGER", "Z_OPT": "INTEGER",
                "ZA16": "INTEGER", "ZA32": "INTEGER", "ZA64": "INTEGER", "ZFLAG": "INTEGER", "ZRATIO": "FLOAT",
                "ZWEIGHT": "FLOAT", "ZPRICE": "DECIMAL", "ZWHEN": "TIMESTAMP", "ZNAME": "VARCHAR", "ZLINK": "VARCHAR",
                "ZPHOTO": "BLOB", "ZVALUE": "BLOB", "ZID": "BLOB",
            ])
        // Core Data's column order: INTEGER, FLOAT/TIMESTAMP, DECIMAL, VARCHAR, BLOB (UUID, Transformable,
        // Binary: PegaseUIData ZENTITYRUBRIC has ZUUID before ZCOLOR, Wire ZCONVERSATION Transformable before Binary).
        #expect(
            m.schema.table(named: "ZTHING")!.columns.map(\.name) == [
                "Z_PK", "Z_ENT", "Z_OPT", "ZA16", "ZA32", "ZA64", "ZFLAG", "ZRATIO", "ZWEIGHT", "ZWHEN", "ZPRICE",
                "ZLINK", "ZNAME", "ZID", "ZVALUE", "ZPHOTO",
            ])
    }

    @Test func datesAndDefaultsAreStoredAsCoreDataStoresThem() throws {
        let m = try model(
            """
            entities:
              Thing:
                attributes:
                  when: {type: date, optional: true, default: 86400}
                  flag: bool = true
                  id: {type: uuid, optional: true, default: "00112233-4455-6677-8899-AABBCCDDEEFF"}
            """)
        let entity = try #require(m.entity(named: "Thing"))
        #expect(layout.storedDefault(of: entity.attribute(named: "when")!) == .real(86400))  // seconds since 2001
        #expect(layout.storedDefault(of: entity.attribute(named: "flag")!) == .integer(1))
        #expect(
            layout.storedDefault(of: entity.attribute(named: "id")!)
                == .blob(Data([0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])))
    }

    @Test func toOneKeysGetAnEntityColumnWhenTheDestinationHasSubEntities() throws {
        let m = try map(CoreDataModels.zooYAML)
        // Animal 1, Bird 2, Cage 3, Keeper 4.
        #expect(columns(m, "ZKEEPER")["ZCAGE"] == "INTEGER")
        #expect(columns(m, "ZKEEPER")["ZFAVOURITE"] == "INTEGER")
        #expect(columns(m, "ZKEEPER")["Z1_FAVOURITE"] == "INTEGER")
        #expect(columns(m, "ZKEEPER")["Z3_CAGE"] == nil)  // Cage has no sub-entities
        #expect(m.entityTables["ZKEEPER"]?.bookkeeping["Z1_FAVOURITE"] == .entityOf(foreignKey: "ZFAVOURITE"))
        #expect(m.relationships[RelationshipKey(entity: "Keeper", name: "favourite")] == .foreignKey(table: "ZKEEPER", column: "ZFAVOURITE"))
        #expect(index(m, "ZKEEPER_ZFAVOURITE_INDEX")?.elements.map(\.column) == ["ZFAVOURITE"])
        // One-to-one: a key on both sides, each indexed.
        #expect(columns(m, "ZCAGE")["ZKEEPER"] == "INTEGER")
        #expect(index(m, "ZCAGE_ZKEEPER_INDEX") != nil && index(m, "ZKEEPER_ZCAGE_INDEX") != nil)
    }

    @Test func anOrderedOneToManyPutsZFokBesideTheInverseKey() throws {
        let m = try map(CoreDataModels.zooYAML)
        #expect(columns(m, "ZANIMAL")["ZCAGE"] == "INTEGER")
        #expect(columns(m, "ZANIMAL")["Z_FOK_CAGE"] == "INTEGER")
        #expect(
            m.relationships[RelationshipKey(entity: "Cage", name: "animals")]
                == .inverseForeignKey(inverse: RelationshipKey(entity: "Animal", name: "cage"), position: "Z_FOK_CAGE"))
        #expect(columns(m, "ZCAGE")["ZANIMALS"] == nil)
    }

    @Test func manyToManyJoinTablesAreNamedFromTheEntityWhoseNameSortsFirst() throws {
        // Tag is 1 and Post 3, but Post sorts first: the table is `Z_3TAGS`. Apptentive's `Z_6DISPLAYTYPES`
        // is named likewise from ATMessage (6), not ATMessageDisplayType (2).
        let m = try map(
            """
            entities:
              Zone: {abstract: true}
              Post: {parent: Zone, relationships: {tags: "Tag[] ordered inverse posts"}}
              Tag: {relationships: {posts: "Post[] inverse tags"}}
            """)
        let join = try #require(m.joinTables["Z_3TAGS"])
        #expect(join.relationship == RelationshipKey(entity: "Post", name: "tags"))
        #expect(join.ownerColumn == "Z_3POSTS")  // holds Post keys, named after the relationship to Post
        #expect(join.destinationColumn == "Z_1TAGS")
        #expect(join.destinationPosition == "Z_FOK_1TAGS")
        #expect(join.ownerPosition == nil)
        let table = try #require(m.schema.table(named: "Z_3TAGS"))
        #expect(table.columns.map(\.name) == ["Z_3POSTS", "Z_1TAGS", "Z_FOK_1TAGS"])
        #expect(table.primaryKey == ["Z_3POSTS", "Z_1TAGS"])
        #expect(index(m, "Z_3TAGS_Z_1TAGS_INDEX")?.elements.map(\.column) == ["Z_1TAGS", "Z_3POSTS"])
        #expect(
            m.relationships[RelationshipKey(entity: "Tag", name: "posts")]
                == .joinTable(name: "Z_3TAGS", ownerColumn: "Z_1TAGS", destinationColumn: "Z_3POSTS", position: nil))
    }

    @Test func joinTablesWithinOneEntityAndReflexiveOnes() throws {
        // As in the real DuckDuckGo store: `Z_1FAVORITES (Z_1FAVORITEFOLDERS, Z_1FAVORITES,
        // Z_FOK_1FAVORITES)`. Which side names the table follows Core Data's walk over the entity's keys
        // (docs/coredata-layout.md), so the entity here has just these two relationships.
        let m = try map(
            """
            entities:
              Bookmark:
                relationships:
                  favorites: Bookmark[] ordered inverse favoriteFolders
                  favoriteFolders: Bookmark[] inverse favorites
              Person:
                relationships:
                  friends: Person[] inverse friends
            """)
        let favorites = try #require(m.schema.table(named: "Z_1FAVORITES"))
        #expect(favorites.columns.map(\.name) == ["Z_1FAVORITEFOLDERS", "Z_1FAVORITES", "Z_FOK_1FAVORITES"])
        #expect(index(m, "Z_1FAVORITES_Z_1FAVORITES_INDEX")?.elements.map(\.column) == ["Z_1FAVORITES", "Z_1FAVORITEFOLDERS"])
        // A relationship that is its own inverse: Core Data's REFLEXIVE column.
        let friends = try #require(m.schema.table(named: "Z_2FRIENDS"))
        #expect(friends.columns.map(\.name) == ["Z_2FRIENDS", "REFLEXIVE"])
    }

    @Test func joinTableColumnsAreUniquedLikeWiresZ23Users1() throws {
        let m = try map(
            """
            entities:
              Group: {relationships: {users: "User[] inverse groups"}}
              Team: {relationships: {users: "User[] inverse teams"}}
              User: {relationships: {groups: "Group[] inverse users", teams: "Team[] inverse users"}}
            """)
        #expect(m.schema.table(named: "Z_1USERS")?.columns.map(\.name) == ["Z_1GROUPS", "Z_3USERS"])
        #expect(m.schema.table(named: "Z_2USERS")?.columns.map(\.name) == ["Z_2TEAMS", "Z_3USERS1"])
    }

    @Test func recentFrameworksCompileIndexesAndUniquenessIntoFetchIndexes() throws {
        let m = try map(CoreDataModels.indexedYAML)
        #expect(
            index(m, "Z_Book_byTitle")
                == SchemaIndex(
                    name: "Z_Book_byTitle", table: "ZBOOK",
                    elements: [.init(column: "ZTITLE"), .init(column: "ZEDITION", descending: true)]))
        #expect(index(m, "Z_Book_edition")?.elements.map(\.column) == ["ZEDITION"])
        #expect(index(m, "Z_Book_UNIQUE_isbn")?.isUnique == true)
        #expect(index(m, "Z_Book_UNIQUE_title_edition")?.elements.map(\.column) == ["ZTITLE", "ZEDITION"])
        #expect(m.schema.table(named: "ZBOOK")?.uniqueConstraints == [])
    }

    @Test func olderFrameworksUseTableNamedIndexesAndUniqueConstraints() throws {
        // Moody (framework 637): `ZMOOD_ZREMOTEID_INDEX`, `ZMOOD_ZA_ZB_ZC`, `CONSTRAINT … UNIQUE (…)`.
        let m = try map(CoreDataModels.indexedYAML, layout: CoreDataLayout(frameworkVersion: 637))
        #expect(index(m, "ZBOOK_ZEDITION_INDEX")?.elements.map(\.column) == ["ZEDITION"])
        #expect(index(m, "ZBOOK_ZTITLE_ZEDITION")?.elements.map(\.descending) == [false, true])
        #expect(m.schema.table(named: "ZBOOK")?.uniqueConstraints == [["ZISBN"], ["ZTITLE", "ZEDITION"]])
        #expect(!m.schema.indexes.contains { $0.name.hasPrefix("Z_Book") })
        // Before 600 join tables had no index (Apptentive, framework 419).
        let joins = """
            entities:
              A: {relationships: {bs: "B[] inverse as"}}
              B: {relationships: {as: "A[] inverse bs"}}
            """
        #expect(index(try map(joins, layout: CoreDataLayout(frameworkVersion: 419)), "Z_1BS_Z_2BS_INDEX") == nil)
        #expect(index(try map(joins, layout: CoreDataLayout(frameworkVersion: 637)), "Z_1BS_Z_2BS_INDEX") != nil)
    }

    @Test func aJoinTableKeyInAnotherOrderIsDriftOnlyForTwoColumnKeysInCoreDataStores() throws {
        let table = SchemaTable(
            name: "Z_1TRUSTEDBY", columns: [SchemaColumn(name: "A", declaredType: "INTEGER"), SchemaColumn(name: "B", declaredType: "INTEGER")],
            primaryKey: ["A", "B"])
        var swapped = table
        swapped.primaryKey = ["B", "A"]
        let expected = StoreSchema(tables: [table])
        let actual = StoreSchema(tables: [swapped])
        #expect(SchemaComparison.differences(expected: expected, actual: actual, ignoringExtraIndexes: true).isEmpty)
        // Layouts that name every index themselves (Instar's, plain SQL) compare keys exactly.
        #expect(SchemaComparison.differences(expected: expected, actual: actual).map(\.kind) == [.primaryKeyDiffers])
    }
}
