import InstarLayouts
import InstarModel
import InstarSQL

/// Every layout a name can stand for, built in and plug-in, as the one protocol the store uses
/// (``StoreLayout``): the one list of layout names, the one place a name is resolved, and the layouts a
/// store's bookkeeping is shown to when it is opened without a layout.
///
/// Open, not a closed list: a plug-in layout registers its name once, before plans naming it are used.
/// A name that is neither built in (``LayoutName``) nor registered is an error wherever it is given (a
/// plan's `layout`, `--layout`, ``resolve(_:path:location:)``), naming the known layouts; it never
/// falls back to the Instar layout.
///
/// ```swift
/// LayoutRegistry.register("ledger") { LedgerLayout() }   // LedgerLayout: StoreLayout
/// let layout = try LayoutRegistry.resolve(plan.layout, path: plan.file)
/// ```
public enum LayoutRegistry {
    /// A registered layout's factory, called each time its name is resolved or a store is detected.
    public typealias Factory = @Sendable () -> any StoreLayout

    private static let plugIns = Locked<[String: Factory]>([:])

    /// Makes `name` stand for the layout `make` builds (whose ``StorageLayout/name`` should be `name`:
    /// it is what the store's metadata and reports record). A built-in name (``LayoutName``, including
    /// `coredata:<version>`) cannot be taken; registering a name again replaces its factory. Returns
    /// false when the name is refused.
    @discardableResult
    public static func register(_ name: String, _ make: @escaping Factory) -> Bool {
        guard LayoutName(name) == nil, !name.isEmpty else { return false }
        plugIns.withLock { $0[name] = make }
        return true
    }

    /// Removes a registered name (tests, or an app unloading a plug-in).
    public static func unregister(_ name: String) {
        plugIns.withLock { $0[name] = nil }
    }

    /// The registered plug-in layouts' names, sorted.
    public static var registeredNames: [String] { plugIns.withLock { $0.keys.sorted() } }

    /// Every layout name, built in first (``LayoutName/builtIn``), then the registered ones sorted: the
    /// list that help texts and errors show. `coredata:<framework version>` is accepted besides.
    public static var names: [String] { LayoutName.builtIn.map(\.description) + registeredNames }

    /// True when `name` stands for a built-in or a registered layout.
    public static func isKnown(_ name: String) -> Bool {
        LayoutName(name) != nil || plugIns.withLock { $0[name] != nil }
    }

    /// Every layout, in the order a store opened without a layout asks them whether it is theirs
    /// (``StoreLayout/recognizes(_:)``; the first that says yes wins, none: the Instar layout): the built-in
    /// ones, then each registered plug-in by name.
    public static var all: [any StoreLayout] {
        LayoutName.builtIn.map(layout) + plugIns.withLock { table in table.keys.sorted().map { table[$0]!() } }
    }

    /// The layout a built-in name stands for.
    public static func layout(_ name: LayoutName) -> any StoreLayout {
        switch name {
        case .instar: InstarLayout()
        case .plainSQL: PlainSQLLayout()
        case .coreData(let version): CoreDataLayout(frameworkVersion: version ?? CoreDataLayout.defaultFrameworkVersion)
        }
    }

    /// The layout `name` stands for, built in or registered; `coredata:<framework version>` chooses the
    /// conventions of an older Core Data. Nil for a name that is neither (``resolve(_:path:location:)``
    /// says why, with the known names).
    public static func named(_ name: String) -> (any StoreLayout)? {
        if let builtIn = LayoutName(name) { return layout(builtIn) }
        return plugIns.withLock { $0[name] }?()
    }

    /// The layout `name` stands for, or ``StoreError/Kind/unknownLayout`` carrying an
    /// ``UnknownLayoutError`` (the name, the known names, where it was written) as its `underlying`.
    /// `path` is the store or plan the name is for; `location`, where the name was written, when known.
    public static func resolve(_ name: String, path: String, location: SourceLocation? = nil) throws(StoreError) -> any StoreLayout {
        if let layout = named(name) { return layout }
        let unknown = UnknownLayoutError(name: name, known: names, location: location)
        throw StoreError(.unknownLayout, path: path, unknown.description, underlying: unknown)
    }
}

/// The store-side name of ``LayoutRegistry``, under which the store's API first offered its lookups
/// (`Layouts.named`, `Layouts.all`): the same registry, not a second list.
public typealias Layouts = LayoutRegistry

/// A layout name that is neither built in nor registered: a misspelling, or a plug-in not registered
/// before the name is used.
public struct UnknownLayoutError: InstarError, Hashable {
    /// The name as it was given.
    public var name: String
    /// Every name a layout is known by at the time (``LayoutRegistry/names``).
    public var known: [String]
    /// Where the name was written (a plan file's `layout` key), when known.
    public var location: SourceLocation?

    /// Makes the error for `name`, given the names known at the time.
    public init(name: String, known: [String], location: SourceLocation? = nil) {
        self.name = name
        self.known = known
        self.location = location
    }

    /// The known name closest to ``name``, when one is close enough to be what was meant.
    public var suggestion: String? { Spelling.closest(to: name, among: known) }

    public var description: String {
        let prefix = location.map { "\($0): " } ?? ""
        let meant = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        return prefix + "unknown layout '\(name)'\(meant); layouts: \(known.joined(separator: ", ")) "
            + "(coredata:<framework version> for an older Core Data; a plug-in layout is registered before its name is used)"
    }
}
