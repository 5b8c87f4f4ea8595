import InstarModel

/// The layouts a name can stand for: the built-in ones (``LayoutName``) and those an app or a tool
/// registers, so that a plan file or `--layout` may name a plug-in layout.
///
/// Open, not a closed list: a plug-in layout registers its name once, before plans naming it are read.
/// A name that is neither built in nor registered is an error wherever it is read (the plan reader, the
/// store's `Layouts.resolve`), never a silent fall-back to the Instar layout.
public enum LayoutRegistry {
    /// A registered layout's factory, called each time its name is resolved.
    public typealias Factory = @Sendable () -> any StorageLayout

    private static let plugIns = Locked<[String: Factory]>([:])

    /// Makes `name` stand for the layout `make` builds. A built-in name (``LayoutName``) cannot be
    /// taken; registering a name again replaces its factory. Returns false when the name is refused.
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

    /// True when `spec` names a built-in layout or a registered one.
    public static func isKnown(_ spec: String) -> Bool {
        LayoutName(spec) != nil || plugIns.withLock { $0[spec] != nil }
    }

    /// The registered plug-in layout `spec` names; nil for a built-in or unknown name.
    public static func plugIn(named spec: String) -> (any StorageLayout)? {
        plugIns.withLock { $0[spec] }?()
    }

    /// The registered plug-in layouts' names, sorted.
    public static var registeredNames: [String] { plugIns.withLock { $0.keys.sorted() } }

    /// Every name a plan may use, built-in first, for help texts and errors.
    public static var spellings: [String] {
        LayoutName.spellings + plugIns.withLock { $0.keys.sorted() }
    }
}
