@_spi(Layouts) import InstarSQL

/// Translates mapping expressions and filter predicates to SQLite SQL over the source row.
///
/// Semantics follow Core Data, not SQL: `==` and `!=` treat nil as a value (`IS`/`IS NOT`), every
/// predicate yields 0 or 1 (never NULL, so `NOT` and `OR` behave as NSPredicate's two-valued logic),
/// string tests use `substr`/`instr` so `%` and `_` in data are ordinary characters, `LIKE` becomes
/// `GLOB` with its metacharacters escaped, and `/` divides as doubles. Where SQLite's built-ins differ
/// from Foundation (case folding beyond ASCII, regular expressions, UTF-16 lengths) the SQL calls a
/// ``MappingSQLFunction`` that the runtime registers. Whatever SQL cannot do becomes a hook reason.
package struct SQLTranslator: Sendable {
    /// The source entity: `$source` in value expressions and the evaluated object in filters.
    package var entity: String
    package var resolver: any MappingColumnResolver

    package init(entity: String, resolver: any MappingColumnResolver) {
        self.entity = entity
        self.resolver = resolver
    }

    /// A property mapping's value expression; `hookName` names the hook if one is needed.
    package func translate(value expression: MappingExpression?, hookName: String) -> MappingTranslation {
        guard let expression else { return .none }
        if let relationship = Self.relationshipLookup(expression) { return relationship }
        do {
            var builder = SQLBuilder(encoding: resolver.valueEncoding)
            let sql = try scalar(expression, &builder)
            return .sql(builder.fragment(sql))
        } catch {
            return .needsHook(name: hookName, reason: error)
        }
    }

    /// An entity mapping's filter predicate.
    package func translate(filter predicate: MappingPredicate, hookName: String) -> MappingTranslation {
        do {
            var builder = SQLBuilder(encoding: resolver.valueEncoding)
            let sql = try condition(predicate, &builder)
            return .sql(builder.fragment(sql))
        } catch {
            return .needsHook(name: hookName, reason: error)
        }
    }

    /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "M", $source.k)`.
    static func relationshipLookup(_ expression: MappingExpression) -> MappingTranslation? {
        guard case .selector(.variable("manager"), MappingExpression.destinationInstancesSelector, let arguments) = expression,
            arguments.count == 2, case .constant(.string(let name)) = arguments[0]
        else { return nil }
        switch arguments[1] {
        case .keyPath(.variable("source")?, let path): return .relationshipFromMapping(mappingName: name, sourceKeyPath: path)
        case .variable("source"): return .relationshipFromMapping(mappingName: name, sourceKeyPath: [])
        default: return nil
        }
    }

    // MARK: Scalar expressions

    func scalar(_ expression: MappingExpression, _ builder: inout SQLBuilder) throws(HookReason) -> String {
        switch expression {
        case .constant(let value):
            return try builder.bind(value)
        case .keyPath(let base, let path):
            if let operation = path.first(where: { $0.hasPrefix("@") }) {
                throw .collection("collection operator \(operation)")
            }
            guard base == nil || base == .variable("source") else {
                if case .variable(let name)? = base { throw .unsupported("a key path on $\(name)") }
                throw .unsupported("a key path on a computed value")
            }
            return try column(path, &builder)
        case .variable(let name):
            throw .unsupported(name == "source" ? "the source object itself as a value" : "the variable $\(name)")
        case .evaluatedObject:
            throw .unsupported("SELF as a value")
        case .selector(let target, let selector, let arguments):
            return try message(target, selector, arguments, &builder)
        case .function(let name, let arguments):
            return try function(name, arguments, &builder)
        case .arithmetic(let op, let lhs, let rhs):
            let left = try scalar(lhs, &builder), right = try scalar(rhs, &builder)
            switch op {
            case .add, .subtract, .multiply: return "(\(left) \(op.rawValue) \(right))"
            // NSExpression divides doubles; SQLite would divide integers as integers.
            case .divide: return "(CAST(\(left) AS REAL) / \(right))"
            case .power: throw .unknownFunction("raise:toPower: (SQLite's pow() is optional)")
            }
        case .negate(let operand):
            return "(- \(try scalar(operand, &builder)))"
        case .cast(let value, let className):
            let operand = try scalar(value, &builder)
            switch className {
            case "NSDate", "NSNumber": return "CAST(\(operand) AS REAL)"
            case "NSString": return builder.call(.stringValue, operand)
            default: throw .unsupported("CAST to \(className)")
            }
        case .conditional(let predicate, let then, let otherwise):
            let test = try condition(predicate, &builder)
            return "(CASE WHEN \(test) THEN \(try scalar(then, &builder)) ELSE \(try scalar(otherwise, &builder)) END)"
        case .fetch:
            throw .collection("FETCH")
        case .subquery:
            throw .collection("SUBQUERY")
        case .aggregate, .index:
            throw .collection("a collection expression")
        case .opaque(let className):
            throw .unsupported("archived \(className)")
        }
    }

    /// A key path from the source row, through the resolver.
    func column(_ path: [String], _ builder: inout SQLBuilder) throws(HookReason) -> String {
        let text = path.joined(separator: ".")
        if path.contains(where: { $0.hasPrefix("@") }) {
            throw .collection("collection operator in \(text)")
        }
        switch resolver.resolve(entity: entity, keyPath: path) {
        case .column(let column)?:
            builder.addJoins(column.joins)
            return column.sql
        case .toMany(let relationship)?:
            throw .collection("to-many relationship \(relationship) in \(text)")
        case nil:
            throw .unresolvedKeyPath("\(entity).\(text)")
        }
    }

    /// `FUNCTION(target, "selector", arguments…)`: the NSString/NSNumber methods SQL can do exactly.
    func message(
        _ target: MappingExpression, _ selector: String, _ arguments: [MappingExpression], _ builder: inout SQLBuilder
    ) throws(HookReason) -> String {
        switch target {
        case .variable("entityPolicy"): throw .policyFunction(selector: selector)
        case .variable("manager"): throw .managerCall(selector: selector)
        default: break
        }
        let receiver = try scalar(target, &builder)
        switch (selector, arguments.count) {
        case ("uppercaseString", 0): return builder.call(.upper, receiver)
        case ("lowercaseString", 0): return builder.call(.lower, receiver)
        case ("length", 0): return builder.call(.length, receiver)
        case ("stringValue", 0), ("description", 0): return builder.call(.stringValue, receiver)
        case ("intValue", 0), ("integerValue", 0), ("longLongValue", 0), ("shortValue", 0):
            return "CAST(\(receiver) AS INTEGER)"
        case ("doubleValue", 0), ("floatValue", 0): return "CAST(\(receiver) AS REAL)"
        case ("boolValue", 0): return builder.call(.boolValue, receiver)
        case ("stringByAppendingString:", 1): return "(\(receiver) || \(try scalar(arguments[0], &builder)))"
        default: throw .unknownSelector(selector)
        }
    }

    /// NSExpression's built-in functions that SQL can do exactly.
    func function(_ name: String, _ arguments: [MappingExpression], _ builder: inout SQLBuilder) throws(HookReason)
        -> String
    {
        switch (name, arguments.count) {
        case ("now", 0): return builder.encoding.now
        case ("uppercase:", 1): return builder.call(.upper, try scalar(arguments[0], &builder))
        case ("lowercase:", 1): return builder.call(.lower, try scalar(arguments[0], &builder))
        case ("abs:", 1): return "abs(\(try scalar(arguments[0], &builder)))"
        case ("modulus:by:", 2):
            return "(\(try scalar(arguments[0], &builder)) % \(try scalar(arguments[1], &builder)))"
        default: throw .unknownFunction(name)
        }
    }
}

extension HookReason: Error {}

/// Accumulates the bound values, joins and functions while SQL text is built.
struct SQLBuilder {
    /// The store's encoding of dates, for constants.
    let encoding: ValueEncoding
    var arguments: [MappingValue] = []
    var joins: [String] = []
    var functions: Set<MappingSQLFunction> = []

    /// A `?` for the value, in the store's encoding (Booleans 0/1, dates as ``ValueEncoding`` says).
    mutating func bind(_ value: MappingValue) throws(HookReason) -> String {
        switch value {
        case .null: return "NULL"
        case .bool(let flag): arguments.append(.integer(flag ? 1 : 0))
        case .date(let seconds):
            switch encoding.storedDate(secondsSinceReferenceDate: seconds) {
            case .real(let stored): arguments.append(.real(stored))
            case .text(let stored): arguments.append(.string(stored))
            }
        case .integer, .real, .string, .data: arguments.append(value)
        case .array, .dictionary: throw .collection("a constant collection")
        }
        return "?"
    }

    mutating func addJoins(_ clauses: [String]) {
        for clause in clauses where !joins.contains(clause) { joins.append(clause) }
    }

    mutating func call(_ function: MappingSQLFunction, _ arguments: String...) -> String {
        functions.insert(function)
        return function.rawValue + "(" + arguments.joined(separator: ", ") + ")"
    }

    func fragment(_ sql: String) -> SQLFragment {
        SQLFragment(sql: sql, arguments: arguments, joins: joins, functions: functions)
    }
}
