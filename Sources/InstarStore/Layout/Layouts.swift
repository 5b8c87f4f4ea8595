import InstarSQL
import InstarLayouts

/// The layouts Instar knows, for detecting a store's layout and choosing one by name.
public enum Layouts {
    /// Every layout, in the order a store's bookkeeping tables are tried against them when it is opened
    /// without a layout (the first that recognises the store wins; none: the Instar layout).
    public static var all: [any StoreLayout] { [InstarLayout(), CoreDataLayout(), PlainSQLLayout()] }

    /// The layout a name stands for (``LayoutName``).
    public static func layout(_ name: LayoutName) -> any StoreLayout {
        switch name {
        case .instar: InstarLayout()
        case .plainSQL: PlainSQLLayout()
        case .coreData(let version): CoreDataLayout(frameworkVersion: version ?? CoreDataLayout.defaultFrameworkVersion)
        }
    }

    /// A layout by name; `coredata:<framework version>` chooses the conventions of an older Core Data.
    public static func named(_ name: String) -> (any StoreLayout)? {
        LayoutName(name).map(layout)
    }
}
