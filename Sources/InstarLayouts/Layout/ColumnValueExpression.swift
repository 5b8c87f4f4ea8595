import Foundation
@_spi(Layouts) import InstarSQL

/// A target column's value, as an expression over the columns of the source row.
///
/// Steps compile to these rather than to SQL strings so that the executor can tell an in-place
/// `ALTER TABLE` (every column a plain copy or a constant) from a rebuild, and so that consecutive
/// steps can later be fused by substituting one step's expressions into the next.
@_spi(Layouts) public indirect enum ColumnValueExpression: Sendable, Hashable {
    /// The value of a source column.
    case column(String)
    /// A constant, bound as a statement argument.
    case value(SQLValue)
    /// `CAST(x AS type)`.
    case cast(ColumnValueExpression, ColumnType)
    /// `x` as 0/1, NULL kept (numbers → Boolean: zero is NO, anything else YES).
    case boolean(ColumnValueExpression)
    /// `COALESCE(x, y)`.
    case coalesce(ColumnValueExpression, ColumnValueExpression)
    /// `CASE x WHEN k1 THEN v1 … END`: renumbering or renaming discriminator values.
    case mapping(ColumnValueExpression, [ValueMapping])
    /// A 1-based position among rows sharing `partition`, ordered by `order`, times `step`:
    /// positions for a relationship that becomes ordered.
    case position(partition: ColumnValueExpression, order: [ColumnValueExpression], step: Int64)
    /// `CASE WHEN discriminator IN (values) THEN x ELSE y END`: a value chosen by the row's entity.
    case choose(discriminator: String, values: [SQLValue], then: ColumnValueExpression, else: ColumnValueExpression)
    /// `(SELECT value FROM table WHERE key = x LIMIT 1)`: a link read from another table, when a
    /// relationship's storage moves from a join table to a foreign key, or the entity of the row a
    /// foreign key points to (Core Data's `Z<n>_<REL>` columns).
    case lookup(table: String, value: String, key: String, equals: ColumnValueExpression)
    /// `CAST(prefix || x AS BLOB)`: bytes put before a blob, NULL kept (Core Data's inline tag `0x01`
    /// when a Binary attribute starts allowing external storage).
    case prefixed(ColumnValueExpression, Data)

    /// One `WHEN from THEN to` arm of a ``ColumnValueExpression/mapping(_:_:)``.
    @_spi(Layouts) public struct ValueMapping: Sendable, Hashable {
        /// The value to replace.
        @_spi(Layouts) public var from: SQLValue
        /// What it becomes.
        @_spi(Layouts) public var to: SQLValue
        /// An arm mapping `from` to `to`.
        @_spi(Layouts) public init(from: SQLValue, to: SQLValue) {
            self.from = from
            self.to = to
        }
    }

    /// The constant NULL: the value of a column that has no source (a new optional attribute).
    @_spi(Layouts) public static let null = ColumnValueExpression.value(.null)

    /// The single source column this expression copies unchanged, if that is all it does.
    @_spi(Layouts) public var copiedColumn: String? {
        if case .column(let name) = self { return name }
        return nil
    }

    /// The constant this expression is, if it is one.
    @_spi(Layouts) public var constant: SQLValue? {
        if case .value(let v) = self { return v }
        return nil
    }

    /// Source columns the expression reads.
    @_spi(Layouts) public var sourceColumns: Set<String> {
        switch self {
        case .column(let c): [c]
        case .value: []
        case .cast(let e, _), .boolean(let e): e.sourceColumns
        case .coalesce(let a, let b): a.sourceColumns.union(b.sourceColumns)
        case .mapping(let e, _): e.sourceColumns
        case .position(let p, let order, _): order.reduce(p.sourceColumns) { $0.union($1.sourceColumns) }
        case .lookup(_, _, _, let e): e.sourceColumns
        case .prefixed(let e, _): e.sourceColumns
        case .choose(let d, _, let a, let b): a.sourceColumns.union(b.sourceColumns).union([d])
        }
    }

    /// Replaces each source column by an expression: how two consecutive transformations compose.
    @_spi(Layouts) public func substituting(_ replacement: (String) -> ColumnValueExpression) -> ColumnValueExpression {
        switch self {
        case .column(let c): replacement(c)
        case .value: self
        case .cast(let e, let t): .cast(e.substituting(replacement), t)
        case .boolean(let e): .boolean(e.substituting(replacement))
        case .coalesce(let a, let b): .coalesce(a.substituting(replacement), b.substituting(replacement))
        case .mapping(let e, let m): .mapping(e.substituting(replacement), m)
        case .position(let p, let o, let s):
            .position(partition: p.substituting(replacement), order: o.map { $0.substituting(replacement) }, step: s)
        case .lookup(let t, let v, let k, let e): .lookup(table: t, value: v, key: k, equals: e.substituting(replacement))
        case .prefixed(let e, let bytes): .prefixed(e.substituting(replacement), bytes)
        case .choose(let d, let values, let a, let b):
            // The discriminator itself is a source column; it must stay a plain column to be chosen on.
            .choose(discriminator: replacement(d).copiedColumn ?? d, values: values, then: a.substituting(replacement),
                else: b.substituting(replacement))
        }
    }

    /// The same expression reading other tables (lookups) under new names.
    @_spi(Layouts) public func renamingTables(_ rename: (String) -> String) -> ColumnValueExpression {
        switch self {
        case .column, .value: self
        case .cast(let e, let t): .cast(e.renamingTables(rename), t)
        case .boolean(let e): .boolean(e.renamingTables(rename))
        case .coalesce(let a, let b): .coalesce(a.renamingTables(rename), b.renamingTables(rename))
        case .mapping(let e, let m): .mapping(e.renamingTables(rename), m)
        case .position(let p, let o, let s):
            .position(partition: p.renamingTables(rename), order: o.map { $0.renamingTables(rename) }, step: s)
        case .lookup(let t, let v, let k, let e): .lookup(table: rename(t), value: v, key: k, equals: e.renamingTables(rename))
        case .prefixed(let e, let bytes): .prefixed(e.renamingTables(rename), bytes)
        case .choose(let d, let values, let a, let b):
            .choose(discriminator: d, values: values, then: a.renamingTables(rename), else: b.renamingTables(rename))
        }
    }

    /// Renders SQL, appending bound values to `arguments`. `qualifier` prefixes column references.
    @_spi(Layouts) public func render(_ arguments: inout [SQLValue], qualifier: String? = nil) -> String {
        switch self {
        case .column(let c):
            return (qualifier.map { $0.sqlQuoted + "." } ?? "") + c.sqlQuoted
        case .value(let v):
            if v == .null { return "NULL" }
            arguments.append(v)
            return "?"
        case .cast(let e, let t):
            return "CAST(\(e.render(&arguments, qualifier: qualifier)) AS \(t.rawValue))"
        case .boolean(let e):
            // The operand appears twice in the text, so its bound values are appended twice, in order.
            let first = e.render(&arguments, qualifier: qualifier)
            let second = e.render(&arguments, qualifier: qualifier)
            return "(CASE WHEN \(first) IS NULL THEN NULL WHEN \(second) <> 0 THEN 1 ELSE 0 END)"
        case .coalesce(let a, let b):
            return "COALESCE(\(a.render(&arguments, qualifier: qualifier)), \(b.render(&arguments, qualifier: qualifier)))"
        case .mapping(let e, let pairs):
            var text = "(CASE \(e.render(&arguments, qualifier: qualifier))"
            for pair in pairs {
                text += " WHEN \(ColumnValueExpression.value(pair.from).render(&arguments)) THEN \(ColumnValueExpression.value(pair.to).render(&arguments))"
            }
            return text + " END)"
        case .position(let partition, let order, let step):
            // Rows outside any owner (a NULL foreign key) have no position. The partition appears
            // twice in the text, so its bound values are appended twice, in text order.
            let test = partition.render(&arguments, qualifier: qualifier)
            let p = partition.render(&arguments, qualifier: qualifier)
            let o = order.map { $0.render(&arguments, qualifier: qualifier) }.joined(separator: ", ")
            arguments.append(.integer(step))
            return "(CASE WHEN \(test) IS NULL THEN NULL ELSE ROW_NUMBER() OVER (PARTITION BY \(p) ORDER BY \(o)) * ? END)"
        case .lookup(let table, let value, let key, let e):
            // The looked-up table is aliased, so that with a qualifier the source row's columns never
            // bind to its columns (the lookup may read the source table itself).
            let x = e.render(&arguments, qualifier: qualifier)
            let alias = "_instar_lookup".sqlQuoted
            return "(SELECT \(alias).\(value.sqlQuoted) FROM \(table.sqlQuoted) AS \(alias) WHERE \(alias).\(key.sqlQuoted) = \(x) LIMIT 1)"
        case .prefixed(let e, let bytes):
            arguments.append(.blob(bytes))
            return "CAST(? || \(e.render(&arguments, qualifier: qualifier)) AS BLOB)"
        case .choose(let discriminator, let values, let a, let b):
            let column = (qualifier.map { $0.sqlQuoted + "." } ?? "") + discriminator.sqlQuoted
            arguments += values
            let marks = values.map { _ in "?" }.joined(separator: ", ")
            let then = a.render(&arguments, qualifier: qualifier)
            let otherwise = b.render(&arguments, qualifier: qualifier)
            return "(CASE WHEN \(column) IN (\(marks)) THEN \(then) ELSE \(otherwise) END)"
        }
    }
}

