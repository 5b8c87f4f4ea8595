/// SQL for one expression or predicate: text with `?` placeholders, the values to bind, the joins it
/// needs and the SQL functions the runtime must register before running it.
///
/// Values are always bound, never spliced into the text: the text contains only SQL keywords, `?`, and
/// identifiers the resolver supplied.
package struct SQLFragment: Sendable, Hashable, Codable {
    package var sql: String
    /// In placeholder order. Booleans are bound as 0/1 and dates as seconds since 2001 (Core Data's
    /// encodings); the runtime turns each into its database value.
    package var arguments: [MappingValue]
    /// Join clauses from the resolver, each once, in first-use order.
    package var joins: [String]
    /// Functions this SQL calls that SQLite lacks; register them from ``MappingSQLFunction``.
    package var functions: Set<MappingSQLFunction>

    package init(sql: String, arguments: [MappingValue] = [], joins: [String] = [], functions: Set<MappingSQLFunction> = []) {
        self.sql = sql
        self.arguments = arguments
        self.joins = joins
        self.functions = functions
    }
}

/// What a value expression or filter becomes.
package enum MappingTranslation: Sendable, Hashable {
    /// Computable in SQL from the source row.
    case sql(SQLFragment)
    /// A relationship filled by following rows: the destination instances that entity mapping
    /// `mappingName` made from the source instances at `sourceKeyPath` (from `$source`).
    case relationshipFromMapping(mappingName: String, sourceKeyPath: [String])
    /// Needs app code: a hook with this stable name, for this reason.
    case needsHook(name: String, reason: HookReason)
    /// The property has no expression: the destination keeps its default value.
    case none
}

/// Why SQL cannot do it. Stable, so that reports and hook registries can rely on the cases.
package enum HookReason: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The entity mapping names an `NSEntityMigrationPolicy` subclass.
    case customPolicy(className: String)
    /// `FUNCTION($entityPolicy, "selector", …)`: a method of the custom policy.
    case policyFunction(selector: String)
    /// `FUNCTION($manager, "selector", …)` other than the relationship lookup.
    case managerCall(selector: String)
    /// A method SQL has no equivalent for.
    case unknownSelector(String)
    /// A built-in NSExpression function SQL has no equivalent for.
    case unknownFunction(String)
    /// `FETCH(…)`, `SUBQUERY(…)`, a quantified comparison, or a to-many key path: collections.
    case collection(String)
    /// A key path the resolver does not know.
    case unresolvedKeyPath(String)
    /// `[d]` or `[l]`: diacritic- or locale-sensitive comparison, which SQLite cannot do exactly.
    case unsupportedComparisonOption(String)
    /// Anything else the translator does not handle, described.
    case unsupported(String)

    package var description: String {
        switch self {
        case .customPolicy(let name): "custom migration policy \(name)"
        case .policyFunction(let selector): "custom policy method \(selector)"
        case .managerCall(let selector): "migration manager method \(selector)"
        case .unknownSelector(let selector): "method \(selector) has no SQL equivalent"
        case .unknownFunction(let name): "function \(name) has no SQL equivalent"
        case .collection(let what): "\(what) works on collections"
        case .unresolvedKeyPath(let path): "key path \(path) is not in the store"
        case .unsupportedComparisonOption(let option): "comparison option [\(option)] cannot be exact in SQLite"
        case .unsupported(let what): what
        }
    }

    /// A short stable category, for counting by reason.
    package var category: String {
        switch self {
        case .customPolicy: "custom policy"
        case .policyFunction: "policy function"
        case .managerCall: "manager call"
        case .unknownSelector: "unknown selector"
        case .unknownFunction: "unknown function"
        case .collection: "collection"
        case .unresolvedKeyPath: "unresolved key path"
        case .unsupportedComparisonOption: "comparison option"
        case .unsupported: "unsupported"
        }
    }
}
