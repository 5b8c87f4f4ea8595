import Foundation
import GRDB
import InstarInference
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
import InstarModelIO
@_spi(Layouts) import InstarStore
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport

/// Property-based tests of in-place migration: random model, random inferable change, random rows →
/// migrate → every surviving value is where the mapping says, and nothing else changed.
///
/// Everything is generated from a seed by a small deterministic PRNG (SplitMix64), so a failure names
/// its seed and can be replayed alone:
///
///     INSTAR_PROPERTY_SEED=1234 swift test --filter StoreMigrationProperty
///
/// By default 150 seeds run (about 2 s in debug). `INSTAR_PROPERTY_SEEDS=3000` runs more, and
/// `INSTAR_PROPERTY_REPORTS=<folder>` writes every failing case there (models, changes, step SQL, problems).
///
/// The expected rows are computed here from the generated rows and what each change means (Core Data's
/// semantics, `README.md` "Inference"); Instar's compiler is never asked. Only the *names* of tables and
/// columns come from `InstarLayout().storageMap(for:)`, because the layout decides them (clashes get
/// suffixes) and the schema comparison checks the layout separately.
@Suite struct StoreMigrationPropertyTests {
    static let seedsPerChunk = 50
    static let chunks = 3

    @Test(arguments: 0..<StoreMigrationPropertyTests.chunks)
    func randomInferableChangesKeepEveryValue(chunk: Int) throws {
        let environment = ProcessInfo.processInfo.environment
        let seeds: [UInt64]
        if let only = environment["INSTAR_PROPERTY_SEED"].flatMap(UInt64.init) {
            seeds = chunk == 0 ? [only] : []
        } else {
            let perChunk = environment["INSTAR_PROPERTY_SEEDS"].flatMap(Int.init).map { ($0 + Self.chunks - 1) / Self.chunks }
                ?? Self.seedsPerChunk
            let start = UInt64(chunk * perChunk)
            seeds = Array(start..<start + UInt64(perChunk))
        }
        let dir = try storeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var failed: [UInt64] = []
        var stats = Stats()
        // INSTAR_PROPERTY_REPORTS=<folder> writes every failing case there, one file per seed.
        let reports = environment["INSTAR_PROPERTY_REPORTS"].map { URL(fileURLWithPath: $0) }
        for seed in seeds {
            let report = PropertyCase.run(seed: seed, in: dir)
            stats.add(report)
            if !report.problems.isEmpty {
                failed.append(seed)
                if let reports {
                    try? report.description.write(
                        to: reports.appendingPathComponent("seed-\(seed).txt"), atomically: true, encoding: .utf8)
                }
                if failed.count <= 3 {
                    Issue.record(Comment(rawValue: report.description))
                }
            }
        }
        print("StoreMigrationProperty chunk \(chunk): \(seeds.count) seeds; \(stats)")
        #expect(failed.isEmpty, "failing seeds: \(failed.map(String.init).joined(separator: ", "))")
        // The oracle must have had something to compare (a generator that makes empty stores proves nothing).
        if seeds.count >= 20 {
            #expect(stats.cells > seeds.count * 10 && stats.links > seeds.count && stats.orders > 0)
        }
    }

    /// The nastiest identifiers in one model, every kind of change at once, checked by the same oracle
    /// and by a few explicit values.
    @Test func nastyIdentifiersSurviveEveryKindOfChange() throws {
        var old = ModelSpec(name: "Version \"1\"; DROP TABLE x; --")
        let order = old.addEntity("Order", parent: nil)
        let quoted = old.addEntity("\"Quoted\" Table", parent: nil)
        let sub = old.addEntity("Ünïcödé it's", parent: quoted)
        let select = old.addEntity("select", parent: nil)
        let total = old.addAttribute(to: order, "order", .double, optional: true)
        let group = old.addAttribute(to: order, "group", .integer16, optional: false, default: "7")
        let note = old.addAttribute(to: order, "it's \"quoted\"", .string, optional: true)
        let pk = old.addAttribute(to: order, "_pk", .integer32, optional: true)
        let rowid = old.addAttribute(to: quoted, "rowid", .boolean, optional: true)
        let space = old.addAttribute(to: quoted, "with space", .string, optional: false)
        let naive = old.addAttribute(to: sub, "naïve", .binary, optional: true)
        let japanese = old.addAttribute(to: sub, "日本", .integer64, optional: true)
        let entityColumn = old.addAttribute(to: select, "_entity", .date, optional: true)
        let table = old.addAttribute(to: select, "table", .decimal, optional: true)
        let lines = old.addRelationship(a: order, "from", toMany: false, b: quoted, "where", bOrdered: true)
        let tags = old.addRelationship(
            a: quoted, "key", toMany: true, aOrdered: true, b: select, "index", bOrdered: false)

        var new = old
        new.name = "Version 2 — naïve"
        new.renameEntity(order, to: "Select")  // takes a name differing only by case from 'select' (other table)
        new.renameEntity(select, to: "With \"Quotes\" & Spaces")
        new.renameEntity(sub, to: "日本語")
        new.renameAttribute(total, to: "group")  // swap with 'group' below, through renaming identifiers
        new.renameAttribute(group, to: "order")
        new.changeAttribute(total) { $0.type = .integer64; $0.optional = false; $0.defaultValue = "-1" }
        new.changeAttribute(group) { $0.type = .double; $0.defaultValue = "2.5" }
        new.removeAttribute(note)
        new.changeAttribute(pk) { $0.type = .boolean }
        new.changeAttribute(rowid) { $0.type = .integer32; $0.optional = false; $0.defaultValue = "32767" }
        new.renameAttribute(space, to: "naïve")  // the sub-entity's old name, now free
        new.renameAttribute(naive, to: "bytes 'n' \"bits\"")
        new.changeAttribute(japanese) { $0.type = .boolean; $0.optional = false; $0.defaultValue = "YES" }
        new.renameAttribute(entityColumn, to: "_pk")
        new.changeAttribute(table) { $0.type = .double }
        _ = new.addAttribute(to: select, "ελληνικά", .string, optional: false, default: "it's \"ok\"")
        new.changeRelationship(lines) { $0.aToMany = true; $0.aOrdered = true; $0.bName = "where now" }
        new.changeRelationship(tags) { $0.aOrdered = false; $0.bOrdered = true }

        let dir = try storeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SplitMix64(seed: 0xC0FFEE)
        let report = PropertyCase.run(
            old: old, new: new, changes: ["(hand-written)"], seed: 0xC0FFEE, rng: &rng, in: dir, rowsPerEntity: 3...5)
        #expect(report.problems.isEmpty, Comment(rawValue: report.description))

        // A few values spelled out, for the reader.
        let store = try SQLiteStore.open(at: report.path)
        let newModel = try new.build(relativeTo: old)
        let map = try InstarLayout().storageMap(for: newModel)
        let orders = try #require(map.entities["Select"])
        #expect(orders.table == "Select")
        #expect(orders.columns["_pk"] == "Select__pk")
        try store.withDatabase { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT \(q("_pk")), \(q("group")), \(q("order")) FROM \(q("Select")) ORDER BY \(q("_pk"))")
            #expect(!rows.isEmpty && rows.count == report.data.rows[order]?.count)
            for row in rows {
                let pk: Int64 = row[0]
                let before = try #require(report.data.rows[order]?.first { $0.pk == pk })
                // 'order' (double, optional) became 'group' (int64, required, default -1): truncated, NULL → -1.
                let oldTotal = before.values[total] ?? .null
                let expectedGroup: Int64 =
                    switch oldTotal.storage {
                    case .double(let d): Int64(d)
                    case .int64(let i): i
                    default: -1
                    }
                #expect(row[1] as Int64 == expectedGroup)
                // 'group' (int16, required) became 'order' (double): widened to REAL.
                if case .int64(let i) = (before.values[group] ?? .null).storage {
                    #expect((row[2] as DatabaseValue).storage == .double(Double(i)))
                }
            }
        }
        try store.close()
    }
}

// MARK: - Minimal reproductions of what the property test found

/// Each test is the smallest step that shows one defect the random cases found (example seeds in the
/// comments, as of this writing). Tests marked BUG fail until the defect is fixed; those marked FIXED
/// guard a fix made together with them.
@Suite struct StoreMigrationPropertyFindings {
    /// Creates a store of `old`, fills it with `fill`, migrates to `new`.
    func migrate(
        _ oldYAML: String, _ newYAML: String, fill: (Database, StorageMap) throws -> Void
    ) throws -> (store: SQLiteStore, dir: URL, old: Model, new: Model, error: StoreError?) {
        let old = try model(oldYAML, name: "V1")
        let new = try model(newYAML, name: "V2")
        let dir = try storeDirectory()
        let store = try SQLiteStore.create(at: dir.appendingPathComponent("store.sqlite").path, model: old)
        let oldMap = try InstarLayout().storageMap(for: old)
        try store.withDatabase { db in try fill(db, oldMap) }
        do {
            try store.migrate(from: old, to: new)
            return (store, dir, old, new, nil)
        } catch {
            return (store, dir, old, new, error)
        }
    }

    func insert(_ db: Database, _ table: String, _ values: [String: DatabaseValueConvertible?]) throws {
        let columns = values.keys.sorted()
        try db.execute(
            sql: "INSERT INTO \(q(table)) (\(columns.map(q).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
            arguments: StatementArguments(columns.map { values[$0] ?? nil }))
    }

    /// The first column of every row `sql` returns.
    func integers(_ store: SQLiteStore, _ sql: String) throws -> [Int64?] {
        try store.withDatabase { db in try Row.fetchAll(db, sql: sql).map { $0[0] as Int64? } }
    }

