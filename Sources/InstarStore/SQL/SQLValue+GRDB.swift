import GRDB
@_spi(Layouts) import InstarLayouts

// SQLValue is pure (the compiler and the layouts build statements with it); the conversions to and from
// GRDB's values live here, in the one module that executes statements.
extension SQLValue {
    /// The value as GRDB binds it as a statement argument.
    @_spi(Layouts) public var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let v): v.databaseValue
        case .real(let v): v.databaseValue
        case .text(let s): s.databaseValue
        case .blob(let d): d.databaseValue
        }
    }

    /// The value GRDB read from the database, by its storage class.
    @_spi(Layouts) public init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let v): self = .integer(v)
        case .double(let v): self = .real(v)
        case .string(let s): self = .text(s)
        case .blob(let d): self = .blob(d)
        }
    }
}
