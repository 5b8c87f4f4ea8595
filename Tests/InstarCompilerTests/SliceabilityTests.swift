@_spi(Layouts) @testable import InstarCompiler
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarSQL
import Testing

/// Which copies may be made ahead in slices (``SlicedCopy``): only those whose every value reads the
/// row being copied, since a slice copied early must equal what the step's own copy would write.
@Suite struct SliceabilityTests {
    /// A table whose copy reads other rows is not sliced: a Core Data style to-one whose storage
    /// moves, or here a value looked up elsewhere, is copied whole in the step's transaction.
    @Test func onlyRowLocalCopiesAreSliceable() throws {
        let lookup = ColumnValueExpression.lookup(table: "Other", value: "v", key: "k", equals: .column("x"))
        #expect(!lookup.readsOnlyItsRow)
        #expect(ColumnValueExpression.coalesce(.column("a"), .value(.integer(1))).readsOnlyItsRow)
        #expect(!ColumnValueExpression.position(partition: .column("o"), order: [.column("a")], step: 1).readsOnlyItsRow)
    }
}