    /// BUG (seeds 131, 1069, 1120, …; ~40 of 3000): when a table is rebuilt under a new name (an entity
    /// renamed together with any change that forces a rebuild — a NOT NULL change, a converted column, or
    /// simply a renamed root or sub-entity of a hierarchy, whose discriminator values are remapped), the
    /// foreign keys of tables that are altered in place still say `REFERENCES "<old name>"`: SQLite
    /// rewrites references only on `ALTER TABLE … RENAME`, never on `DROP TABLE` + rename of the new
    /// copy. The step's verification catches it and rolls back, so the inferable step cannot run.
    @Test func tableRebuiltUnderANewNameKeepsTheForeignKeysThatPointAtIt() throws {
        let result = try migrate(
            """
            entities:
              Owner:
                attributes:
                  n: int32?
                relationships:
                  pets: Pet[] inverse owner
              Pet:
                attributes:
                  name: string?
                relationships:
                  owner: Owner? inverse pets
            """,
            """
            entities:
              Person:
                renamedFrom: Owner
                attributes:
                  n: int32 = 0
                relationships:
                  pets: Pet[] inverse owner
              Pet:
                attributes:
                  name: string?
                relationships:
                  owner: Person? inverse pets
            """
        ) { db, _ in
            try insert(db, "Owner", ["_pk": 1, "n": nil])
            try insert(db, "Pet", ["_pk": 7, "name": "Rex", "owner": 1])
        }
        defer {
            try? result.store.close()
            try? FileManager.default.removeItem(at: result.dir)
        }
        #expect(result.error == nil, "\(result.error.map(String.init(describing:)) ?? "")")
        guard result.error == nil else { return }
        #expect(try integers(result.store, "SELECT owner FROM Pet WHERE _pk = 7") == [1])
        #expect(try integers(result.store, "SELECT n FROM Person WHERE _pk = 1") == [0])
    }

    /// BUG, same family (found by reading the planner, then confirmed here): a rebuilt table is created
    /// early with `REFERENCES "<final name>"`; when that name still belongs to another table that is
    /// renamed away in place later in the step (`Dept` → `Office` while `Team` → `Dept`), SQLite rewrites
    /// the new table's reference along with it, so `Member.team` ends up pointing at `Office`.
    @Test func rebuiltTableKeepsReferencingANameThatChangedHands() throws {
        let result = try migrate(
            """
            entities:
              Dept:
                attributes:
                  code: string?
              Team:
                attributes:
                  name: string?
                relationships:
                  members: Member[] inverse team
              Member:
                attributes:
                  age: int16?
                relationships:
                  team: Team? inverse members
            """,
            """
            entities:
              Office:
                renamedFrom: Dept
                attributes:
                  code: string?
              Dept:
                renamedFrom: Team
                attributes:
                  name: string?
                relationships:
                  members: Member[] inverse team
              Member:
                attributes:
                  age: int16 = 0
                relationships:
                  team: Dept? inverse members
            """
        ) { db, _ in
            try insert(db, "Dept", ["_pk": 1, "code": "HQ"])
            try insert(db, "Team", ["_pk": 5, "name": "Core"])
            try insert(db, "Member", ["_pk": 9, "age": nil, "team": 5])
        }
        defer {
            try? result.store.close()
            try? FileManager.default.removeItem(at: result.dir)
        }
        #expect(result.error == nil, "\(result.error.map(String.init(describing:)) ?? "")")
        guard result.error == nil else { return }
        #expect(try integers(result.store, "SELECT team FROM Member") == [5])
        #expect(try integers(result.store, "SELECT _pk FROM Dept") == [5])
    }

    /// BUG (seeds 417, 448, 960, …; ~10 of 3000): removing a sub-entity deletes its rows, but links to
    /// those rows through a relationship whose destination is an ancestor survive: a to-one foreign key
    /// keeps the deleted row's key and a join table keeps the link row. The step's foreign-key check
    /// then fails and rolls back. Core Data nullifies such links (the objects no longer exist).
    @Test func removingASubentityUnlinksRowsThatPointedAtItsRows() throws {
        let result = try migrate(
            """
            entities:
              Animal:
                attributes:
                  name: string?
                relationships:
                  vets: Vet[] inverse patient
                  carers: Vet[] inverse animals
              Dog:
                parent: Animal
              Vet:
                relationships:
                  patient: Animal? inverse vets
                  animals: Animal[] inverse carers
            """,
            """
            entities:
              Animal:
                attributes:
                  name: string?
                relationships:
                  vets: Vet[] inverse patient
                  carers: Vet[] inverse animals
              Vet:
                relationships:
                  patient: Animal? inverse vets
                  animals: Animal[] inverse carers
            """
        ) { db, map in
            try insert(db, "Animal", ["_pk": 1, "_entity": "Animal", "name": "Cat"])
            try insert(db, "Animal", ["_pk": 2, "_entity": "Dog", "name": "Rex"])
            try insert(db, "Vet", ["_pk": 1, "patient": 2])
            try insert(db, "Vet", ["_pk": 2, "patient": 1])
            guard case .joinTable(let table, let owner, let destination, _)? =
                map.relationships[RelationshipKey(entity: "Vet", name: "animals")]
            else { throw OracleError("no join table") }
            try insert(db, table, [owner: 1, destination: 1])
            try insert(db, table, [owner: 1, destination: 2])
        }
        defer {
            try? result.store.close()
            try? FileManager.default.removeItem(at: result.dir)
        }
        #expect(result.error == nil, "\(result.error.map(String.init(describing:)) ?? "")")
        guard result.error == nil else { return }
        let map = try InstarLayout().storageMap(for: result.new)
        #expect(try integers(result.store, "SELECT _pk FROM Animal") == [1])
        #expect(try integers(result.store, "SELECT patient FROM Vet ORDER BY _pk") == [nil, 1])
        if case .joinTable(let table, _, let destination, _)? = map.relationships[RelationshipKey(entity: "Vet", name: "animals")] {
            #expect(try integers(result.store, "SELECT \(q(destination)) FROM \(q(table))") == [1])
        }
    }

    /// BUG (seeds 130, 1079, 1445, …; ~8 of 3000): a to-one becoming to-many moves its links into a join
    /// table; when the inverse to-many was (and stays) ordered, its positions are renumbered in primary-key
    /// order instead of being kept — but only when the join table is named after the to-one side (its
    /// entity name sorts first). `StepCompiler.joinFill`, case `.foreignKey`, ignores the old position
    /// column that the `.inverseForeignKey` case (the other naming order) does use.
    @Test func toOneBecomingToManyKeepsTheOrderOfItsOrderedInverse() throws {
        let result = try migrate(
            """
            entities:
              List:
                relationships:
                  items: Item[] ordered inverse list
              Item:
                relationships:
                  list: List? inverse items
            """,
            """
            entities:
              List:
                relationships:
                  items: Item[] ordered inverse list
              Item:
                relationships:
                  list: List[] inverse items
            """
        ) { db, map in
            guard case .inverseForeignKey(_, let position?)? = map.relationships[RelationshipKey(entity: "List", name: "items")]
            else { throw OracleError("no position column") }
            try insert(db, "List", ["_pk": 1])
            // The list holds items 2, 3, 1 in that order.
            for (item, place) in [(1, 3), (2, 1), (3, 2)] {
                try insert(db, "Item", ["_pk": item, "list": 1, position: place])
            }
        }
        defer {
            try? result.store.close()
            try? FileManager.default.removeItem(at: result.dir)
        }
        #expect(result.error == nil, "\(result.error.map(String.init(describing:)) ?? "")")
        guard result.error == nil else { return }
        let map = try InstarLayout().storageMap(for: result.new)
        guard case .joinTable(let table, _, let item, let position?)? = map.relationships[RelationshipKey(entity: "List", name: "items")]
        else {
            Issue.record("List.items has no ordered join table")
            return
        }
        #expect(try integers(result.store, "SELECT \(q(item)) FROM \(q(table)) ORDER BY \(q(position))") == [2, 3, 1])
    }

    /// FIXED (seeds 511, 1483, 2299, 2353): an ordered many-to-many whose inverse is named like its
    /// position column (`x` ordered ⇄ `x_position`) gave the join table two columns `x_position`, so the
    /// store could not even be created ("duplicate column name").
    @Test func joinTablePositionColumnNeverTakesTheInverseColumnsName() throws {
        let m = try model(
            """
            entities:
              A:
                relationships:
                  x: B[] ordered inverse x_position
              B:
                relationships:
                  x_position: A[] ordered inverse x
            """)
        let map = try InstarLayout().storageMap(for: m)
        for table in map.schema.tables {
            let names = table.columns.map { $0.name.lowercased() }
            #expect(Set(names).count == names.count, "\(table.name): \(names)")
        }
        let dir = try storeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore.create(at: dir.appendingPathComponent("s.sqlite").path, model: m)
        try store.close()
    }

    /// FIXED (seeds 613, 1986, 2514, … about 3% of seeds once the oracle asked): two versions that differ
    /// only in what Core Data leaves out of version hashes (defaults, indexes) have the same hashes, and
    /// `detectVersion` took the first candidate with those hashes — the store just migrated to V2 was
    /// reported as V1 with drift, though its metadata names V2.
    @Test func detectionPrefersTheVersionTheMetadataNamesAmongEqualHashes() throws {
        let result = try migrate(
            "entities:\n  Item:\n    attributes:\n      n: int32 = 1\n",
            "entities:\n  Item:\n    attributes:\n      n: int32 = 2\n"
        ) { db, _ in try insert(db, "Item", ["_pk": 1, "n": 5]) }
        defer {
            try? result.store.close()
            try? FileManager.default.removeItem(at: result.dir)
        }
        try #require(result.error == nil)
        #expect(VersionHashes(model: result.old) == VersionHashes(model: result.new))
        let detection = try result.store.detectVersion(among: [result.old, result.new])
        #expect(detection.version?.name == "V2")
        #expect(detection.isExactMatch)
    }

    /// FIXED: an entity named with the layout's bookkeeping prefix sent `uniqueTableName` into an endless
    /// loop (every suffixed candidate still had the prefix).
    @Test(.timeLimit(.minutes(1))) func entityNamedLikeBookkeepingGetsATableOfItsOwn() throws {
        let m = try model("entities:\n  _instar_notes:\n    attributes:\n      text: string?\n")
        let table = try #require(try InstarLayout().storageMap(for: m).table(of: "_instar_notes"))
        #expect(!InstarLayout().isBookkeepingTable(table))
    }

