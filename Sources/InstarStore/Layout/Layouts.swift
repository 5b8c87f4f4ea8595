import InstarSQL
import InstarLayouts

/// The layouts Instar knows, for detecting a store's layout and choosing one by name.
public enum Layouts {
    /// Every layout, in the order a store's bookkeeping tables are tried against them when it is opened
    /// without a layout (the first that recognises the store wins; none: the Instar layout): the
    /// built-in ones, then each registered plug-in that can read and write a store.
    public static var all: [any StoreLayout] {
        [InstarLayout(), CoreDataLayout(), PlainSQLLayout()]
            + LayoutRegistry.registeredNames.compactMap { LayoutRegistry.plugIn(named: $0) as? any StoreLayout }
    }

    /// The layout a name stands for (``LayoutName``).
    public static func layout(_ name: LayoutName) -> any StoreLayout {
        switch name {
        case .instar: InstarLayout()
        case .plainSQL: PlainSQLLayout()
        case .coreData(let version): CoreDataLayout(frameworkVersion: version ?? CoreDataLayout.defaultFrameworkVersion)
        }
    }

    /// A layout by name, built in or registered (``LayoutRegistry``); `coredata:<framework version>`
    /// chooses the conventions of an older Core Data. Nil for a name that is neither.
    public static func named(_ name: String) -> (any StoreLayout)? {
        if let builtIn = LayoutName(name) { return layout(builtIn) }
        return LayoutRegistry.plugIn(named: name) as? any StoreLayout
    }

    /// The layout a plan names, or ``StoreError/Kind/unknownLayout`` when the name is neither built in
    /// nor registered (a misspelling must not silently become the Instar layout). `path` is the store's.
    public static func resolve(_ name: String, path: String) throws(StoreError) -> any StoreLayout {
        if let layout = named(name) { return layout }
        let registered = LayoutRegistry.plugIn(named: name) != nil
        throw StoreError(
            .unknownLayout, path: path,
            registered
                ? "the layout '\(name)' is registered but cannot read or write a store (it is not a StoreLayout)"
                : "unknown layout '\(name)'",
            hint: "layouts: \(LayoutRegistry.spellings.joined(separator: ", ")) (coredata:<framework version> for an older Core Data); register a plug-in layout with LayoutRegistry.register before using its name")
    }
}
