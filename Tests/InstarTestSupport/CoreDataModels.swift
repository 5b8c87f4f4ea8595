// Models the Core Data layout's tests share: its naming (pure) and its stores.

/// Instar YAML models written for the Core Data layout's tests.
package enum CoreDataModels {
    /// A hierarchy (Bird under Animal), an ordered to-many and to-ones with and without inverses.
    package static let zooYAML = """
        entities:
          Animal:
            attributes: {name: string?}
            relationships:
              cage: Cage? inverse animals
          Bird:
            parent: Animal
          Cage:
            relationships:
              animals: Animal[] ordered inverse cage
              keeper: Keeper? inverse cage
          Keeper:
            relationships:
              cage: Cage? inverse keeper
              favourite: Animal?
        """

    /// Uniqueness constraints and a named compound index with a descending element.
    package static let indexedYAML = """
        entities:
          Book:
            unique: [[isbn], [title, edition]]
            indexes:
              byTitle: [title, -edition]
            attributes:
              isbn: string?
              title: string?
              edition: {type: int16, optional: true, indexed: true}
        """
}
