import Foundation
import GRDB
@_spi(Layouts) import Instar
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport

/// Synthesized decompositions: each recipe's shape (A → A′ and A′ → A″ inferable, A″ hashing like B)
/// and, end to end, that the scaffolded chain migrates the data of a real store correctly.
@Suite struct DecompositionTests {
    let decomposer = Decomposer(layout: InstarLayout())

    func yaml(_ name: String, _ entities: String) throws -> Model {
        try model("name: \(name)\nentities:\n" + entities, name: name)
    }

    /// The invariants every mechanical proposal must keep.
    func checkShape(_ d: Decomposition, _ a: Model, _ b: Model, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let intermediate = try #require(d.intermediate, sourceLocation: sourceLocation)
        let final = d.final ?? b
        #expect(intermediate.name == "\(a.name) (prepare \(b.name))", sourceLocation: sourceLocation)
        #expect(ModelDiff(from: a, to: intermediate).isInferable, sourceLocation: sourceLocation)
        #expect(ModelDiff(from: intermediate, to: final).isInferable, sourceLocation: sourceLocation)
        // Renaming identifiers are not hashed: A″ is version B.
        #expect(VersionHashes(model: final) == VersionHashes(model: b), sourceLocation: sourceLocation)
        #expect(final.name == b.name, sourceLocation: sourceLocation)
        #expect(d.steps.map(\.kind) == [.synthesized, .synthesized], sourceLocation: sourceLocation)
        #expect(d.steps.allSatisfy { $0.isInferable }, sourceLocation: sourceLocation)
        #expect(d.versions == [a.name, intermediate.name, b.name], sourceLocation: sourceLocation)
        #expect(d.notes.isEmpty, "\(d.notes)", sourceLocation: sourceLocation)
        #expect(d.isComplete, sourceLocation: sourceLocation)
        // Without the proposal there is no chain: that is why it exists.
        #expect(!ModelDiff(from: a, to: b).isInferable, sourceLocation: sourceLocation)
    }

    /// Runs the proposed chain on a store of `a` filled by `fill`; `edit` may rewrite template hooks.
    func migrate(
        _ d: Decomposition, from a: Model, fill: (StoreFixture) throws -> Void,
        edit: (String, [String]) -> [String] = { _, sql in sql }
    ) throws -> StoreFixture {
        let fixture = try StoreFixture(a)
        try fill(fixture)
        var hooks: [String: HookDefinition] = [:]
        for hook in d.hooks {
            guard case .sql(let statements) = hook.definition else { continue }
            hooks[hook.name] = .sql(edit(hook.name, statements))
        }
        let plan = Plan(
            name: "p", file: fixture.directory.appendingPathComponent("plan.yaml").path, versions: d.models(from: a),
            stages: d.stages, hooks: hooks)
        try Migrator(plan: plan).migrate(storeAt: fixture.path)
        return fixture
    }

    /// Counts a risk on the store as the dry run does.
    func count(_ risk: Decomposition.Risk, in fixture: StoreFixture) throws -> Int? {
        guard let sql = risk.countSQL else { return nil }
        return try fixture.store.withDatabase { db in try Int.fetchOne(db, sql: sql) }
    }

    // MARK: Type changes

