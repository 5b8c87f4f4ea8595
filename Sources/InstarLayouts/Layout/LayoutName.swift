/// The name of a store layout, as plan files, metadata and `--layout` flags spell it.
///
/// The layouts themselves live in the store module (they read and write SQLite); the planner and the
/// plan reader only need to know which names exist, so the list is here, below both.
public enum LayoutName: Sendable, Hashable, CustomStringConvertible {
    /// Instar's own conventions: a table per root entity, `_pk` keys, `_entity` discriminators.
    case instar
    /// Core Data's SQLite store; `frameworkVersion` chooses an older framework's conventions
    /// (`coredata:637`), nil the current ones.
    case coreData(frameworkVersion: Int?)
    /// Plain SQL tables named as the model says (naming keys), for databases Instar did not create.
    case plainSQL

    /// The names a plan may use, for help texts and hints.
    public static let spellings = ["instar", "coredata", "sql"]

    /// Parses `instar`, `sql`, `coredata` or `coredata:<framework version>`; nil for anything else.
    public init?(_ spec: String) {
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

    public var description: String {
        switch self {
        case .instar: "instar"
        case .plainSQL: "sql"
        case .coreData(nil): "coredata"
        case .coreData(let version?): "coredata:\(version)"
        }
    }
}

/// The Instar layout's fixed column names, shared by the layout (store module) and the planner's
/// synthesized hooks when no layout is at hand.
package enum InstarLayoutColumns {
    /// The integer primary key of every entity table.
    package static let primaryKey = "_pk"
    /// The column naming the concrete entity of each row in a table shared by a hierarchy.
    package static let discriminator = "_entity"
}
