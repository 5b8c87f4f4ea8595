import Foundation
import InstarCompiler
import Testing
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarStoreTestSupport

/// Issue 15 in the store: a step whose raw SQL names a table or column it renames or drops is refused
/// by the step compiler before anything runs (the planner's lint finds it from the models alone).
@Suite struct RawSQLStepTests {
    /// The dry run compiles each step: the same reference refuses the step before anything runs.
    @Test func theStepCompilerRefusesItToo() throws {
        let v1 = try model(RawSQLShelves.version("V1", shelf: "Shelf", label: "Label", view: RawSQLShelves.oldView), name: "V1")
        let v2 = try model(RawSQLShelves.version("V2", shelf: "Collection", label: "Label", view: RawSQLShelves.oldView, renamed: true), name: "V2")
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