    @Test func stringToIntegerConvertsAndReportsWhatDoesNot() throws {
        let a = try yaml("Shop 1", "  Item:\n    attributes:\n      name: string\n      code: string?\n")
        let b = try yaml("Shop 2", "  Item:\n    attributes:\n      name: string\n      code: int64?\n")
        let d = decomposer.decompose(from: a, to: b)
        try checkShape(d, a, b)
        #expect(d.recipes.map(\.kind) == [.typeConversion])
        let added = try #require(d.intermediate?.entity(named: "Item")?.attribute(named: "code_new"))
        #expect(added.type == .integer64 && added.isOptional)
        #expect(d.final?.entity(named: "Item")?.attribute(named: "code")?.renamingIdentifier == "code_new")
        #expect(d.stages == [CustomStage(from: "Shop 1", to: "Shop 1 (prepare Shop 2)", after: ["convert_Item_code"])])
        let hook = try #require(d.hooks.first)
        #expect(hook.phase == "after" && !hook.isTemplate)
        guard case .sql(let statements) = hook.definition else { Issue.record("not SQL"); return }
        #expect(statements.count == 1)
        #expect(statements[0].hasPrefix("UPDATE \"Item\" SET \"code_new\" = CASE WHEN"))
        #expect(statements[0].contains("CAST(trim(\"code\", char(32, 9, 10, 13)) AS INTEGER)"))
        let risk = try #require(d.risks.first { $0.kind == .lossyConversion && $0.subject == "Item.code" })

        let inputs: [String?] = ["42", " 7 ", "abc", nil, "-3", "+5", "12.5", "99999999999999999999", "0012", "--5", ""]
        let fixture = try migrate(d, from: a) { f in
            for (i, value) in inputs.enumerated() {
                try f.execute("INSERT INTO \"Item\" (\"_pk\", \"name\", \"code\") VALUES (?, ?, ?)", [i + 1, "item \(i)", value])
            }
            // Counted before the migration, on the store at A, as the dry run does.
            #expect(try self.count(risk, in: f) == 5)  // abc, 12.5, 999…, --5, empty
        }
        let codes = try fixture.column("Item", "code")
        let expected: [DatabaseValue] = [
            .int(42), .int(7), .null, .null, .int(-3), .int(5), .null, .null, .int(12), .null, .null,
        ]
        #expect(codes == expected)
        #expect(try fixture.column("Item", "name").count == inputs.count)
        #expect(try fixture.store.metadata()?.versionName == "Shop 2")
        #expect(try fixture.schema().table(named: "Item")?.columns.map(\.name).sorted() == ["_pk", "code", "name"])
    }

    @Test func integerAndDoubleToStringCombineIntoOnePair() throws {
        let a = try yaml("V1", "  Item:\n    attributes:\n      code: int32\n      price: double?\n")
        let b = try yaml("V2", "  Item:\n    attributes:\n      code: string\n      price: string?\n")
        let d = decomposer.decompose(from: a, to: b)
        try checkShape(d, a, b)
        #expect(d.recipes.count == 2)
        #expect(d.hooks.map(\.name) == ["convert_Item_code", "convert_Item_price"])
        #expect(d.stages.count == 1)
        #expect(d.stages.first?.after == ["convert_Item_code", "convert_Item_price"])
        #expect(d.intermediate?.attributes(of: "Item").map(\.name) == ["code", "price", "code_new", "price_new"])
        // Every integer and real converts: no loss to report.
        #expect(!d.risks.contains { $0.kind == .lossyConversion })
        let fixture = try migrate(d, from: a) { f in
            try f.execute("INSERT INTO \"Item\" (\"code\", \"price\") VALUES (42, 1.5), (-7, NULL), (0, 100)")
        }
        #expect(try fixture.column("Item", "code") == [.text("42"), .text("-7"), .text("0")])
        #expect(try fixture.column("Item", "price") == [.text("1.5"), .null, .text("100.0")])
    }

    @Test func externalStorageOffCopiesTheBytes() throws {
        let a = try yaml("V1", "  Photo:\n    attributes:\n      data: {type: binary, optional: true, externalStorage: true}\n")
        let b = try yaml("V2", "  Photo:\n    attributes:\n      data: binary?\n")
        let d = decomposer.decompose(from: a, to: b)
        try checkShape(d, a, b)
        #expect(d.recipes.map(\.kind) == [.externalStorageCopy])
        #expect(d.intermediate?.entity(named: "Photo")?.attribute(named: "data_new")?.allowsExternalBinaryDataStorage == false)
        #expect(d.hookDefinitions["copy_Photo_data"] == .sql(["UPDATE \"Photo\" SET \"data_new\" = \"data\" WHERE \"data\" IS NOT NULL"]))
        #expect(d.risks.contains { $0.kind == .externalStorage && $0.subject == "Photo.data" })
        let bytes = Data([0, 1, 2, 255, 254])
        let fixture = try migrate(d, from: a) { f in
            try f.execute("INSERT INTO \"Photo\" (\"data\") VALUES (?), (NULL)", [bytes])
        }
        #expect(try fixture.column("Photo", "data") == [bytes.databaseValue, .null])
    }