/// A condition on source rows: which rows a transformation carries over.
package enum RowPredicate: Sendable, Hashable {
    /// The column's value is one of these.
    case isIn(String, [SQLValue])
    /// The column's value is not NULL.
    case isNotNull(String)
    /// An expression's value is one of these (a fused step filtering on a converted column).
    case expressionIn(ColumnValueExpression, [SQLValue])
    /// An expression's value is not NULL.
    case expressionNotNull(ColumnValueExpression)

    /// The predicate over the rows of an earlier table, given each column's expression there.
    package func substituting(_ replacement: (String) -> ColumnValueExpression) -> RowPredicate {
        switch self {
        case .isIn(let c, let values):
            let e = replacement(c)
            return e.copiedColumn.map { .isIn($0, values) } ?? .expressionIn(e, values)
        case .isNotNull(let c):
            let e = replacement(c)
            return e.copiedColumn.map { .isNotNull($0) } ?? .expressionNotNull(e)
        case .expressionIn(let e, let values): return .expressionIn(e.substituting(replacement), values)
        case .expressionNotNull(let e): return .expressionNotNull(e.substituting(replacement))
        }
    }

    package func render(_ arguments: inout [SQLValue], qualifier: String? = nil) -> String {
        let q = qualifier.map { $0.sqlQuoted + "." } ?? ""
        switch self {
        case .expressionIn(let e, let values):
            let x = e.render(&arguments, qualifier: qualifier)
            arguments += values
            return "\(x) IN (\(values.map { _ in "?" }.joined(separator: ", ")))"
        case .expressionNotNull(let e):
            return "\(e.render(&arguments, qualifier: qualifier)) IS NOT NULL"
        case .isIn(let column, let values):
            arguments += values
            return "\(q)\(column.sqlQuoted) IN (\(values.map { _ in "?" }.joined(separator: ", ")))"
        case .isNotNull(let column):
            return "\(q)\(column.sqlQuoted) IS NOT NULL"
        }
    }
}
