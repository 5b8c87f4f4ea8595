/// An `NSExpression` as a mapping model uses it, whether it came from an archive in `xcmapping.xml`
/// or from format text (`$source.title`, `FUNCTION($manager, "…", "NoteToNote", $source.notes)`).
///
/// The cases follow NSExpression's own kinds so that nothing in a real mapping model has to be
/// approximated at read time; what SQL cannot express is decided later, by ``SQLTranslator``.
public indirect enum MappingExpression: Sendable, Hashable {
    /// A literal: string, number, Boolean, nil, date, or `{…}` of literals.
    case constant(MappingValue)
    /// `SELF`: the object a predicate is evaluated against (in a filter, the source instance).
    case evaluatedObject
    /// `$name`: `$source`, `$manager`, `$entityPolicy`, or a SUBQUERY's iteration variable.
    case variable(String)
    /// A key path, from `base` (nil: from the evaluated object, as `title` in a filter predicate).
    /// Components are kept as written, including collection operators such as `@count`.
    case keyPath(base: MappingExpression?, path: [String])
    /// `FUNCTION(target, "selector:", arguments…)`: a method sent to an object at migration time.
    case selector(target: MappingExpression, selector: String, arguments: [MappingExpression])
    /// A built-in function of NSExpression other than arithmetic (`now()`, `uppercase:(x)`, `sum:(…)`),
    /// named as NSExpression names it (with its colons).
    case function(name: String, arguments: [MappingExpression])
    /// `a + b`, `a - b`, `a * b`, `a / b`, `a ** b` (NSExpression's `add:to:` … `raise:toPower:`).
    case arithmetic(ArithmeticOperator, MappingExpression, MappingExpression)
    /// Unary minus (`-x`, NSExpression's `from:subtract:` with zero is printed the same way).
    case negate(MappingExpression)
    /// `{a, b, c}` with non-constant members.
    case aggregate([MappingExpression])
    /// `CAST(value, "Class")`, typically `CAST(700000000, "NSDate")`.
    case cast(MappingExpression, className: String)
    /// `collection[index]`, including `[FIRST]`, `[LAST]` and `[SIZE]` (index given as a key path).
    case index(MappingExpression, MappingExpression)
    /// `FETCH(request, context, countOnly)`: a fetch request run during the migration.
    case fetch(request: MappingExpression, context: MappingExpression, countOnly: Bool)
    /// `SUBQUERY(collection, $variable, predicate)`.
    case subquery(collection: MappingExpression, variable: String, predicate: MappingPredicate)
    /// `TERNARY(predicate, then, else)`.
    case conditional(MappingPredicate, MappingExpression, MappingExpression)
    /// An archived expression of a class this reader does not model (kept by name so that a report
    /// can say what it was, and the translator sends it to a hook instead of dropping it).
    case opaque(className: String)
}

public enum ArithmeticOperator: String, Sendable, Hashable, Codable {
    case add = "+", subtract = "-", multiply = "*", divide = "/", power = "**"
}

/// An `NSPredicate`: the filter of an entity mapping, or the predicate of a SUBQUERY / TERNARY.
public indirect enum MappingPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    case comparison(Comparison)
    case and([MappingPredicate])
    case or([MappingPredicate])
    case not(MappingPredicate)
}

/// One comparison: `lhs op[options] rhs`, possibly quantified (`ANY tags.name == "x"`).
public struct Comparison: Sendable, Hashable {
    public var lhs: MappingExpression
    public var op: ComparisonOperator
    public var rhs: MappingExpression
    public var quantifier: Quantifier
    public var options: ComparisonOptions

    public init(
        _ lhs: MappingExpression, _ op: ComparisonOperator, _ rhs: MappingExpression,
        quantifier: Quantifier = .direct, options: ComparisonOptions = []
    ) {
        self.lhs = lhs
        self.op = op
        self.rhs = rhs
        self.quantifier = quantifier
        self.options = options
    }
}

public enum ComparisonOperator: String, Sendable, Hashable, Codable {
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case matches = "MATCHES", like = "LIKE", beginsWith = "BEGINSWITH", endsWith = "ENDSWITH"
    case contains = "CONTAINS", `in` = "IN", between = "BETWEEN"
}

/// `ANY`/`SOME` (the same), `ALL`, `NONE`; `.direct` when the comparison is not quantified.
public enum Quantifier: String, Sendable, Hashable, Codable {
    case direct = "", any = "ANY", all = "ALL", none = "NONE"
}

/// The `[cdn]` options of a string comparison.
public struct ComparisonOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `[c]`: case-insensitive.
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive.
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    /// `[n]`: normalized (the caller promises pre-folded text; Core Data then compares bytes).
    public static let normalized = ComparisonOptions(rawValue: 4)
    /// `[l]`: locale-sensitive.
    public static let localeSensitive = ComparisonOptions(rawValue: 8)

    /// The letters as written in brackets, in Core Data's order (`cd`, `n`, `l`).
    public var letters: String {
        (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "")
            + (contains(.normalized) ? "n" : "") + (contains(.localeSensitive) ? "l" : "")
    }
}