    @Test func aTypeChangeWithoutConverterIsATemplate() throws {
        let a = try yaml("V1", "  Event:\n    attributes:\n      at: date?\n")
        let b = try yaml("V2", "  Event:\n    attributes:\n      at: double?\n")
        let d = decomposer.decompose(from: a, to: b)
        try checkShape(d, a, b)
        let hook = try #require(d.hooks.first)
        #expect(hook.isTemplate)
        #expect(hook.purpose.contains("2451910.5"))
        #expect(hook.definition == .sql(["UPDATE \"Event\" SET \"at_new\" = <SQL EXPRESSION> WHERE \"at\" IS NOT NULL"]))
        // A user expression replaces the template.
        let custom = Decomposer(layout: InstarLayout(), expressions: ["Event.at": "round((julianday({value}) - 2451910.5) * 86400, 3)"])
        let withExpression = custom.decompose(from: a, to: b)
        #expect(withExpression.hasTemplates == false)
        let fixture = try migrate(withExpression, from: a) { f in
            try f.execute("INSERT INTO \"Event\" (\"at\") VALUES ('2001-01-01T00:01:00.250Z')")
        }
        #expect(try fixture.column("Event", "at") == [.real(60.25)])
    }

    // MARK: Optional → required

    @Test func optionalToRequiredGetsAFillTemplate() throws {
        let a = try yaml("V1", "  Person:\n    attributes:\n      nick: string?\n")
        let b = try yaml("V2", "  Person:\n    attributes:\n      nick: string\n")
        let d = decomposer.decompose(from: a, to: b)
        #expect(d.intermediate == nil && d.final == nil)
        #expect(d.recipes.map(\.kind) == [.fillNulls])
        #expect(d.versions == ["V1", "V2"])
        #expect(d.stages == [CustomStage(from: "V1", to: "V2", before: ["fill_Person_nick"])])
        #expect(ModelDiff(from: a, to: b).isInferable)  // conditional: inferable unless a NULL exists
        let hook = try #require(d.hooks.first)
        #expect(hook.isTemplate && hook.phase == "before" && hook.purpose.hasPrefix("TEMPLATE"))
        #expect(hook.definition == .sql(["UPDATE \"Person\" SET \"nick\" = <FILL VALUE> WHERE \"nick\" IS NULL"]))
        let fill: (StoreFixture) throws -> Void = { f in
            try f.execute("INSERT INTO \"Person\" (\"nick\") VALUES ('ann'), (NULL), ('bo'), (NULL)")
            #expect(try self.count(d.risks[0], in: f) == 2)
        }
        // As written, the template fails and nothing changes.
        #expect(throws: HookError.self) { _ = try self.migrate(d, from: a, fill: fill) }
        let fixture = try migrate(d, from: a, fill: fill) { _, sql in
            sql.map { $0.replacingOccurrences(of: Decomposition.fillPlaceholder, with: "'anonymous'") }
        }
        #expect(try fixture.column("Person", "nick") == [.text("ann"), .text("anonymous"), .text("bo"), .text("anonymous")])
        #expect(try fixture.store.metadata()?.versionName == "V2")
    }

