@_spi(Layouts) import InstarModel

/// The SQL of the type changes inference accepts (numbers and Booleans; Binary ↔ Transformable),
/// shared by the layouts: they store these types the same way, as SQLite integers, reals and blobs.
enum ValueConversion {
    static func convert(_ value: ColumnValueExpression, from: AttributeType, to: AttributeType) -> ColumnValueExpression {
        switch (from, to) {
        case (let a, let b) where a == b: value
        case (_, .boolean): .boolean(value)
        case (_, .integer16), (_, .integer32), (_, .integer64):
            from.isInteger || from == .boolean ? value : .cast(value, .integer)
        case (_, .double), (_, .float): .cast(value, .real)
        case (_, .decimal): .cast(value, .numeric)
        default: value  // Binary ↔ Transformable: the bytes are kept
        }
    }
}
