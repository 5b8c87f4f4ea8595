/// The layouts Instar knows, for detecting a store's layout and choosing one by name.
public enum Layouts {
    public static var all: [any StoreLayout] { [InstarLayout(), CoreDataLayout(), PlainSQLLayout()] }

    /// A layout by name; `coredata:<framework version>` chooses the conventions of an older Core Data.
    public static func named(_ name: String) -> (any StoreLayout)? {
        all.first { $0.name == name } ?? CoreDataLayout(named: name)
    }
}