    @Test func typeChangeAndTighteningShareTheChain() throws {
        let a = try yaml("V1", "  E:\n    attributes:\n      flag: string?\n      note: string?\n")
        let b = try yaml("V2", "  E:\n    attributes:\n      flag: bool?\n      note: string\n")
        let d = decomposer.decompose(from: a, to: b)
        try checkShape(d, a, b)
        #expect(Set(d.recipes.map(\.kind)) == [.typeConversion, .fillNulls])
        #expect(
            d.stages == [
                CustomStage(from: "V1", to: "V1 (prepare V2)", after: ["convert_E_flag"]),
                CustomStage(from: "V1 (prepare V2)", to: "V2", before: ["fill_E_note"]),
            ])
        let fixture = try migrate(d, from: a) { f in
            try f.execute(
                "INSERT INTO \"E\" (\"flag\", \"note\") VALUES ('YES', 'a'), ('false', NULL), (' 1 ', 'c'), ('maybe', NULL), (NULL, 'e')")
        } edit: { _, sql in
            sql.map { $0.replacingOccurrences(of: Decomposition.fillPlaceholder, with: "'-'") }
        }
        #expect(try fixture.column("E", "flag") == [.int(1), .int(0), .int(1), .null, .null])
        #expect(try fixture.column("E", "note") == [.text("a"), .text("-"), .text("c"), .text("-"), .text("e")])
    }

    @Test func aStagedAttributeThatBecomesRequiredIsFilledInItsTemporary() throws {
        let a = try yaml("V1", "  E:\n    attributes:\n      code: string?\n")
        let b = try yaml("V2", "  E:\n    attributes:\n      code: int64\n")
        let d = decomposer.decompose(from: a, to: b)
        try checkShape(d, a, b)
        #expect(d.hookDefinitions["fill_E_code"] == .sql(["UPDATE \"E\" SET \"code_new\" = <FILL VALUE> WHERE \"code_new\" IS NULL"]))
        #expect(d.stages.last == CustomStage(from: "V1 (prepare V2)", to: "V2", before: ["fill_E_code"]))
        let fixture = try migrate(d, from: a) { f in
            try f.execute("INSERT INTO \"E\" (\"code\") VALUES ('5'), (NULL), ('five')")
        } edit: { _, sql in
            sql.map { $0.replacingOccurrences(of: Decomposition.fillPlaceholder, with: "-1") }
        }
        #expect(try fixture.column("E", "code") == [.int(5), .int(-1), .int(-1)])
    }

    // MARK: To-many → to-one

    @Test func orderedOneToManyBecomesOneToOne() throws {
        let a = try yaml(
            "V1",
            """
              Person:
                attributes:
                  name: string
                relationships:
                  home: Address[] ordered inverse owner
              Address:
                attributes:
                  street: string
                relationships:
                  owner: Person? inverse home

            """)
        let b = try yaml(
            "V2",
            """
              Person:
                attributes:
                  name: string
                relationships:
                  home: Address? inverse owner
              Address:
                attributes:
                  street: string
                relationships:
                  owner: Person? inverse home

            """)
        let d = decomposer.decompose(from: a, to: b)
        try checkShape(d, a, b)
        #expect(d.recipes.map(\.kind) == [.pickOne])
        #expect(d.final?.entity(named: "Person")?.relationship(named: "home")?.renamingIdentifier == "home_new")
        let hook = try #require(d.hooks.first)
        guard case .sql(let statements) = hook.definition else { Issue.record("not SQL"); return }
        #expect(statements.count == 2)  // pick, then unlink the others (the target is one-to-one)
        #expect(statements[0].contains("ORDER BY \"_link\".\"owner_position\""))
        let fixture = try migrate(d, from: a) { f in
            try f.execute("INSERT INTO \"Person\" (\"_pk\", \"name\") VALUES (1, 'ann'), (2, 'bo'), (3, 'cy')")
            try f.execute(
                """
                INSERT INTO "Address" ("_pk", "street", "owner", "owner_position")
                VALUES (10, 'a', 1, 3), (11, 'b', 1, 1), (12, 'c', 1, 2), (13, 'd', 2, 1), (14, 'e', NULL, NULL)
                """)
            let risk = try #require(d.risks.first { $0.kind == .droppedLinks })
            #expect(try self.count(risk, in: f) == 1)
        }
        // The first of each ordered set wins.
        #expect(try fixture.column("Person", "home") == [.int(11), .int(13), .null])
        #expect(try fixture.column("Address", "owner") == [.null, .int(1), .null, .int(2), .null])
        #expect(try fixture.schema().table(named: "Address")?.columns.map(\.name).sorted() == ["_pk", "owner", "street"])
    }

    @Test func manyToManyBecomesManyToOne() throws {
        let a = try yaml(
            "V1",
            """
              Post:
                attributes:
                  title: string
                relationships:
                  tags: Tag[] inverse posts
              Tag:
                attributes:
                  label: string
                relationships:
                  posts: Post[] inverse tags

            """)
        let b = try yaml(
            "V2",
            """
              Post:
                attributes:
                  title: string
                relationships:
                  tags: Tag? inverse posts
              Tag:
                attributes:
                  label: string
                relationships:
                  posts: Post[] inverse tags

            """)
        let d = decomposer.decompose(from: a, to: b)
        try checkShape(d, a, b)
        let links = try #require(StorageMapNaming(model: a, layout: InstarLayout()).links(of: "tags", in: "Post"))
        guard case .joinTable(let table, let owner, let destination, _) = links else {
            Issue.record("expected a join table, got \(links)")
            return
        }
        let fixture = try migrate(d, from: a) { f in
            try f.execute("INSERT INTO \"Post\" (\"_pk\", \"title\") VALUES (1, 'p1'), (2, 'p2'), (3, 'p3')")
            try f.execute("INSERT INTO \"Tag\" (\"_pk\", \"label\") VALUES (7, 'x'), (5, 'y'), (9, 'z')")
            try f.execute(
                "INSERT INTO \(SQLIdentifier.quoted(table)) (\(SQLIdentifier.quoted(owner)), \(SQLIdentifier.quoted(destination))) VALUES (1, 7), (1, 5), (1, 9), (2, 9)")
        }
        // The lowest primary key among the linked tags.
        #expect(try fixture.column("Post", "tags") == [.int(5), .int(9), .null])
        #expect(try fixture.schema().table(named: table) == nil)
    }

    // MARK: No known recipe

    @Test func mergingHierarchiesGetsAManualRecipe() throws {
        let a = try yaml("V1", "  Car:\n    attributes:\n      wheels: int16?\n  Boat:\n    attributes:\n      sails: int16?\n")
        let b = try yaml(
            "V2",
            "  Vehicle:\n    abstract: true\n  Car:\n    parent: Vehicle\n    attributes:\n      wheels: int16?\n  Boat:\n    parent: Vehicle\n    attributes:\n      sails: int16?\n"
        )
        let d = decomposer.decompose(from: a, to: b)
        #expect(d.steps.isEmpty && d.hooks.isEmpty && d.intermediate == nil)
        #expect(!d.isComplete)
        let recipe = try #require(d.manualRecipe)
        #expect(recipe.contains("Core Data cannot merge the tables of separate hierarchies ('Boat' and 'Car')"))
        #expect(recipe.contains("renaming identifiers"))
    }

    @Test func temporaryNamesNeverClash() throws {
        let a = try yaml("V1", "  E:\n    attributes:\n      x: string?\n      x_new: string?\n")
        let b = try yaml("V2", "  E:\n    attributes:\n      x: int64?\n      x_new: string?\n")
        let d = decomposer.decompose(from: a, to: b)
        try checkShape(d, a, b)
        #expect(d.recipes.first?.temporary == "x_new2")
    }

    // MARK: Converters, one by one

    func convert(_ from: AttributeType, _ to: AttributeType, _ values: [DatabaseValue]) throws -> [DatabaseValue] {
        let conversion = try #require(Converters.conversion(from: from, to: to, value: "\"v\""))
        let queue = try DatabaseQueue()
        return try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (i INTEGER PRIMARY KEY, v)")
            for value in values { try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: [value]) }
            return try DatabaseValue.fetchAll(db, sql: "SELECT \(conversion.expression) FROM t ORDER BY i")
        }
    }

    @Test func builtInConverters() throws {
        #expect(
            try convert(.string, .integer16, ["32767", "32768", "-32768", "\t8\n"].map(\.databaseValue))
                == [.int(32767), .null, .int(-32768), .int(8)])
        #expect(
            try convert(.string, .double, ["1.5", " -2 ", "1e5", "1.2.3", ".5", ".", "12 kg"].map(\.databaseValue))
                == [.real(1.5), .real(-2), .null, .null, .real(0.5), .null, .null])
        #expect(
            try convert(.string, .boolean, ["YES", "true", "1", "no", "False", " 0 ", "maybe"].map(\.databaseValue))
                == [.int(1), .int(1), .int(1), .int(0), .int(0), .int(0), .null])
        #expect(
            try convert(
                .string, .date,
                ["2024-05-01", "2024-05-01T12:30:00+02:00", "2024-05-01 08:00:00.250Z", "2024-02-30", "now", "2024-05-01 x"]
                    .map(\.databaseValue))
                == [
                    .text("2024-05-01T00:00:00.000Z"), .text("2024-05-01T10:30:00.000Z"), .text("2024-05-01T08:00:00.250Z"),
                    .null, .null, .null,
                ])
        #expect(try convert(.date, .string, [.text("2024-05-01T00:00:00.000Z")]) == [.text("2024-05-01T00:00:00.000Z")])
        #expect(try convert(.boolean, .string, [.int(1), .int(0), .null]) == [.text("true"), .text("false"), .null])
        #expect(try convert(.integer64, .string, [.int(-12)]) == [.text("-12")])
        #expect(
            try convert(.string, .uuid, [.text("0f8fad5b-d9cb-469f-a165-70867728950e"), .text("nope")])
                == [.text("0F8FAD5B-D9CB-469F-A165-70867728950E"), .null])
        #expect(Converters.conversion(from: .date, to: .integer64, value: "x") == nil)
    }

    // MARK: Dry run and report

    @Test func dryRunProposesAndCountsRisks() throws {
        let a = try yaml("Shop 1", "  Item:\n    attributes:\n      code: string?\n")
        let b = try yaml("Shop 2", "  Item:\n    attributes:\n      code: int64?\n")
        let fixture = try StoreFixture(a)
        try fixture.execute("INSERT INTO \"Item\" (\"code\") VALUES ('1'), ('x'), ('y')")
        let plan = Plan(name: "p", file: "p.yaml", versions: [a, b])
        let report = try DryRun.report(plan: plan, storePath: fixture.path)
        #expect(report.noChain != nil)
        let proposal = try #require(report.proposals.first)
        #expect(report.proposals.count == 1)
        #expect(proposal.versions == ["Shop 1", "Shop 1 (prepare Shop 2)", "Shop 2"])
        #expect(proposal.risks.first?.count == 2)
    }

    // MARK: YAML model files

    @Test func yamlWriterRoundTrips() throws {
        let source = """
            name: "Odd: \\"version\\" #1"
            identifier: "2.0"
            entities:
              Media:
                abstract: true
                hashModifier: m1
                unique: [[title], [title, year]]
                indexes:
                  byYear: [-year, title]
                attributes:
                  title: string
                  year: int16 = 1999
                  note: {type: string, optional: true, default: "a: b # c"}
                  blank: {type: string, optional: true, default: ""}
                  spaced: {type: string, optional: true, default: " x "}
                  quoted: {type: string, optional: true, default: "'q'"}
                  lines: {type: string, optional: true, default: "one\\ntwo"}
                  blob: {type: binary, optional: true, externalStorage: true, userInfo: {NSMigrationAllowTypeTransformation: "YES", "odd key": "v: w"}}
                  flags: {type: bool, optional: false, default: "true", transient: true, readOnly: true, indexed: true, preservesValueInHistory: true, hashModifier: h, renamedFrom: flag}
              Track:
                parent: Media
                renamedFrom: Song
                relationships:
                  album: Album? inverse tracks
                  artists: Artist[] ordered inverse tracks
                  label: Label
              Album:
                relationships:
                  tracks: {to: Track, toMany: true, inverse: album, min: 1, max: 5, deleteRule: cascade, optional: false, renamedFrom: songs, hashModifier: x}
              Artist:
                relationships:
                  tracks: Track[] inverse artists
              Label: {}
            """
        let original = try model(source, name: "odd")
        let written = ModelFileWriter.yaml(original, comment: "a comment\nover two lines")
        let back = try ModelFileReader.parse(written, file: "written.yaml")
        #expect(back.name == original.name)
        #expect(back.versionIdentifier == "2.0")
        #expect(back.entities == original.entities)
        #expect(VersionHashes(model: back) == VersionHashes(model: original))
        #expect(written.contains("  title: string\n"))
        #expect(written.contains("album: Album? inverse tracks"))

        // Every bundled example model survives too.
        let plans = packageRoot.appendingPathComponent("Plans")
        let files = FileManager.default.enumerator(atPath: plans.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".yaml") && $0.contains("models/") } ?? []
        #expect(!files.isEmpty)
        for file in files {
            let m = try ModelFileReader.read(path: plans.appendingPathComponent(file).path)
            let again = try ModelFileReader.parse(ModelFileWriter.yaml(m), file: file)
            #expect(again.entities == m.entities, "\(file)")
            #expect(again.name == m.name, "\(file)")
        }
    }

    @Test func intermediateModelsRoundTripThroughYAML() throws {
        let a = try yaml("V1", "  Item:\n    attributes:\n      code: string?\n")
        let b = try yaml("V2", "  Item:\n    attributes:\n      code: int64?\n")
        let d = decomposer.decompose(from: a, to: b)
        for m in [try #require(d.intermediate), try #require(d.final)] {
            let back = try ModelFileReader.parse(ModelFileWriter.yaml(m), file: "m.yaml")
            #expect(back.entities == m.entities && back.name == m.name)
        }
    }
}

/// `instar plan … --scaffold <dir>` as a user runs it, then the scaffolded chain on a real store.
@Suite struct DecompositionCLITests {
}
