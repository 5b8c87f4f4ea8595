/// An `NSExpression` as a mapping model uses it, whether it came from an archive in `xcmapping.xml`
/// or from format text (`$source.title`, `FUNCTION($manager, "…", "NoteToNote", $source.notes)`).
///
/// The cases follow NSExpression's own kinds so that nothing in a real mapping model has to be
/// approximated at read time; what SQL cannot express is decided later, by ``SQLTranslator``.
package indirect enum MappingExpression: Sendable, Hashable {
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

/// The operator of an arithmetic expression; the raw value is its spelling in format text.
package enum ArithmeticOperator: String, Sendable, Hashable, Codable {
    /// `a + b` (`add:to:`).
    case add = "+"
    /// `a - b` (`from:subtract:`).
    case subtract = "-"
    /// `a * b` (`multiply:by:`).
    case multiply = "*"
    /// `a / b` (`divide:by:`).
    case divide = "/"
    /// `a ** b` (`raise:toPower:`).
    case power = "**"
}

/// An `NSPredicate`: the filter of an entity mapping, or the predicate of a SUBQUERY / TERNARY.
package indirect enum MappingPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    /// One comparison.
    case comparison(Comparison)
    /// `a AND b AND …`: true when every member is.
    case and([MappingPredicate])
    /// `a OR b OR …`: true when any member is.
    case or([MappingPredicate])
    /// `NOT p`.
    case not(MappingPredicate)
}

/// One comparison: `lhs op[options] rhs`, possibly quantified (`ANY tags.name == "x"`).
package struct Comparison: Sendable, Hashable {
    /// The left operand (for a quantified comparison, the collection the quantifier ranges over).
    package var lhs: MappingExpression
    /// The comparison operator.
    package var op: ComparisonOperator
    /// The right operand.
    package var rhs: MappingExpression
    /// `ANY`, `ALL` or `NONE` over a collection on the left; ``Quantifier/direct`` when not quantified.
    package var quantifier: Quantifier
    /// The `[cdnl]` options, for string comparisons; empty otherwise.
    package var options: ComparisonOptions

    /// A comparison; unquantified and without options unless told otherwise.
    package init(
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

/// The operator of a comparison; the raw value is its spelling in predicate format text.
package enum ComparisonOperator: String, Sendable, Hashable, Codable {
    /// `==`: equal.
    case equal = "=="
    /// `!=`: not equal.
    case notEqual = "!="
    /// `<`: less than.
    case less = "<"
    /// `<=`: less than or equal.
    case lessOrEqual = "<="
    /// `>`: greater than.
    case greater = ">"
    /// `>=`: greater than or equal.
    case greaterOrEqual = ">="
    /// `MATCHES`: the whole string matches an ICU regular expression.
    case matches = "MATCHES"
    /// `LIKE`: matches a pattern with `*` and `?` wildcards.
    case like = "LIKE"
    /// `BEGINSWITH`: string prefix.
    case beginsWith = "BEGINSWITH"
    /// `ENDSWITH`: string suffix.
    case endsWith = "ENDSWITH"
    /// `CONTAINS`: substring, or membership when the left side is a collection.
    case contains = "CONTAINS"
    /// `IN`: the left side is in the right-hand collection (or a substring of the right-hand string).
    case `in` = "IN"
    /// `BETWEEN`: within the right side's `{low, high}`, bounds included.
    case between = "BETWEEN"
}

/// `ANY`/`SOME` (the same), `ALL`, `NONE`; `.direct` when the comparison is not quantified.
package enum Quantifier: String, Sendable, Hashable, Codable {
    /// Not quantified: the comparison applies to the value itself.
    case direct = ""
    /// `ANY` (or `SOME`): true when some member of the collection matches.
    case any = "ANY"
    /// `ALL`: true when every member matches.
    case all = "ALL"
    /// `NONE`: true when no member matches.
    case none = "NONE"
}

/// The `[cdn]` options of a string comparison.
package struct ComparisonOptions: OptionSet, Sendable, Hashable {
    /// The options as bits, in `NSComparisonPredicate.Options` order (`[c]` 1, `[d]` 2, `[n]` 4, `[l]` 8).
    package let rawValue: Int
    /// The options these bits stand for.
    package init(rawValue: Int) { self.rawValue = rawValue }
    /// `[c]`: case-insensitive.
    package static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive.
    package static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    /// `[n]`: normalized (the caller promises pre-folded text; Core Data then compares bytes).
    package static let normalized = ComparisonOptions(rawValue: 4)
    /// `[l]`: locale-sensitive.
    package static let localeSensitive = ComparisonOptions(rawValue: 8)

    /// The letters as written in brackets, in Core Data's order (`cd`, `n`, `l`).
    package var letters: String {
        (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "")
            + (contains(.normalized) ? "n" : "") + (contains(.localeSensitive) ? "l" : "")
    }
}
