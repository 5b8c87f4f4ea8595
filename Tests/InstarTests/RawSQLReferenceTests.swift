import Foundation
import InstarCompiler
import Testing
import InstarInference
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts
import InstarTestSupport

/// Issue 15: raw SQL that names a table or column the step renames or drops is found by `instar lint`
/// (from the models alone), naming the raw object and the step, with a hint.
@Suite struct RawSQLReferenceTests {
    static func version(_ name: String, shelf: String, label: String, view: String, renamed: Bool = false) -> String {
        """
        name: \(name)
        entities:
          \(shelf):
            \(renamed ? "renamedFrom: Shelf" : "")
            attributes:
              \(label): {type: string, \(renamed && label != "Label" ? "renamedFrom: Label, " : "")optional: true}
              Size: int64?
        raw:
          - kind: view
            name: ShelfList
            sql: "\(view)"
        """
    }

    static let oldView = #"CREATE VIEW ShelfList AS SELECT \"Label\" FROM Shelf"#

    func findings(_ v1: String, _ v2: String) throws -> [LintFinding] {
        let plan = Plan(
            name: "p", file: "p.yaml", versions: [try model(v1, name: "V1"), try model(v2, name: "V2")], stages: [])
        return PlanLint.check(plan).filter { $0.check == .rawSQLReference }
    }

    @Test func aRenamedTableInAViewIsAnError() throws {
        let v1 = Self.version("V1", shelf: "Shelf", label: "Label", view: Self.oldView)
        let v2 = Self.version("V2", shelf: "Collection", label: "Label", view: Self.oldView, renamed: true)
        let found = try findings(v1, v2)
        #expect(found.count == 1)
        #expect(found.first?.severity == .error)
        #expect(
            found.first?.message == "V1 → V2: the raw view 'ShelfList' refers to table 'Shelf', and this step renames it to 'Collection'")
        #expect(found.first?.location.file == "V2.yaml" && found.first?.location.line != nil, "\(String(describing: found.first?.location))")
        #expect(found.first?.hint?.contains("edit the raw SQL of 'ShelfList'") == true)
        // Edited as the hint says: clean.
        let edited = Self.version(
            "V2", shelf: "Collection", label: "Label", view: #"CREATE VIEW ShelfList AS SELECT \"Label\" FROM Collection"#,
            renamed: true)
        #expect(try findings(v1, edited).isEmpty)
    }

    @Test func aRenamedOrDroppedColumnInAViewIsAnError() throws {
        let v1 = Self.version("V1", shelf: "Shelf", label: "Label", view: Self.oldView)
        let v2 = Self.version("V2", shelf: "Shelf", label: "Name", view: Self.oldView, renamed: true)
        let found = try findings(v1, v2)
        #expect(found.map(\.message) == ["V1 → V2: the raw view 'ShelfList' refers to column 'Shelf.Label', and this step renames it to 'Name'"])
        let dropped = Self.version("V2", shelf: "Shelf", label: "Other", view: Self.oldView)
        #expect(try findings(v1, dropped).map(\.message).first?.hasSuffix("column 'Shelf.Label', and this step drops it") == true)
        // A column of another table with the same name does not count: the view must name the table.
        let unrelated = Self.version("V2", shelf: "Shelf", label: "Name", view: #"CREATE VIEW ShelfList AS SELECT 1 AS \"Label\""#, renamed: true)
        #expect(try findings(v1, unrelated).isEmpty)
    }

    @Test func theAdoptExampleIsClean() throws {
        let result = try runInstar(["lint", packageRoot.appendingPathComponent("Plans/adopt/plan.yaml").path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
}

extension RawSQLReferenceTests {
    /// The dry run compiles each step: the same reference refuses the step before anything runs.
    @Test func theStepCompilerRefusesItToo() throws {
        let v1 = try model(Self.version("V1", shelf: "Shelf", label: "Label", view: Self.oldView), name: "V1")
        let v2 = try model(Self.version("V2", shelf: "Collection", label: "Label", view: Self.oldView, renamed: true), name: "V2")
        let fixture = try StoreFixture(v1, layout: PlainSQLLayout())
        do {
            try fixture.store.migrate(from: v1, to: v2)
            Issue.record("a step whose view names a renamed table ran")
        } catch {
            guard case .rawSQL(let blockers)? = ((error as? StoreError)?.underlying as? StepCompileError)?.reason else {
                Issue.record("not refused for its raw SQL: \(error)")
                return
            }
            #expect(blockers.contains { $0.object.name == "ShelfList" && $0.problem == .refersToTable("Shelf", renamedTo: "Collection") },
                    "\(blockers)")
        }
        #expect(try fixture.schema().table(named: "Shelf") != nil)
    }
}
