// A model version with a raw view over its one table: for the planner's lint of raw SQL and the store's
// step compiler, which both refuse a step that renames what the view names.

/// Model versions of a shelf table and a raw view `ShelfList` reading it.
package enum RawSQLShelves {
    package static func version(_ name: String, shelf: String, label: String, view: String, renamed: Bool = false) -> String {
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

    package static let oldView = #"CREATE VIEW ShelfList AS SELECT \"Label\" FROM Shelf"#
}