    /// FIXED: SQLite compares identifiers case-insensitively (ASCII): two properties or two entities whose
    /// names differ only in case must still get distinct columns and tables.
    @Test func namesDifferingOnlyInCaseGetDistinctColumnsAndTables() throws {
        let m = try model(
            """
            entities:
              Item:
                attributes:
                  url: string?
                  URL: string?
              ITEM:
                attributes:
                  x: int16?
            """)
        let dir = try storeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore.create(at: dir.appendingPathComponent("s.sqlite").path, model: m)
        try store.close()
    }
}

/// Stores are created in memory-backed `/dev/shm` when there is one: every step commits with `fsync`,
/// which on a busy disk costs more than the whole test.
private func storeDirectory() throws -> URL {
    let shm = URL(fileURLWithPath: "/dev/shm")
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: shm.path, isDirectory: &isDirectory), isDirectory.boolValue,
        FileManager.default.isWritableFile(atPath: shm.path)
    else { return try temporaryDirectory() }
    let url = shm.appendingPathComponent("instar-property-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// What the seeds exercised, printed once per chunk.
private struct Stats: CustomStringConvertible {
    var changes: [String: Int] = [:]
    var cells = 0
    var links = 0
    var orders = 0
    var treatments: [String: Int] = [:]

    mutating func add(_ report: CaseReport) {
        for change in report.changes {
            guard change.hasPrefix("["), let end = change.firstIndex(of: "]") else { continue }
            changes[String(change[change.index(after: change.startIndex)..<end]), default: 0] += 1
        }
        cells += report.checkedCells
        links += report.checkedLinks
        orders += report.checkedOrders
        for (kind, count) in report.treatments { treatments[kind, default: 0] += count }
    }

    var description: String {
        "\(cells) values, \(links) links, \(orders) ordered lists compared; tables "
            + treatments.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            + "; changes " + changes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}

// MARK: - Deterministic randomness

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and the same on every platform and Swift version.
private struct SplitMix64 {
    private(set) var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int {
        precondition(n > 0)
        return Int(next() % UInt64(n))
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + below(range.count) }

    mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(UInt64(1) << 53) < p }

    mutating func pick<T>(_ array: [T]) -> T { array[below(array.count)] }

    mutating func shuffled<T>(_ array: [T]) -> [T] {
        var a = array
        if a.count < 2 { return a }
        for i in stride(from: a.count - 1, to: 0, by: -1) { a.swapAt(i, below(i + 1)) }
        return a
    }
}

// MARK: - Model specs with stable identities

/// Identities survive renames, so the oracle knows which old attribute feeds which new one without
/// asking Instar's matcher.
private struct AttrSpec: CustomStringConvertible {
    var id: Int
    var name: String
    var type: AttributeType
    var optional: Bool
    var defaultValue: String?
    var indexed: Bool

    var description: String {
        "\(name.debugDescription): \(type.modelFileName)\(optional ? "?" : "")"
            + (defaultValue.map { " = \($0.debugDescription)" } ?? "") + (indexed ? " indexed" : "")
    }
}

private struct EntitySpec {
    var id: Int
    var name: String
    var parent: Int?
    var attrs: [AttrSpec]
}

/// A relationship and its inverse: `A.aName` (to-one, or to-many when `aToMany`) leads to B, and
/// `B.bName` (always to-many) leads back to A. A and B may be the same entity.
private struct RelSpec {
    var id: Int
    var a: Int
    var aName: String
    var aToMany: Bool
    var aOrdered: Bool
    var b: Int
    var bName: String
    var bOrdered: Bool
}

private struct ModelSpec {
    var name: String
    var entities: [EntitySpec] = []
    var rels: [RelSpec] = []
    var nextId = 1

    init(name: String) { self.name = name }

    mutating func newId() -> Int {
        defer { nextId += 1 }
        return nextId
    }

    func entity(_ id: Int) -> EntitySpec? { entities.first { $0.id == id } }
    func has(_ id: Int) -> Bool { entity(id) != nil }
    func name(_ id: Int) -> String { entity(id)!.name }

    /// The entity, then its ancestors.
    func chain(_ id: Int) -> [Int] {
        var result: [Int] = []
        var current: Int? = id
        while let c = current, let e = entity(c) {
            result.append(c)
            current = e.parent
        }
        return result
    }

    func root(of id: Int) -> Int { chain(id).last ?? id }
    func isKind(_ id: Int, of ancestor: Int) -> Bool { chain(id).contains(ancestor) }
    func children(_ id: Int) -> [Int] { entities.filter { $0.parent == id }.map(\.id) }
    func descendants(_ id: Int) -> [Int] { children(id).flatMap { [$0] + descendants($0) } }

    /// Every attribute of the entity, inherited ones first.
    func resolvedAttrs(of id: Int) -> [AttrSpec] { chain(id).reversed().flatMap { entity($0)!.attrs } }

    func declaredNames(_ id: Int) -> [String] {
        (entity(id)?.attrs.map(\.name) ?? []) + rels.filter { $0.a == id }.map(\.aName)
            + rels.filter { $0.b == id }.map(\.bName)
    }

    /// Names a property declared on `id` must not take: those visible from it or from a descendant.
    func scopeNames(_ id: Int) -> Set<String> { Set((chain(id) + descendants(id)).flatMap(declaredNames)) }

    func hierarchyNames(root: Int) -> Set<String> {
        Set(entities.filter { self.root(of: $0.id) == root }.flatMap { declaredNames($0.id) })
    }

    func attribute(_ id: Int) -> (entity: Int, attr: AttrSpec)? {
        for e in entities { if let a = e.attrs.first(where: { $0.id == id }) { return (e.id, a) } }
        return nil
    }

    // Editing, by identity.

    @discardableResult
    mutating func addEntity(_ name: String, parent: Int?) -> Int {
        let id = newId()
        entities.append(EntitySpec(id: id, name: name, parent: parent, attrs: []))
        return id
    }

    @discardableResult
    mutating func addAttribute(
        to entity: Int, _ name: String, _ type: AttributeType, optional: Bool, default value: String? = nil,
        indexed: Bool = false
    ) -> Int {
        let id = newId()
        let i = entities.firstIndex { $0.id == entity }!
        entities[i].attrs.append(
            AttrSpec(id: id, name: name, type: type, optional: optional, defaultValue: value, indexed: indexed))
        return id
    }

    @discardableResult
    mutating func addRelationship(
        a: Int, _ aName: String, toMany: Bool, aOrdered: Bool = false, b: Int, _ bName: String, bOrdered: Bool
    ) -> Int {
        let id = newId()
        rels.append(
            RelSpec(id: id, a: a, aName: aName, aToMany: toMany, aOrdered: aOrdered, b: b, bName: bName, bOrdered: bOrdered))
        return id
    }

    mutating func renameEntity(_ id: Int, to name: String) {
        entities[entities.firstIndex { $0.id == id }!].name = name
    }

    mutating func changeAttribute(_ id: Int, _ change: (inout AttrSpec) -> Void) {
        for i in entities.indices {
            if let j = entities[i].attrs.firstIndex(where: { $0.id == id }) { change(&entities[i].attrs[j]) }
        }
    }

    mutating func renameAttribute(_ id: Int, to name: String) { changeAttribute(id) { $0.name = name } }

    mutating func removeAttribute(_ id: Int) {
        for i in entities.indices { entities[i].attrs.removeAll { $0.id == id } }
    }

    mutating func changeRelationship(_ id: Int, _ change: (inout RelSpec) -> Void) {
        if let i = rels.firstIndex(where: { $0.id == id }) { change(&rels[i]) }
    }

    /// Removes the entity, its descendants, and every relationship touching them.
    mutating func removeEntity(_ id: Int) {
        let gone = Set([id] + descendants(id))
        entities.removeAll { gone.contains($0.id) }
        rels.removeAll { gone.contains($0.a) || gone.contains($0.b) }
    }

    /// The Instar model; renaming identifiers are set wherever a name differs from `old`'s.
    func build(relativeTo old: ModelSpec?) throws -> Model {
        var result: [Entity] = []
        for e in entities {
            let oldEntity = old?.entity(e.id)
            var entity = Entity(
                name: e.name, parent: e.parent.map(name), renamingIdentifier: renamed(oldEntity?.name, e.name))
            entity.attributes = e.attrs.map { a in
                Attribute(
                    name: a.name, type: a.type, isOptional: a.optional, defaultValue: a.defaultValue,
                    renamingIdentifier: renamed(oldEntity?.attrs.first { $0.id == a.id }?.name, a.name), isIndexed: a.indexed)
            }
            for r in rels where r.a == e.id {
                let oldRel = old?.rels.first { $0.id == r.id }
                entity.relationships.append(
                    Relationship(
                        name: r.aName, destination: name(r.b), inverse: r.bName, isToMany: r.aToMany,
                        isOrdered: r.aToMany && r.aOrdered, renamingIdentifier: renamed(oldRel?.aName, r.aName)))
            }
            for r in rels where r.b == e.id {
                let oldRel = old?.rels.first { $0.id == r.id }
                entity.relationships.append(
                    Relationship(
                        name: r.bName, destination: name(r.a), inverse: r.aName, isToMany: true, isOrdered: r.bOrdered,
                        renamingIdentifier: renamed(oldRel?.bName, r.bName)))
            }
            result.append(entity)
        }
        return try Model(name: name, entities: result)
    }

    private func renamed(_ old: String?, _ new: String) -> String? {
        guard let old, old != new else { return nil }
        return old
    }
}

// MARK: - Generation

private enum Pools {
    /// SQL keywords, quotes, spaces, non-ASCII letters, and the layout's own column names.
    static let entityNames = [
        "Order", "Select", "Group", "\"Quoted\"", "It's", "With Space", "Naïve", "Ünïcödé", "日本", "Table", "Where",
        "Index", "Ελλάδα", "Item", "From", "Key", "Semi;Colon", "Emoji 🙂", "Person", "Tag",
        // SQLite folds ASCII case in identifiers: these are the same table names as above to SQLite.
        "ORDER", "item", "TAG",
    ]
    static let propertyNames = [
        "order", "select", "group", "\"quoted\"", "it's", "with space", "naïve", "ünïcödé", "日本", "table", "_pk",
        "_entity", "rowid", "value", "from", "where", "x", "a\"b\"c", "semi;colon", "name", "index", "key", "null",
        "default", "check", "ελληνικά", "emoji🙂", "parent", "children", "items", "owner", "tags", "x_position",
        // The same column names to SQLite as some above (ASCII case folds; 'Ü' and 'ü' do not).
        "Name", "VALUE", "Order", "_PK", "ÜNÏCÖDÉ",
    ]
    static let versionNames = ["V1", "Version 1", "Mödel \"1\"", "v1; DROP TABLE x"]
    static let storedTypes: [AttributeType] = [
        .integer16, .integer32, .integer64, .double, .float, .boolean, .string, .binary, .date, .decimal, .uuid,
    ]

    /// Type changes the inference accepts and whose values always fit (no narrowing of integers).
    static let conversions: [AttributeType: [AttributeType]] = [
        .integer16: [.integer32, .integer64, .double, .decimal, .boolean, .float],
        .integer32: [.integer64, .double, .decimal, .boolean],
        .integer64: [.double, .decimal, .boolean],
        .boolean: [.integer16, .integer32, .integer64, .double, .decimal],
        .double: [.integer64, .integer32, .boolean, .float, .decimal],
        .float: [.double, .integer32, .integer64, .boolean],
        .decimal: [.double, .integer64, .boolean],
    ]

    static let dateDefaults = ["0": "2001-01-01T00:00:00.000Z", "86400.5": "2001-01-02T00:00:00.500Z"]

    static func defaults(for type: AttributeType) -> [String] {
        switch type {
        case .integer16: ["0", "-7", "32767", "-32768"]
        case .integer32: ["0", "2147483647", "-5"]
        case .integer64: ["0", "9223372036854775807", "-1"]
        case .double: ["2.5", "-1", "0", "1e3"]
        case .float: ["0.5", "-2"]
        case .decimal: ["1.25", "3", "0"]
        case .boolean: ["YES", "NO", "true", "0"]
        case .string: ["", "it's", "naïve \"q\"", "日本"]
        case .date: Array(dateDefaults.keys).sorted()
        case .uuid: ["6BA7B810-9DAD-11D1-80B4-00C04FD430C8"]
        default: []
        }
    }

    static let strings = [
        "", "it's", "\"quoted\"", "日本語", "naïve", "with\nnewline", "NULL", "'; DROP TABLE x; --", "🙂", "123",
        "  spaced  ", "tab\there",
    ]
    static let doubles: [Double] = [-2.5, 0, 1.5, 0.001, 123_456.789, -1_000_000_000.5, 3, -0.75, 2_000_000_000.25]
    static let floats: [Double] = [-2.5, 0.5, 1024.25, 0, 3]
    static let dates = ["2001-01-01T00:00:00.000Z", "1969-07-20T20:17:40.000Z", "2024-02-29T23:59:59.999Z"]
    static let primaryKeys: [Int64] =
        Array(1...24) + [42, 99, 1000, 65536, 1 << 40, 9_007_199_254_740_993, Int64.max - 1]
}

private enum Generate {
    static func model(_ rng: inout SplitMix64) -> ModelSpec {
        var spec = ModelSpec(name: rng.pick(Pools.versionNames))
        let roots = (0..<rng.int(1...4)).map { _ in
            spec.addEntity(freshEntityName(&rng, avoiding: Set(spec.entities.map(\.name))), parent: nil)
        }
        for root in roots {
            for _ in 0..<rng.int(1...6) { randomAttribute(&rng, on: root, in: &spec, avoiding: spec.scopeNames(root)) }
        }
        for root in roots where rng.chance(0.35) {
            for _ in 0..<(rng.chance(0.3) ? 2 : 1) {
                let sub = spec.addEntity(freshEntityName(&rng, avoiding: Set(spec.entities.map(\.name))), parent: root)
                for _ in 0..<rng.int(0...3) { randomAttribute(&rng, on: sub, in: &spec, avoiding: spec.scopeNames(sub)) }
            }
        }
        for _ in 0..<rng.int(0...3) {
            randomRelationship(&rng, in: &spec, avoiding: { spec, entity in spec.scopeNames(entity) })
        }
        return spec
    }

    static func freshEntityName(_ rng: inout SplitMix64, avoiding used: Set<String>) -> String {
        for name in rng.shuffled(Pools.entityNames) where !used.contains(name) { return name }
        var n = 2
        while used.contains("Entity \"\(n)\"") { n += 1 }
        return "Entity \"\(n)\""
    }

    static func freshPropertyName(_ rng: inout SplitMix64, avoiding used: Set<String>) -> String {
        for name in rng.shuffled(Pools.propertyNames) where !used.contains(name) { return name }
        var n = 2
        while used.contains("prop 'ë\(n)'") { n += 1 }
        return "prop 'ë\(n)'"
    }

    static func randomDefault(_ rng: inout SplitMix64, for type: AttributeType) -> String? {
        let choices = Pools.defaults(for: type)
        return choices.isEmpty ? nil : rng.pick(choices)
    }

    @discardableResult
    static func randomAttribute(
        _ rng: inout SplitMix64, on entity: Int, in spec: inout ModelSpec, avoiding used: Set<String>,
        required: Bool? = nil
    ) -> AttrSpec {
        var type = rng.pick(Pools.storedTypes)
        let optional = required.map { !$0 } ?? rng.chance(0.6)
        if !optional && required == true && Pools.defaults(for: type).isEmpty { type = .string }
        var value: String? = nil
        if required == true || rng.chance(0.3) { value = randomDefault(&rng, for: type) }
        let id = spec.addAttribute(
            to: entity, freshPropertyName(&rng, avoiding: used), type, optional: optional, default: value,
            indexed: rng.chance(0.15))
        return spec.attribute(id)!.attr
    }

    @discardableResult
    static func randomRelationship(
        _ rng: inout SplitMix64, in spec: inout ModelSpec, avoiding used: (ModelSpec, Int) -> Set<String>
    ) -> RelSpec? {
        guard !spec.entities.isEmpty else { return nil }
        let a = rng.pick(spec.entities).id
        let b = rng.pick(spec.entities).id
        let aName = freshPropertyName(&rng, avoiding: used(spec, a))
        let bName = freshPropertyName(&rng, avoiding: used(spec, b).union([aName]))
        let manyToMany = rng.chance(0.3)
        let id = spec.addRelationship(
            a: a, aName, toMany: manyToMany, aOrdered: manyToMany && rng.chance(0.4), b: b, bName,
            bOrdered: rng.chance(0.4))
        return spec.rels.first { $0.id == id }
    }

    // Changes

    enum ChangeKind: CaseIterable {
        case addOptionalAttribute, addRequiredAttributeWithDefault, removeAttribute, renameAttribute
        case changeAttributeType, makeRequiredWithDefault, makeOptional, changeDefault, toggleIndexed
        case addEntity, removeEntity, renameEntity
        case toggleOrdered, toOneToToMany, addRelationship, removeRelationship, renameRelationship
    }

    /// 1–4 random inferable changes applied to a copy of `old`, with their descriptions.
    static func change(_ old: ModelSpec, _ rng: inout SplitMix64) -> (ModelSpec, [String]) {
        var new = old
        new.name = rng.pick(["V2", "Version 2", "Mödel \"2\"", "v2; --"])
        var changes: [String] = []
        let count = rng.int(1...4)
        var attempts = 0
        while changes.count < count && attempts < 50 {
            attempts += 1
            let kind = rng.pick(ChangeKind.allCases)
            if let description = apply(kind, to: &new, old: old, &rng) {
                changes.append("[\(kind)] \(description)")
            }
        }
        return (new, changes)
    }

    /// Names an added property of `entity` must avoid: every name of its hierarchy, before and after, so
    /// that it never matches an older property by name.
    static func addNames(_ entity: Int, new: ModelSpec, old: ModelSpec) -> Set<String> {
        let root = new.root(of: entity)
        return new.hierarchyNames(root: root).union(old.has(root) ? old.hierarchyNames(root: root) : [])
    }

    static func allAttributes(_ spec: ModelSpec) -> [(entity: Int, attr: AttrSpec)] {
        spec.entities.flatMap { e in e.attrs.map { (e.id, $0) } }
    }

    static func apply(_ kind: ChangeKind, to new: inout ModelSpec, old: ModelSpec, _ rng: inout SplitMix64) -> String? {
        switch kind {
        case .addOptionalAttribute, .addRequiredAttributeWithDefault:
            guard !new.entities.isEmpty else { return nil }
            let e = rng.pick(new.entities).id
            let a = randomAttribute(
                &rng, on: e, in: &new, avoiding: addNames(e, new: new, old: old),
                required: kind == .addRequiredAttributeWithDefault ? true : false)
            return "add \(new.name(e)).\(a)"
        case .removeAttribute:
            let all = allAttributes(new)
            guard !all.isEmpty else { return nil }
            let (e, a) = rng.pick(all)
            new.removeAttribute(a.id)
            return "remove \(new.name(e)).\(a.name.debugDescription)"
        case .renameAttribute:
            let all = allAttributes(new)
            guard !all.isEmpty else { return nil }
            let (e, a) = rng.pick(all)
            let name = freshPropertyName(&rng, avoiding: new.scopeNames(e))
            new.renameAttribute(a.id, to: name)
            return "rename \(new.name(e)).\(a.name.debugDescription) → \(name.debugDescription)"
        case .changeAttributeType:
            let all = allAttributes(new).filter { Pools.conversions[$0.attr.type] != nil }
            guard !all.isEmpty else { return nil }
            let (e, a) = rng.pick(all)
            let to = rng.pick(Pools.conversions[a.type]!)
            var value: String? = nil
            if a.defaultValue != nil || !a.optional && rng.chance(0.5) { value = randomDefault(&rng, for: to) }
            new.changeAttribute(a.id) {
                $0.type = to
                $0.defaultValue = value
            }
            return "retype \(new.name(e)).\(a.name.debugDescription): \(a.type.modelFileName) → \(new.attribute(a.id)!.attr)"
        case .makeRequiredWithDefault:
            let all = allAttributes(new).filter { $0.attr.optional && !Pools.defaults(for: $0.attr.type).isEmpty }
            guard !all.isEmpty else { return nil }
            let (e, a) = rng.pick(all)
            let value = a.defaultValue ?? randomDefault(&rng, for: a.type)
            new.changeAttribute(a.id) {
                $0.optional = false
                $0.defaultValue = value
            }
            return "require \(new.name(e)).\(new.attribute(a.id)!.attr)"
        case .makeOptional:
            let all = allAttributes(new).filter { !$0.attr.optional }
            guard !all.isEmpty else { return nil }
            let (e, a) = rng.pick(all)
            new.changeAttribute(a.id) { $0.optional = true }
            return "make optional \(new.name(e)).\(new.attribute(a.id)!.attr)"
        case .changeDefault:
            let all = allAttributes(new).filter { !Pools.defaults(for: $0.attr.type).isEmpty }
            guard !all.isEmpty else { return nil }
            let (e, a) = rng.pick(all)
            let value = rng.chance(0.25) ? nil : randomDefault(&rng, for: a.type)
            guard value != a.defaultValue else { return nil }
            new.changeAttribute(a.id) { $0.defaultValue = value }
            return "default \(new.name(e)).\(new.attribute(a.id)!.attr)"
        case .toggleIndexed:
            let all = allAttributes(new)
            guard !all.isEmpty else { return nil }
            let (e, a) = rng.pick(all)
            new.changeAttribute(a.id) { $0.indexed.toggle() }
            return "index \(new.name(e)).\(new.attribute(a.id)!.attr)"
        case .addEntity:
            let name = freshEntityName(&rng, avoiding: Set(new.entities.map(\.name) + old.entities.map(\.name)))
            let roots = new.entities.filter { $0.parent == nil }
            let parent = !roots.isEmpty && rng.chance(0.5) ? rng.pick(roots).id : nil
            let e = new.addEntity(name, parent: parent)
            for _ in 0..<rng.int(parent == nil ? 1...3 : 0...2) {
                randomAttribute(&rng, on: e, in: &new, avoiding: addNames(e, new: new, old: old))
            }
            return "add entity \(name.debugDescription)" + (parent.map { " under \(new.name($0).debugDescription)" } ?? "")
        case .removeEntity:
            guard !new.entities.isEmpty else { return nil }
            let e = rng.pick(new.entities)
            new.removeEntity(e.id)
            return "remove entity \(e.name.debugDescription)"
        case .renameEntity:
            guard !new.entities.isEmpty else { return nil }
            let e = rng.pick(new.entities)
            let name = freshEntityName(&rng, avoiding: Set(new.entities.map(\.name)))
            new.renameEntity(e.id, to: name)
            return "rename entity \(e.name.debugDescription) → \(name.debugDescription)"
        case .toggleOrdered:
            guard !new.rels.isEmpty else { return nil }
            let r = rng.pick(new.rels)
            if r.aToMany && rng.chance(0.5) {
                new.changeRelationship(r.id) { $0.aOrdered.toggle() }
                return "\(r.aOrdered ? "unorder" : "order") \(new.name(r.a)).\(r.aName.debugDescription)"
            }
            new.changeRelationship(r.id) { $0.bOrdered.toggle() }
            return "\(r.bOrdered ? "unorder" : "order") \(new.name(r.b)).\(r.bName.debugDescription)"
        case .toOneToToMany:
            let candidates = new.rels.filter { !$0.aToMany }
            guard !candidates.isEmpty else { return nil }
            let r = rng.pick(candidates)
            let ordered = rng.chance(0.3)
            new.changeRelationship(r.id) {
                $0.aToMany = true
                $0.aOrdered = ordered
            }
            return "to-many\(ordered ? " ordered" : "") \(new.name(r.a)).\(r.aName.debugDescription)"
        case .addRelationship:
            guard let r = randomRelationship(&rng, in: &new, avoiding: { spec, entity in addNames(entity, new: spec, old: old) }) else {
                return nil
            }
            return "add relationship \(new.name(r.a)).\(r.aName.debugDescription) (\(r.aToMany ? "to-many" : "to-one")) ⇄ \(new.name(r.b)).\(r.bName.debugDescription)"
        case .removeRelationship:
            guard !new.rels.isEmpty else { return nil }
            let r = rng.pick(new.rels)
            new.rels.removeAll { $0.id == r.id }
            return "remove relationship \(new.name(r.a)).\(r.aName.debugDescription) ⇄ \(new.name(r.b)).\(r.bName.debugDescription)"
        case .renameRelationship:
            guard !new.rels.isEmpty else { return nil }
            let r = rng.pick(new.rels)
            if rng.chance(0.5) {
                let name = freshPropertyName(&rng, avoiding: new.scopeNames(r.a))
                new.changeRelationship(r.id) { $0.aName = name }
                return "rename relationship \(new.name(r.a)).\(r.aName.debugDescription) → \(name.debugDescription)"
            }
            let name = freshPropertyName(&rng, avoiding: new.scopeNames(r.b))
            new.changeRelationship(r.id) { $0.bName = name }
            return "rename relationship \(new.name(r.b)).\(r.bName.debugDescription) → \(name.debugDescription)"
        }
    }

    // Rows

    static func value(_ rng: inout SplitMix64, _ type: AttributeType) -> DatabaseValue {
        switch type {
        case .integer16:
            return rng.pick([0, 1, -1, Int64(Int16.max), Int64(Int16.min), 42, -300]).databaseValue
        case .integer32:
            return rng.pick([0, 7, Int64(Int32.max), Int64(Int32.min), -100_000]).databaseValue
        case .integer64:
            return rng.pick([0, -42, Int64.max, Int64.min, (1 << 53) + 1, 1 << 40]).databaseValue
        case .boolean:
            return Int64(rng.below(2)).databaseValue
        case .double:
            return rng.pick(Pools.doubles).databaseValue
        case .float:
            return rng.pick(Pools.floats).databaseValue
        case .decimal:
            return rng.pick([(2.5).databaseValue, (3.0).databaseValue, Int64(7).databaseValue, (-0.125).databaseValue])
        case .string:
            return rng.pick(Pools.strings).databaseValue
        case .binary:
            switch rng.below(4) {
            case 0: return Data().databaseValue
            case 1: return Data([0, 1, 2, 255]).databaseValue
            case 2: return Data("it's \"bytes\"".utf8).databaseValue
            default: return Data((0..<rng.int(1...16)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }).databaseValue
            }
        case .date:
            return rng.pick(Pools.dates).databaseValue
        case .uuid:
            let hex = String(format: "%016llX%016llX", rng.next(), rng.next())
            let c = Array(hex)
            return [String(c[0..<8]), String(c[8..<12]), String(c[12..<16]), String(c[16..<20]), String(c[20..<32])]
                .joined(separator: "-").databaseValue
        default:
            return .null
        }
    }

    static func rows(_ spec: ModelSpec, _ rng: inout SplitMix64, perEntity: ClosedRange<Int>? = nil) -> StoreData {
        var data = StoreData()
        for root in spec.entities where root.parent == nil {
            var keys = rng.shuffled(Pools.primaryKeys)
            for e in [root.id] + spec.descendants(root.id) {
                let count = perEntity.map { rng.int($0) } ?? (rng.chance(0.15) ? 0 : rng.int(1...5))
                for _ in 0..<count {
                    var row = RowData(pk: keys.removeLast(), entity: e, values: [:])
                    for a in spec.resolvedAttrs(of: e) {
                        row.values[a.id] = a.optional && rng.chance(0.3) ? .null : value(&rng, a.type)
                    }
                    data.rows[root.id, default: []].append(row)
                }
            }
        }
        for r in spec.rels {
            let aRows = data.rows(ofKind: r.a, in: spec)
            let bRows = data.rows(ofKind: r.b, in: spec)
            if !r.aToMany {
                var fk: [Int64: Int64] = [:]
                for a in aRows where !bRows.isEmpty && rng.chance(0.7) { fk[a] = rng.pick(bRows) }
                data.fk[r.id] = fk
                if r.bOrdered {
                    var positions: [Int64: Int64] = [:]
                    for b in Set(fk.values) {
                        let members = rng.shuffled(fk.filter { $0.value == b }.map(\.key).sorted())
                        for (i, a) in members.enumerated() { positions[a] = Int64(i + 1) }
                    }
                    data.fkPosition[r.id] = positions
                }
            } else {
                var links: [Link] = []
                for a in aRows {
                    for b in bRows where rng.chance(0.4) { links.append(Link(a: a, b: b)) }
                }
                if r.aOrdered {
                    for a in Set(links.map(\.a)) {
                        let indices = rng.shuffled(links.indices.filter { links[$0].a == a })
                        for (p, i) in indices.enumerated() { links[i].aPosition = Int64(p + 1) }
                    }
                }
                if r.bOrdered {
                    for b in Set(links.map(\.b)) {
                        let indices = rng.shuffled(links.indices.filter { links[$0].b == b })
                        for (p, i) in indices.enumerated() { links[i].bPosition = Int64(p + 1) }
                    }
                }
                data.links[r.id] = links
            }
        }
        return data
    }
}

// MARK: - Stored data

private struct RowData {
    var pk: Int64
    var entity: Int
    /// Attribute id → value, as SQLite stored it (read back after insertion).
    var values: [Int: DatabaseValue]
}

private struct Link: Hashable {
    var a: Int64
    var b: Int64
    /// Position of b in a's ordered list, and of a in b's.
    var aPosition: Int64? = nil
    var bPosition: Int64? = nil
}

private struct StoreData {
    /// Root entity id → rows of its table.
    var rows: [Int: [RowData]] = [:]
    /// Relationship id → A row → B row, for to-one `A.aName`.
    var fk: [Int: [Int64: Int64]] = [:]
    /// Relationship id → A row → its position in B's ordered `bName`.
    var fkPosition: [Int: [Int64: Int64]] = [:]
    /// Relationship id → links, for many-to-many.
    var links: [Int: [Link]] = [:]

    func rows(ofKind entity: Int, in spec: ModelSpec) -> [Int64] {
        (rows[spec.root(of: entity)] ?? []).filter { spec.isKind($0.entity, of: entity) }.map(\.pk)
    }

    func row(_ pk: Int64, root: Int) -> RowData? { rows[root]?.first { $0.pk == pk } }

    /// The logical links of a relationship of `spec`, with positions where they were ordered.
    func logicalLinks(_ r: RelSpec) -> [Link] {
        if r.aToMany { return links[r.id] ?? [] }
        return (fk[r.id] ?? [:]).map { Link(a: $0.key, b: $0.value, bPosition: fkPosition[r.id]?[$0.key]) }
    }
}

private func q(_ name: String) -> String { SQLIdentifier.quoted(name) }

// MARK: - One case: generate, store, migrate, compare

private struct CaseReport: CustomStringConvertible {
    var seed: UInt64
    var path: String
    var oldJSON = ""
    var newJSON = ""
    var changes: [String] = []
    var statements: [String] = []
    var problems: [String] = []
    var data = StoreData()
    var checkedCells = 0
    var checkedLinks = 0
    var checkedOrders = 0
    var treatments: [String: Int] = [:]

    var description: String {
        var text = "seed \(seed) (replay: INSTAR_PROPERTY_SEED=\(seed) swift test --filter StoreMigrationProperty)\n"
        text += "changes:\n  " + changes.joined(separator: "\n  ") + "\n"
        text += "old model: \(oldJSON)\nnew model: \(newJSON)\n"
        if !statements.isEmpty { text += "step SQL:\n  " + statements.joined(separator: "\n  ") + "\n" }
        let shown = problems.prefix(25)
        text += "problems (\(problems.count)):\n  " + shown.joined(separator: "\n  ")
        return text
    }
}

private enum PropertyCase {
    static func run(seed: UInt64, in dir: URL) -> CaseReport {
        var rng = SplitMix64(seed: seed)
        let old = Generate.model(&rng)
        var attempt = 0
        while true {
            attempt += 1
            let (new, changes) = Generate.change(old, &rng)
            let oldModel: Model
            let newModel: Model
            do {
                oldModel = try old.build(relativeTo: nil)
                newModel = try new.build(relativeTo: old)
            } catch {
                var report = CaseReport(seed: seed, path: "")
                report.changes = changes
                report.problems = ["the generator made an invalid model: \(error)"]
                return report
            }
            let diff = ModelDiff(from: oldModel, to: newModel)
            if !diff.isInferable || !diff.conditions.isEmpty {
                // The generator only makes inferable changes; say so if the inference disagrees.
                if attempt < 20 { continue }
                var report = CaseReport(seed: seed, path: "")
                report.changes = changes
                report.problems = diff.blockingChanges.map { "not inferable: \($0.subject): \($0.verdict.reason)" }
                return report
            }
            return run(old: old, new: new, changes: changes, seed: seed, rng: &rng, in: dir)
        }
    }

    static func run(
        old: ModelSpec, new: ModelSpec, changes: [String], seed: UInt64, rng: inout SplitMix64, in dir: URL,
        rowsPerEntity: ClosedRange<Int>? = nil
    ) -> CaseReport {
        let path = dir.appendingPathComponent("seed-\(seed)-\(UUID().uuidString).sqlite").path
        var report = CaseReport(seed: seed, path: path)
        report.changes = changes
        do {
            let oldModel = try old.build(relativeTo: nil)
            let newModel = try new.build(relativeTo: old)
            report.oldJSON = ModelFileWriter.json(oldModel)
            report.newJSON = ModelFileWriter.json(newModel)
            let layout = InstarLayout()
            let oldMap = try layout.storageMap(for: oldModel)
            let newMap = try layout.storageMap(for: newModel)
            let store = try SQLiteStore.create(at: path, model: oldModel)
            defer { try? store.close() }
            var data = Generate.rows(old, &rng, perEntity: rowsPerEntity)
            try store.withDatabase { db in
                try insert(&data, spec: old, map: oldMap, db: db)
            }
            report.data = data
            do {
                let outcome = try store.migrate(from: oldModel, to: newModel)
                report.statements = outcome.plan.statements.map(\.description)
                for treatment in outcome.plan.tables.values {
                    let kind: String
                    switch treatment {
                    case .altered: kind = "altered"
                    case .rebuilt: kind = "rebuilt"
                    case .created: kind = "created"
                    case .dropped: kind = "dropped"
                    }
                    report.treatments[kind, default: 0] += 1
                }
            } catch {
                if let (_, plan) = try? store.planStep(from: oldModel, to: newModel) {
                    report.statements = plan.statements.map(\.description)
                    report.statements += plan.tables.sorted { $0.key < $1.key }.map { "-- \($0.key): \($0.value)" }
                }
                report.problems.append("migration failed: \(error)")
                return report
            }
            var oracle = Oracle(old: old, new: new, newModel: newModel, newMap: newMap, data: data)
            try store.withDatabase { db in try oracle.check(db) }
            report.problems += oracle.problems
            report.checkedCells = oracle.cells
            report.checkedLinks = oracle.links
            report.checkedOrders = oracle.orders
            if store.layout.name != "instar" { report.problems.append("layout \(store.layout.name)") }
            let metadata = try store.metadata()
            if metadata?.versionName != newModel.name {
                report.problems.append("metadata version is \(metadata?.versionName ?? "nil"), expected \(newModel.name)")
            }
            if metadata?.entityHashes != VersionHashes(model: newModel).entityHashes {
                report.problems.append("metadata entity hashes are not those of \(newModel.name)")
            }
            let detected = try store.detectVersion(among: [oldModel, newModel])
            if detected.version?.name != newModel.name || !detected.isExactMatch {
                report.problems.append("the store is detected as \(detected.version?.name ?? "no version"), drift \(detected.drift)")
            }
        } catch {
            report.problems.append("error: \(error)")
        }
        return report
    }

    /// Inserts the rows, links and positions, then reads the attribute values back as SQLite stored
    /// them (affinity may turn 3.0 into 3 in a NUMERIC column).
    static func insert(_ data: inout StoreData, spec: ModelSpec, map: StorageMap, db: Database) throws {
        for (root, rows) in data.rows {
            for row in rows {
                let name = spec.name(row.entity)
                let storage = map.entities[name]!
                var columns = [InstarLayout.primaryKey]
                var values: [DatabaseValue] = [row.pk.databaseValue]
                if let discriminator = map.entityTables[storage.table]!.discriminator {
                    columns.append(discriminator)
                    values.append(name.databaseValue)
                }
                for a in spec.resolvedAttrs(of: row.entity) {
                    columns.append(storage.columns[a.name]!)
                    values.append(row.values[a.id] ?? .null)
                }
                for r in spec.rels where !r.aToMany && spec.isKind(row.entity, of: r.a) {
                    columns.append(storage.columns[r.aName]!)
                    values.append(data.fk[r.id]?[row.pk]?.databaseValue ?? .null)
                    if r.bOrdered, case .inverseForeignKey(_, let position?)? =
                        map.relationships[RelationshipKey(entity: spec.name(r.b), name: r.bName)]
                    {
                        columns.append(position)
                        values.append(data.fkPosition[r.id]?[row.pk]?.databaseValue ?? .null)
                    }
                }
                try db.execute(
                    sql: "INSERT INTO \(q(storage.table)) (\(columns.map(q).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                    arguments: StatementArguments(values))
            }
            // Read the stored forms back.
            let table = map.entities[spec.name(root)]!.table
            for i in data.rows[root]!.indices {
                let row = data.rows[root]![i]
                let storage = map.entities[spec.name(row.entity)]!
                for a in spec.resolvedAttrs(of: row.entity) {
                    let stored = try DatabaseValue.fetchOne(
                        db, sql: "SELECT \(q(storage.columns[a.name]!)) FROM \(q(table)) WHERE \(q(InstarLayout.primaryKey)) = ?",
                        arguments: [row.pk])
                    data.rows[root]![i].values[a.id] = stored ?? .null
                }
            }
        }
        for r in spec.rels where r.aToMany {
            guard case .joinTable(let table, let owner, let destination, let aPosition)? =
                map.relationships[RelationshipKey(entity: spec.name(r.a), name: r.aName)],
                case .joinTable(_, _, _, let bPosition)? =
                    map.relationships[RelationshipKey(entity: spec.name(r.b), name: r.bName)]
            else { throw OracleError("no join table for relationship \(r.aName) in the old layout") }
            for link in data.links[r.id] ?? [] {
                var columns = [owner, destination]
                var values = [link.a.databaseValue, link.b.databaseValue]
                if let aPosition {
                    columns.append(aPosition)
                    values.append(link.aPosition?.databaseValue ?? .null)
                }
                if let bPosition {
                    columns.append(bPosition)
                    values.append(link.bPosition?.databaseValue ?? .null)
                }
                try db.execute(
                    sql: "INSERT INTO \(q(table)) (\(columns.map(q).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                    arguments: StatementArguments(values))
            }
        }
        if let violation = try db.foreignKeyViolations().next() {
            throw OracleError("the generated rows break a foreign key: \(violation)")
        }
    }
}

private struct OracleError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - The oracle

/// Computes what the store must hold after the step, from the generated rows and the meaning of each
/// change, and compares it with what the store holds.
private struct Oracle {
    let old: ModelSpec
    let new: ModelSpec
    let newModel: Model
    let newMap: StorageMap
    let data: StoreData
    var problems: [String] = []
    var cells = 0
    var links = 0
    var orders = 0

    init(old: ModelSpec, new: ModelSpec, newModel: Model, newMap: StorageMap, data: StoreData) {
        self.old = old
        self.new = new
        self.newModel = newModel
        self.newMap = newMap
        self.data = data
    }

    mutating func fail(_ message: String) { problems.append(message) }

    /// A row survives when its entity does (hierarchies never change in these steps, so kinds are kept).
    func survives(_ pk: Int64, root: Int) -> Bool {
        guard let row = data.row(pk, root: root) else { return false }
        return new.has(row.entity)
    }

    mutating func check(_ db: Database) throws {
        // 1. The schema is exactly the new version's.
        let actual = try SchemaReader.read(db, skipping: { $0.hasPrefix("_instar_") })
        for difference in SchemaComparison.differences(expected: newMap.schema, actual: actual) {
            fail("schema: \(difference)")
        }

        // 2. Entity rows: which rows, and every column of their entity.
        struct Expected {
            var entity: String
            var columns: [String: (value: DatabaseValue, what: String)]
        }
        var expected: [String: [Int64: Expected]] = [:]
        var lenient: [String: [Int64: [String: [DatabaseValue]]]] = [:]
        for table in newMap.entityTables.keys { expected[table] = [:] }
        for (_, rows) in data.rows {
            for row in rows {
                guard let entity = new.entity(row.entity) else { continue }
                let storage = newMap.entities[entity.name]!
                var columns: [String: (DatabaseValue, String)] = [:]
                if let discriminator = newMap.entityTables[storage.table]!.discriminator {
                    columns[discriminator] = (entity.name.databaseValue, "discriminator")
                }
                let before = Dictionary(uniqueKeysWithValues: old.resolvedAttrs(of: row.entity).map { ($0.id, $0) })
                for a in new.resolvedAttrs(of: row.entity) {
                    let column = storage.columns[a.name]!
                    var value: DatabaseValue
                    var what = "\(entity.name).\(a.name)"
                    if let o = before[a.id] {
                        value = Self.convert(row.values[a.id] ?? .null, from: o.type, to: a.type)
                        if value.isNull && !a.optional { value = Self.storedDefault(a) }
                        what += " (was \(o.name) \(o.type.modelFileName) \(String(describing: (row.values[a.id] ?? .null).storage)))"
                    } else {
                        value = Self.storedDefault(a)
                        what += " (new)"
                    }
                    columns[column] = (Self.affinity(value, declaredType: declaredType(storage.table, column)), what)
                }
                for r in new.rels where !r.aToMany && new.isKind(row.entity, of: r.a) {
                    // The link is kept when the relationship existed and its destination row survives.
                    var link = DatabaseValue.null
                    if let o = old.rels.first(where: { $0.id == r.id }), !o.aToMany,
                        let b = data.fk[o.id]?[row.pk], survives(b, root: old.root(of: o.b))
                    {
                        link = b.databaseValue
                    }
                    columns[storage.columns[r.aName]!] = (link, "\(entity.name).\(r.aName) (link)")
                    if r.bOrdered, link.isNull, let position = positionColumn(r) {
                        columns[position] = (.null, "\(entity.name): position in \(r.bName) of an unlinked row")
                    }
                }
                expected[storage.table]![row.pk] = Expected(entity: entity.name, columns: columns)
            }
        }
        // Cells of attributes the row's entity does not have (a sibling's or a sub-entity's) hold no data:
        // NULL, or the column's default (SQLite fills it on ADD COLUMN and on insert), or an older default
        // carried along and converted. Anything else is a value that leaked or was not removed.
        for e in new.entities {
            let storage = newMap.entities[e.name]!
            for a in e.attrs {
                let column = storage.columns[a.name]!
                let type = declaredType(storage.table, column)
                var allowed = [DatabaseValue.null, Self.affinity(Self.storedDefault(a), declaredType: type)]
                if let (_, o) = old.attribute(a.id) {
                    allowed.append(Self.affinity(Self.convert(Self.storedDefault(o), from: o.type, to: a.type), declaredType: type))
                }
                for (pk, row) in expected[storage.table] ?? [:] where row.columns[column] == nil {
                    expected[storage.table]![pk]!.columns[column] = (
                        .null, "\(row.entity): \(e.name).\(a.name) is not its attribute; allowed \(allowed.map { String(describing: $0.storage) })"
                    )
                    lenient[storage.table, default: [:]][pk, default: [:]][column] = allowed
                }
            }
        }
        // Rows of other entities sharing a table hold no link in a to-one they do not have.
        for r in new.rels where !r.aToMany {
            let storage = newMap.entities[new.name(r.a)]!
            let column = storage.columns[r.aName]!
            for (pk, row) in expected[storage.table] ?? [:] where row.columns[column] == nil {
                expected[storage.table]![pk]!.columns[column] = (.null, "\(row.entity): \(r.aName) of another entity")
            }
        }
        for (table, rows) in expected.sorted(by: { $0.key < $1.key }) {
            let definition = newMap.schema.table(named: table)!
            let names = definition.columns.map(\.name)
            var actualRows: [Int64: [String: DatabaseValue]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT \(names.map(q).joined(separator: ", ")) FROM \(q(table))") {
                let values = Array(row.databaseValues)
                let pk = Int64.fromDatabaseValue(values[names.firstIndex(of: InstarLayout.primaryKey)!])!
                actualRows[pk] = Dictionary(uniqueKeysWithValues: zip(names, values))
            }
            let missing = Set(rows.keys).subtracting(actualRows.keys).sorted()
            let extra = Set(actualRows.keys).subtracting(rows.keys).sorted()
            if !missing.isEmpty { fail("table \(table.debugDescription): rows \(missing) are missing") }
            if !extra.isEmpty { fail("table \(table.debugDescription): rows \(extra) should not exist") }
            for (pk, row) in rows.sorted(by: { $0.key < $1.key }) {
                guard let actual = actualRows[pk] else { continue }
                for (column, want) in row.columns.sorted(by: { $0.key < $1.key }) {
                    cells += 1
                    let got = actual[column] ?? .null
                    if let allowed = lenient[table]?[pk]?[column] {
                        if !allowed.contains(where: { Self.same($0, got) }) {
                            fail("table \(table.debugDescription) row \(pk) column \(column.debugDescription): \(String(describing: got.storage)) — \(want.what)")
                        }
                    } else if !Self.same(got, want.value) {
                        fail(
                            "table \(table.debugDescription) row \(pk) column \(column.debugDescription): \(String(describing: got.storage)), expected \(String(describing: want.value.storage)) — \(want.what)"
                        )
                    }
                }
            }
        }

        // 3. Links, and the order of ordered relationships.
        for r in new.rels {
            try checkLinks(r, db)
        }
    }

    func declaredType(_ table: String, _ column: String) -> String {
        newMap.schema.table(named: table)?.column(named: column)?.declaredType ?? ""
    }

    func positionColumn(_ r: RelSpec) -> String? {
        if case .inverseForeignKey(_, let position)? = newMap.relationships[RelationshipKey(entity: new.name(r.b), name: r.bName)] {
            return position
        }
        return nil
    }

    mutating func checkLinks(_ r: RelSpec, _ db: Database) throws {
        let label = "\(new.name(r.a)).\(r.aName) ⇄ \(new.name(r.b)).\(r.bName)"
        // Expected: the old links whose two rows survive.
        var expected: [Link] = []
        if let o = old.rels.first(where: { $0.id == r.id }) {
            expected = data.logicalLinks(o).filter {
                survives($0.a, root: old.root(of: o.a)) && survives($0.b, root: old.root(of: o.b))
            }
        }
        // Actual.
        var actual: [Link] = []
        if !r.aToMany {
            let storage = newMap.entities[new.name(r.a)]!
            let fk = storage.columns[r.aName]!
            let position = r.bOrdered ? positionColumn(r) : nil
            if r.bOrdered && position == nil { fail("\(label): no position column for the ordered side") }
            let sql = "SELECT \(q(InstarLayout.primaryKey)), \(q(fk))\(position.map { ", " + q($0) } ?? "") FROM \(q(storage.table)) WHERE \(q(fk)) IS NOT NULL"
            for row in try Row.fetchAll(db, sql: sql) {
                var link = Link(a: row[0], b: row[1])
                if position != nil { link.bPosition = row[2] }
                actual.append(link)
            }
        } else {
            guard case .joinTable(let table, let owner, let destination, let aPosition)? =
                newMap.relationships[RelationshipKey(entity: new.name(r.a), name: r.aName)],
                case .joinTable(let table2, _, _, let bPosition)? =
                    newMap.relationships[RelationshipKey(entity: new.name(r.b), name: r.bName)], table == table2
            else {
                fail("\(label): the new layout has no join table")
                return
            }
            let columns = [owner, destination] + [aPosition, bPosition].compactMap { $0 }
            for row in try Row.fetchAll(db, sql: "SELECT \(columns.map(q).joined(separator: ", ")) FROM \(q(table))") {
                var link = Link(a: row[0], b: row[1])
                var i = 2
                if aPosition != nil {
                    link.aPosition = row[i]
                    i += 1
                }
                if bPosition != nil { link.bPosition = row[i] }
                actual.append(link)
            }
        }
        let want = Set(expected.map { [$0.a, $0.b] })
        let got = Set(actual.map { [$0.a, $0.b] })
        links += want.count
        if want != got {
            let missing = want.subtracting(got).sorted { $0.lexicographicallyPrecedes($1) }
            let extra = got.subtracting(want).sorted { $0.lexicographicallyPrecedes($1) }
            fail("\(label): links missing \(missing), unexpected \(extra)")
            return
        }
        let oldRel = old.rels.first { $0.id == r.id }
        // The order of A rows in each B's list.
        if r.bOrdered {
            let keptOrder = oldRel?.bOrdered == true
            checkOrder(
                "\(label): order of \(new.name(r.b)).\(r.bName)", expected: expected, actual: actual,
                owner: \.b, member: \.a, position: \.bPosition, keptOrder: keptOrder)
        }
        if r.aToMany && r.aOrdered {
            let keptOrder = oldRel.map { $0.aToMany && $0.aOrdered } ?? false
            checkOrder(
                "\(label): order of \(new.name(r.a)).\(r.aName)", expected: expected, actual: actual,
                owner: \.a, member: \.b, position: \.aPosition, keptOrder: keptOrder)
        }
    }

    /// Each owner's list, by position: the old order when the relationship was ordered before, else
    /// primary-key order ("existing links get positions in their current stored order").
    mutating func checkOrder(
        _ label: String, expected: [Link], actual: [Link], owner: KeyPath<Link, Int64>, member: KeyPath<Link, Int64>,
        position: KeyPath<Link, Int64?>, keptOrder: Bool
    ) {
        func lists(_ links: [Link], byPosition: Bool) -> [Int64: [Int64]] {
            var result: [Int64: [Link]] = [:]
            for link in links { result[link[keyPath: owner], default: []].append(link) }
            return result.mapValues { group in
                group.sorted { x, y in
                    if byPosition {
                        let px = x[keyPath: position] ?? Int64.max
                        let py = y[keyPath: position] ?? Int64.max
                        if px != py { return px < py }
                    }
                    return x[keyPath: member] < y[keyPath: member]
                }.map { $0[keyPath: member] }
            }
        }
        if let unpositioned = actual.first(where: { $0[keyPath: position] == nil }) {
            fail("\(label): link \(unpositioned.a) → \(unpositioned.b) has no position")
        }
        let want = lists(expected, byPosition: keptOrder)
        let got = lists(actual, byPosition: true)
        orders += want.values.filter { $0.count > 1 }.count
        for (o, list) in want.sorted(by: { $0.key < $1.key }) where got[o] != list {
            fail("\(label): owner \(o) lists \(got[o] ?? []), expected \(list)\(keptOrder ? " (the old order)" : " (primary-key order)")")
        }
    }

    // Value semantics, independent of Instar's compiler.

    /// Core Data's conversions between numbers and Booleans, as SQLite evaluates them.
    static func convert(_ value: DatabaseValue, from: AttributeType, to: AttributeType) -> DatabaseValue {
        if value.isNull || from == to { return value }
        switch (to, value.storage) {
        case (.boolean, .int64(let i)): return Int64(i != 0 ? 1 : 0).databaseValue
        case (.boolean, .double(let d)): return Int64(d != 0 ? 1 : 0).databaseValue
        case (.integer16, .double(let d)), (.integer32, .double(let d)), (.integer64, .double(let d)):
            return Int64(d.rounded(.towardZero)).databaseValue  // CAST(x AS INTEGER) truncates
        case (.double, .int64(let i)), (.float, .int64(let i)): return Double(i).databaseValue
        default: return value  // integer → integer, real → real, anything → NUMERIC (a no-op cast)
        }
    }

    /// What SQLite stores for `value` in a column of this declared type (its type affinity).
    static func affinity(_ value: DatabaseValue, declaredType: String) -> DatabaseValue {
        switch (declaredType.uppercased(), value.storage) {
        case ("INTEGER", .double(let d)), ("NUMERIC", .double(let d)):
            // A REAL that is exactly an integer (within ±2^51, SQLite's bound) is stored as INTEGER.
            if d == d.rounded(), abs(d) < 2_251_799_813_685_248 { return Int64(d).databaseValue }
        case ("REAL", .int64(let i)):
            return Double(i).databaseValue
        default: break
        }
        return value
    }

    /// The value a row gets from the attribute's default, in the Instar layout's storage conventions
    /// (README: dates as ISO-8601 text in UTC, Booleans as 0/1).
    static func storedDefault(_ a: AttrSpec) -> DatabaseValue {
        guard let text = a.defaultValue else { return .null }
        switch a.type {
        case .integer16, .integer32, .integer64: return Int64(text)!.databaseValue
        case .double, .float, .decimal: return Double(text)!.databaseValue
        case .boolean: return Int64(["yes", "true", "1"].contains(text.lowercased()) ? 1 : 0).databaseValue
        case .date: return Pools.dateDefaults[text]!.databaseValue
        default: return text.databaseValue
        }
    }

    /// Same storage class and same value (GRDB's `==` would equate 1 and 1.0).
    static func same(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool {
        switch (a.storage, b.storage) {
        case (.null, .null): true
        case (.int64(let x), .int64(let y)): x == y
        case (.double(let x), .double(let y)): x == y || (x.isNaN && y.isNaN)
        case (.string(let x), .string(let y)): x.utf8.elementsEqual(y.utf8)
        case (.blob(let x), .blob(let y)): x == y
        default: false
        }
    }
}

// MARK: - Fusion

/// Fused and unfused execution of the same random chain produce identical stores: every table's rows
/// (sorted, with their storage classes) and the schema. Fusion must only ever save work.
@Suite struct FusionPropertyTests {
    /// With `withHooks`, an SQL hook runs at a random version of the chain: it reads random columns of
    /// one table and writes what it read into a text column of another (or the same) table, so a rebuild
    /// or an index wrongly moved past it (``TransactionPlan``) would show in the digest.
    @Test(arguments: [false, true])
    func fusedChainsEqualStepByStepChains(withHooks: Bool) throws {
        let dir = try storeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let seeds = ProcessInfo.processInfo.environment["INSTAR_FUSION_SEEDS"].flatMap(UInt64.init) ?? 60
        var compared = 0
        var fusedAway = 0
        var movedWork = 0
        var failures: [String] = []
        // INSTAR_FUSION_ONLY=<seed> replays one chain (the checks on the number compared then fail).
        let only = ProcessInfo.processInfo.environment["INSTAR_FUSION_ONLY"].flatMap(UInt64.init)
        // Seeds that once failed stay in every run: 897 (an entity renamed twice lost its rows to a new
        // entity reusing its first name) and 1304 (positions numbered before links to removed rows went).
        let regressions: [UInt64] = [897, 1304].filter { $0 >= seeds }
        for seed in Array(0..<seeds) + regressions where only == nil || only == seed {
            var rng = SplitMix64(seed: 0xF05E + seed)
            var specs = [Generate.model(&rng)]
            // Three successive inferable changes without data conditions.
            for _ in 0..<3 {
                var found: ModelSpec?
                for _ in 0..<20 {
                    let (next, _) = Generate.change(specs.last!, &rng)
                    guard let a = try? specs.last!.build(relativeTo: specs.count > 1 ? specs[specs.count - 2] : nil),
                        let b = try? next.build(relativeTo: specs.last!)
                    else { continue }
                    let diff = ModelDiff(from: a, to: b)
                    if diff.isInferable && diff.conditions.isEmpty {
                        found = next
                        break
                    }
                }
                guard let next = found else { break }
                specs.append(next)
            }
            guard specs.count >= 3 else { continue }
            var models: [Model] = []
            for (i, spec) in specs.enumerated() {
                var named = spec
                named.name = "Version \(i + 1)"
                guard let built = try? named.build(relativeTo: i > 0 ? specs[i - 1] : nil) else { break }
                models.append(built)
            }
            guard models.count == specs.count else { continue }
            var data = Generate.rows(specs[0], &rng, perEntity: 2...6)
            let base = dir.appendingPathComponent("fusion-\(seed)-\(withHooks)-base.sqlite").path
            let created = try SQLiteStore.create(at: base, model: models[0])
            try created.withDatabase { db in
                try PropertyCase.insert(&data, spec: specs[0], map: InstarLayout().storageMap(for: models[0]), db: db)
            }
            try created.close()
            var hooks: [Int: [InlineHook]] = [:]
            if withHooks, let hook = try Self.readingHook(at: 1 + rng.below(models.count - 1), of: models, &rng) {
                hooks = hook
            }
            var digests: [String] = []
            var fusedSteps = 0
            for fuse in [true, false] {
                let path = dir.appendingPathComponent("fusion-\(seed)-\(fuse)-\(withHooks).sqlite").path
                try FileManager.default.copyItem(atPath: base, toPath: path)
                let store = try SQLiteStore.open(at: path)
                do {
                    let outcome = try store.migrate(through: models, fuse: fuse, hooks: hooks)
                    if fuse, withHooks {
                        let plan = try TransactionPlan.make(versions: models, hooks: hooks, layout: InstarLayout(), fuse: true)
                        movedWork += plan.moves.reduce(0) { $0 + $1.work.tables.count + $1.work.indexes.count }
                    }
                    if fuse { fusedSteps = outcome.fusedSteps }
                    digests.append(try StoreContent.digest(store))
                } catch {
                    digests.append("error: \(error)")
                }
                try store.close()
            }
            compared += 1
            fusedAway += fusedSteps
            if digests[0] != digests[1] {
                failures.append("seed \(seed): fused and step-by-step stores differ\n--- fused\n\(digests[0].prefix(3000))\n--- stepwise\n\(digests[1].prefix(3000))")
            }
        }
        print("Fusion\(withHooks ? " with hooks" : ""): \(compared) chains compared, \(fusedAway) steps fused away, \(movedWork) rebuilds or indexes moved past a hook")
        #expect(failures.isEmpty, Comment(rawValue: failures.prefix(2).joined(separator: "\n\n")))
        #expect(compared >= seeds / 2 && fusedAway > 0)
        if withHooks { #expect(movedWork > 0) }
    }

    /// A hook at `position`: reads 1–3 random columns of a random table and stores them, quoted and
    /// in row order, in a nullable text column of a random table (the same one or another).
    fileprivate static func readingHook(at position: Int, of models: [Model], _ rng: inout SplitMix64) throws -> [Int: [InlineHook]]? {
        let schema = try InstarLayout().storageMap(for: models[position]).schema
        let targets = schema.tables.flatMap { table in
            table.columns.filter { $0.declaredType == "TEXT" && !$0.notNull && !$0.isPrimaryKey && $0.references == nil }
                .map { (table.name, $0.name) }
        }
        guard !targets.isEmpty, !schema.tables.isEmpty else { return nil }
        let source = schema.tables[rng.below(schema.tables.count)]
        var columns: [String] = []
        for _ in 0..<(1 + rng.below(3)) {
            let column = source.columns[rng.below(source.columns.count)].name
            if !columns.contains(column) { columns.append(column) }
        }
        let (table, column) = targets[rng.below(targets.count)]
        let values = columns.map { "quote(\(SQLIdentifier.quoted($0)))" }.joined(separator: " || '|' || ")
        let sql = """
            UPDATE \(SQLIdentifier.quoted(table)) SET \(SQLIdentifier.quoted(column)) = (SELECT group_concat(v, ',') FROM (SELECT \(values) AS v FROM \(SQLIdentifier.quoted(source.name)) ORDER BY rowid))
            """
        return [position: [InlineHook(name: "reader", statements: [sql]) { db in try db.execute(sql: sql) }]]
    }
}
