import Foundation
import Testing
import InstarInference
@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarTestSupport

/// Issue 15: raw SQL that names a table or column the step renames or drops is found by `instar lint`
/// (from the models alone), naming the raw object and the step, with a hint.
@Suite struct RawSQLReferenceTests {
    func findings(_ v1: String, _ v2: String) throws -> [LintFinding] {
        let plan = Plan(
            name: "p", file: "p.yaml", versions: [try model(v1, name: "V1"), try model(v2, name: "V2")], stages: [])
        return PlanLint.check(plan).filter { $0.check == .rawSQLReference }
    }

    @Test func aRenamedTableInAViewIsAnError() throws {
        let v1 = RawSQLShelves.version("V1", shelf: "Shelf", label: "Label", view: RawSQLShelves.oldView)
        let v2 = RawSQLShelves.version("V2", shelf: "Collection", label: "Label", view: RawSQLShelves.oldView, renamed: true)
        let found = try findings(v1, v2)
        #expect(found.count == 1)
        #expect(found.first?.severity == .error)
        #expect(
            found.first?.message == "V1 → V2: the raw view 'ShelfList' refers to table 'Shelf', and this step renames it to 'Collection'")
        #expect(found.first?.location.file == "V2.yaml" && found.first?.location.line != nil, "\(String(describing: found.first?.location))")
        #expect(found.first?.hint?.contains("edit the raw SQL of 'ShelfList'") == true)
        // Edited as the hint says: clean.
        let edited = RawSQLShelves.version(
            "V2", shelf: "Collection", label: "Label", view: #"CREATE VIEW ShelfList AS SELECT \"Label\" FROM Collection"#,
            renamed: true)
        #expect(try findings(v1, edited).isEmpty)
    }

    @Test func aRenamedOrDroppedColumnInAViewIsAnError() throws {
        let v1 = RawSQLShelves.version("V1", shelf: "Shelf", label: "Label", view: RawSQLShelves.oldView)
        let v2 = RawSQLShelves.version("V2", shelf: "Shelf", label: "Name", view: RawSQLShelves.oldView, renamed: true)
        let found = try findings(v1, v2)
        #expect(found.map(\.message) == ["V1 → V2: the raw view 'ShelfList' refers to column 'Shelf.Label', and this step renames it to 'Name'"])
        let dropped = RawSQLShelves.version("V2", shelf: "Shelf", label: "Other", view: RawSQLShelves.oldView)
        #expect(try findings(v1, dropped).map(\.message).first?.hasSuffix("column 'Shelf.Label', and this step drops it") == true)
        // A column of another table with the same name does not count: the view must name the table.
        let unrelated = RawSQLShelves.version("V2", shelf: "Shelf", label: "Name", view: #"CREATE VIEW ShelfList AS SELECT 1 AS \"Label\""#, renamed: true)
        #expect(try findings(v1, unrelated).isEmpty)
    }

}
