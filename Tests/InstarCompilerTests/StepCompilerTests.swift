import Foundation
@testable import InstarCompiler
import InstarInference
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
import InstarTestSupport
import Testing

/// The step compiler without a database: a diff of two versions becomes per-table transformations, and
/// those become SQL against the older version's schema, decided from the models and the layout alone
/// (the store's tests run that SQL on SQLite).
@Suite struct StepCompilerTests {
    /// The SQL of the step from `old` to `new` in `layout`, against the schema the older version has.
    static func sql(_ old: Model, _ new: Model, layout: any StorageLayout = PlainSQLLayout()) throws -> StepSQLPlan {
        let program = try StepCompiler(diff: ModelDiff(from: old, to: new), from: old, to: new, layout: layout).compile()
        return StepSQLPlanner.plan(program, actual: try layout.storageMap(for: old).schema, viewsAndTriggers: [])
    }

    static let v1 = try! model(
        """
        entities:
          Note:
            attributes:
              title: string
              score: int32?
        """, name: "V1")

    @Test func anOptionalAttributeIsAddedInPlace() throws {
        let v2 = try model(
            """
            entities:
              Note:
                attributes:
                  title: string
                  score: int32?
                  body: string?
            """, name: "V2")
        let plan = try Self.sql(Self.v1, v2)
        #expect(plan.rebuiltTables.isEmpty)
        #expect(plan.tables["Note"] == .altered(["ADD COLUMN"]), "\(plan.tables)")
        #expect(plan.statements.map(\.sql) == [#"ALTER TABLE "Note" ADD COLUMN "body" TEXT"#], "\(plan.statements)")
    }

    /// A type change cannot be made with `ALTER TABLE`: the table is rebuilt, its rows converted in one
    /// `INSERT … SELECT`, and only that table.
    @Test func aTypeChangeRebuildsItsTableOnly() throws {
        let v2 = try model(
            """
            entities:
              Note:
                attributes:
                  title: string
                  score: double?
              Tag:
                attributes:
                  name: string
            """, name: "V2")
        let plan = try Self.sql(Self.v1, v2)
        #expect(plan.rebuiltTables == ["Note"], "\(plan.tables)")
        #expect(plan.tables["Tag"] == .created)
        let fill = try #require(plan.statements.first { $0.sql.hasPrefix("INSERT INTO") && $0.sql.contains(#""score""#) })
        #expect(fill.sql.contains("CAST("), "the values are converted, not copied as they are: \(fill.sql)")
    }

    /// A required attribute becoming optional changes the table's stored text only: SQLite's documented
    /// schema edit, not a rebuild.
    @Test func aRequiredAttributeBecomingOptionalIsNotARebuild() throws {
        let v2 = try model(
            """
            entities:
              Note:
                attributes:
                  title: string?
                  score: int32?
            """, name: "V2")
        let plan = try Self.sql(Self.v1, v2)
        #expect(plan.rebuiltTables.isEmpty, "\(plan.tables)")
        #expect(!plan.statements.contains { $0.sql.hasPrefix("INSERT INTO") }, "\(plan.statements)")
    }

    /// Names from a model are quoted wherever the SQL names them, whatever they contain.
    @Test func namesWithQuotesAreQuoted() throws {
        let old = try model("entities:\n  'Bob\"s':\n    attributes:\n      'it\"em': string\n", name: "A")
        let new = try model("entities:\n  'Bob\"s':\n    attributes:\n      'it\"em': string\n      'note \"x\"': string?\n", name: "B")
        let plan = try Self.sql(old, new)
        #expect(plan.statements.map(\.sql) == [#"ALTER TABLE "Bob""s" ADD COLUMN "note ""x""" TEXT"#], "\(plan.statements)")
    }

    /// Raw SQL of the newer version that names a table the step renames refuses the step in the
    /// compiler, before any SQL exists.
    @Test func rawSQLNamingARenamedTableRefusesTheStep() throws {
        let v1 = try model(RawSQLShelves.version("V1", shelf: "Shelf", label: "Label", view: RawSQLShelves.oldView), name: "V1")
        let v2 = try model(
            RawSQLShelves.version("V2", shelf: "Collection", label: "Label", view: RawSQLShelves.oldView, renamed: true), name: "V2")
        let layout = PlainSQLLayout()
        #expect {
            _ = try StepCompiler(diff: ModelDiff(from: v1, to: v2), from: v1, to: v2, layout: layout).compile()
        } throws: { error in
            guard case .rawSQL(let blockers)? = (error as? StepCompileError)?.reason else { return false }
            return blockers.contains { $0.object.name == "ShelfList" && $0.problem == .refersToTable("Shelf", renamedTo: "Collection") }
        }
    }
}
