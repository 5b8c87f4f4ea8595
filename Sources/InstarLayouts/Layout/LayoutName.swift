/// The name of a store layout, as plan files, metadata and `--layout` flags spell it.
///
/// The built-in layouts' names; `LayoutRegistry` (in the store) maps names, these and those of
/// registered plug-in layouts, to layouts, and lists them all.
@_spi(Layouts) public enum LayoutName: Sendable, Hashable, CustomStringConvertible {
    /// Instar's own conventions: a table per root entity, `_pk` keys, `_entity` discriminators.
    case instar
    /// Core Data's SQLite store; `frameworkVersion` chooses an older framework's conventions
    /// (`coredata:637`), nil the current ones.
    case coreData(frameworkVersion: Int?)
    /// Plain SQL tables named as the model says (naming keys), for databases Instar did not create.
    case plainSQL

    /// The built-in layouts, in the order a store's bookkeeping is shown to them; their descriptions
    /// are the built-in names (`LayoutRegistry.names` adds the registered ones).
    @_spi(Layouts) public static let builtIn: [LayoutName] = [.instar, .coreData(frameworkVersion: nil), .plainSQL]

    /// Parses `instar`, `sql`, `coredata` or `coredata:<framework version>`; nil for anything else.
    @_spi(Layouts) public init?(_ spec: String) {
        switch spec {
        case "instar": self = .instar
        case "sql": self = .plainSQL
        case "coredata": self = .coreData(frameworkVersion: nil)
        default:
            let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "coredata", let version = Int(parts[1]), version > 0 else { return nil }
            self = .coreData(frameworkVersion: version)
        }
    }

    @_spi(Layouts) public var description: String {
        switch self {
        case .instar: "instar"
        case .plainSQL: "sql"
        case .coreData(nil): "coredata"
        case .coreData(let version?): "coredata:\(version)"
        }
    }
}
