@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

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
///
/// An app registers its layouts once, at start, in the process-wide registry. A test registers inside
/// `withScope(_:)`: its registrations are seen by that task (and its child tasks)
/// only, and end with it, so tests running beside it, which list the names or detect stores, never see
/// them.
@_spi(Layouts) public enum LayoutRegistry {
    /// A registered layout's factory, called each time its name is resolved or a store is detected.
    @_spi(Layouts) public typealias Factory = @Sendable () -> any StoreLayout

    /// The process-wide registrations.
    private static let shared = Locked<[String: Factory]>([:])
    /// The registrations of the innermost `withScope(_:)` this task runs in, if any.
    @TaskLocal private static var scoped: Locked<[String: Factory]>?
    /// The registrations this task sees and changes: its scope's, else the process-wide ones.
    private static var plugIns: Locked<[String: Factory]> { scoped ?? shared }

    /// Runs `body` with a registry of its own: it starts with the registrations seen here, and what
    /// `body` registers or unregisters (in this task and the child tasks it starts) is seen only inside
    /// it and ends with it. For tests: they register layouts without changing what tests running beside
    /// them see.
    @_spi(Layouts) public static func withScope<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = $scoped.withValue(Locked(plugIns.current)) {
            do throws(E) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Runs the async `body` with a registry of its own (`withScope(_:)`).
    @_spi(Layouts) public static func withScope<R>(_ body: () async throws -> R) async rethrows -> R {
        try await $scoped.withValue(Locked(plugIns.current)) { try await body() }
    }

    /// The registry scope the calling task sees (none: the process-wide registry), for work the task
    /// hands to a thread of its own, which task-local values do not reach (``within(_:_:)``).
    package struct Scope: Sendable {
        fileprivate let table: Locked<[String: Factory]>?
    }

    /// The scope the calling task sees.
    package static var currentScope: Scope { Scope(table: scoped) }

    /// Runs `body` in `scope`: a thread that does a task's work sees the task's registrations.
    package static func within<R>(_ scope: Scope, _ body: () throws -> R) rethrows -> R {
        try $scoped.withValue(scope.table) { try body() }
    }

    /// Makes `name` stand for the layout `make` builds (whose ``StorageLayout/name`` should be `name`:
    /// it is what the store's metadata and reports record). A built-in name (``LayoutName``, including
    /// `coredata:<version>`) cannot be taken; registering a name again replaces its factory. Returns
    /// false when the name is refused.
    @discardableResult
    @_spi(Layouts) public static func register(_ name: String, _ make: @escaping Factory) -> Bool {
        guard LayoutName(name) == nil, !name.isEmpty else { return false }
        plugIns.withLock { $0[name] = make }
        return true
    }

    /// Removes a registered name (tests, or an app unloading a plug-in).
    @_spi(Layouts) public static func unregister(_ name: String) {
        plugIns.withLock { $0[name] = nil }
    }

    /// The registered plug-in layouts' names, sorted.
    @_spi(Layouts) public static var registeredNames: [String] { plugIns.withLock { $0.keys.sorted() } }

    /// Every layout name, built in first (``LayoutName/builtIn``), then the registered ones sorted: the
    /// list that help texts and errors show. `coredata:<framework version>` is accepted besides.
    @_spi(Layouts) public static var names: [String] { LayoutName.builtIn.map(\.description) + registeredNames }

    /// True when `name` stands for a built-in or a registered layout.
    @_spi(Layouts) public static func isKnown(_ name: String) -> Bool {
        LayoutName(name) != nil || plugIns.withLock { $0[name] != nil }
    }

    /// Every layout, in the order a store opened without a layout asks them whether it is theirs
    /// (``StoreLayout/recognizes(_:)``; the first that says yes wins, none: the Instar layout): the built-in
    /// ones, then each registered plug-in by name.
    @_spi(Layouts) public static var all: [any StoreLayout] {
        LayoutName.builtIn.map(layout) + plugIns.withLock { table in table.keys.sorted().map { table[$0]!() } }
    }

    /// The layout a built-in name stands for.
    @_spi(Layouts) public static func layout(_ name: LayoutName) -> any StoreLayout {
        switch name {
        case .instar: InstarLayout()
        case .plainSQL: PlainSQLLayout()
        case .coreData(let version): CoreDataLayout(frameworkVersion: version ?? CoreDataLayout.defaultFrameworkVersion)
        }
    }

    /// The layout `name` stands for, built in or registered; `coredata:<framework version>` chooses the
    /// conventions of an older Core Data. Nil for a name that is neither (``resolve(_:path:location:)``
    /// says why, with the known names).
    @_spi(Layouts) public static func named(_ name: String) -> (any StoreLayout)? {
        if let builtIn = LayoutName(name) { return layout(builtIn) }
        return plugIns.withLock { $0[name] }?()
    }

    /// The layout `name` stands for, or ``StoreError/Kind/unknownLayout`` carrying an
    /// ``UnknownLayoutError`` (the name, the known names, where it was written) as its `underlying`.
    /// `path` is the store or plan the name is for; `location`, where the name was written, when known.
    @_spi(Layouts) public static func resolve(_ name: String, path: String, location: SourceLocation? = nil) throws(StoreError) -> any StoreLayout {
        if let layout = named(name) { return layout }
        let unknown = UnknownLayoutError(name: name, known: names, location: location)
        throw StoreError(.unknownLayout, path: path, reason: .underlying, underlying: unknown)
    }
}

/// The store-side name of ``LayoutRegistry``, under which the store's API first offered its lookups
/// (`Layouts.named`, `Layouts.all`): the same registry, not a second list.
package typealias Layouts = LayoutRegistry

/// A layout name that is neither built in nor registered: a misspelling, or a plug-in not registered
/// before the name is used.
public struct UnknownLayoutError: InstarError, Hashable {
    /// The name as it was given.
    public var name: String
    /// Every name a layout is known by at the time (`LayoutRegistry.names`).
    public var known: [String]
    /// Where the name was written (a plan file's `layout` key), when known.
    public var location: SourceLocation?

    /// Makes the error for `name`, given the names known at the time.
    package init(name: String, known: [String], location: SourceLocation? = nil) {
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
