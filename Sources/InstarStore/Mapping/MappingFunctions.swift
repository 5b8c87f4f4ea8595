import GRDB
import InstarMapping
import InstarCompiler

/// Registers the ``MappingSQLFunction``s a mapping program calls on the step's connection, each
/// computing in Swift what Foundation computes (case folding, UTF-16 lengths, ICU regexes).
enum MappingFunctions {
    static func register(_ functions: Set<MappingSQLFunction>, in db: Database) {
        for function in functions.sorted(by: { $0.rawValue < $1.rawValue }) {
            db.add(
                function: DatabaseFunction(function.rawValue, argumentCount: function.argumentCount, pure: true) {
                    values in
                    function.evaluate(values.map(mappingValue)).databaseValue
                })
        }
    }

    static func mappingValue(_ value: DatabaseValue) -> MappingValue {
        switch value.storage {
        case .null: .null
        case .int64(let v): .integer(v)
        case .double(let v): .real(v)
        case .string(let s): .string(s)
        case .blob(let d): .data(d)
        }
    }
}

extension MappingStatement {
    /// The statement's values as GRDB binds them.
    var statementArguments: StatementArguments { StatementArguments(arguments.map(\.databaseValue)) }
}

extension MappingValue {
    var databaseValue: DatabaseValue { sqlValue.databaseValue }
}
