@_spi(Layouts) import InstarModel

/// The names a schema's raw objects (``RawSQL``) cover: raw tables (with the shadow tables of a
/// virtual table, which SQLite creates with it) and raw indexes are compared by their SQL text, not
/// column by column.
package struct RawNames {
    var tables: Set<String> = []
    var virtualTables: [String] = []
    var indexes: Set<String> = []

    package init(_ raw: [RawSQL]) {
        for object in raw {
            switch object.kind {
            case .table:
                tables.insert(object.name)
                if SQLKeywords.words(of: object.sql).prefix(2) == ["CREATE", "VIRTUAL"] { virtualTables.append(object.name) }
            case .index: indexes.insert(object.name)
            case .view, .trigger: break
            }
        }
    }

    package func coversTable(_ name: String) -> Bool {
        tables.contains(name) || virtualTables.contains { name.hasPrefix($0 + "_") }
    }
}

extension SchemaComparison {
    /// Raw objects must exist with exactly their SQL; with `strict`, a view or trigger the expected
    /// schema does not list is a difference too (an adopted store's triggers are part of its schema).
    static func rawDifferences(expected: [RawSQL], actual: StoreSchema, strict: Bool) -> [SchemaDifference] {
        var result: [SchemaDifference] = []
        var found = actual.sqlText
        for object in actual.raw { found["\(object.kind.rawValue) \(object.name)"] = object.sql }
        for object in expected {
            let kind = object.kind.rawValue
            guard let other = found["\(kind) \(object.name)"] else {
                result.append(SchemaDifference(kind: .missingObject, table: object.table, column: kind, index: object.name))
                continue
            }
            if other != object.sql {
                result.append(
                    SchemaDifference(
                        kind: .objectDiffers, table: object.table, column: kind, index: object.name, expected: object.sql,
                        actual: other))
            }
        }
        guard strict else { return result }
        let listed = Set(expected.map { "\($0.kind.rawValue) \($0.name)" })
        for object in actual.raw where (object.kind == .view || object.kind == .trigger) {
            let key = "\(object.kind.rawValue) \(object.name)"
            if !listed.contains(key) {
                result.append(
                    SchemaDifference(kind: .extraObject, table: object.table, column: object.kind.rawValue, index: object.name))
            }
        }
        return result
    }
}

/// SQLite's column affinity (its "Determination of Column Affinity" rules), to compare defaults as
/// the values SQLite would store.
struct ColumnAffinity {
    enum Kind { case integer, text, blob, real, numeric }
    let kind: Kind

    init(declaredType: String) {
        let t = declaredType.uppercased()
        if t.contains("INT") {
            kind = .integer
        } else if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") {
            kind = .text
        } else if t.contains("BLOB") || t.isEmpty {
            kind = .blob
        } else if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") {
            kind = .real
        } else {
            kind = .numeric
        }
    }

    func apply(_ value: SQLValue) -> SQLValue {
        switch (kind, value) {
        case (.real, .integer(let i)): return .real(Double(i))
        case (.integer, .real(let d)), (.numeric, .real(let d)):
            if d == d.rounded(), abs(d) < 9.2e18 { return .integer(Int64(d)) }
            return value
        case (.text, .integer(let i)): return .text(String(i))
        default: return value
        }
    }
}
