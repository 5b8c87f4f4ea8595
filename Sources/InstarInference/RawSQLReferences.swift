@_spi(Layouts) import InstarModel

/// Raw SQL (``RawSQL``: views, triggers, raw tables and indexes of an adopted database) that names a
/// table or column a step renames or drops. Instar recreates views and triggers from the newer
/// version's text after a step, and never rewrites a raw table; so such SQL fails only when the step
/// runs, after the work. Found here, from the two models alone, so that `instar lint` reports it before.
///
/// Names follow the `sql` layout's rules (``StoredNames``): an entity's table is its `table:` key or its
/// name; a column is its `column:` key, an attribute's name, or `<relationship>_id`. References are
/// found by the identifiers of the SQL text (quoted or bare, outside string literals and comments),
/// compared without ASCII case as SQLite does; a column counts only in raw SQL that also names its table.
package struct RawSQLReference: Sendable, Hashable {
    package enum Change: Sendable, Hashable {
        case renamed(to: String)
        case dropped
    }

    /// What the raw SQL names: a table, or a column of one.
    package enum Target: Sendable, Hashable {
        case table(String)
        case column(table: String, column: String)
    }

    /// The raw object, as the newer version lists it.
    package var object: RawSQL
    /// The table or column named.
    package var target: Target
    package var change: Change

    /// `table 'Shelf'` or `column 'Book.pages'`, for messages.
    package var subject: String {
        switch target {
        case .table(let table): "table '\(table)'"
        case .column(let table, let column): "column '\(table).\(column)'"
        }
    }
    /// The old name the SQL still uses.
    package var oldName: String

    package var message: String {
        let what: String
        switch change {
        case .renamed(let name): what = "renames it to '\(name)'"
        case .dropped: what = "drops it"
        }
        return "the raw \(object.kind.rawValue) '\(object.name)' refers to \(subject), and this step \(what)"
    }

    package var hint: String {
        let renamed: String? = if case .renamed(let name) = change { name } else { nil }
        return Self.hint(object, oldName: oldName, renamedTo: renamed)
    }

    /// What to do about raw SQL naming `oldName`, which a step renames to `renamedTo` or drops (nil).
    package static func hint(_ object: RawSQL, oldName: String, renamedTo: String?) -> String {
        switch (object.kind, renamedTo) {
        case (.view, let name?), (.trigger, let name?):
            return "edit the raw SQL of '\(object.name)' in the newer version's model (its raw: list) to say '\(name)': views and triggers are recreated from that text after the step"
        case (.view, nil), (.trigger, nil):
            return "edit or remove '\(object.name)' in the newer version's model (its raw: list): views and triggers are recreated from that text after the step"
        default:
            return "a step never rewrites a raw \(object.kind.rawValue): keep '\(oldName)' in this version, or model '\(object.name)' as an entity first"
        }
    }

    /// Every reference in `new`'s raw SQL to a table or column of `old` that the step drops or renames.
    package static func find(from old: Model, to new: Model, diff: ModelDiff) -> [RawSQLReference] {
        guard !new.rawSQL.isEmpty else { return [] }
        let newTables = Set(new.entities.map { tableName(of: $0).lowercased() })
        var result: [RawSQLReference] = []
        for object in new.rawSQL {
            let names = identifiers(in: object.sql)
            for entity in old.entities {
                let table = tableName(of: entity)
                let destination = diff.destination(ofEntity: entity.name).flatMap { new.entity(named: $0) }
                let newTable = destination.map(tableName(of:))
                if names.contains(table.lowercased()), !newTables.contains(table.lowercased()) {
                    result.append(
                        RawSQLReference(
                            object: object, target: .table(table),
                            change: newTable.map { .renamed(to: $0) } ?? .dropped, oldName: table))
                    continue
                }
                guard let destination, let newTable,
                    names.contains(table.lowercased()) || names.contains(newTable.lowercased())
                else { continue }
                result += columnReferences(object, names, entity, destination, table, diff)
            }
        }
        return result
    }

    private static func columnReferences(
        _ object: RawSQL, _ names: Set<String>, _ entity: Entity, _ destination: Entity, _ table: String, _ diff: ModelDiff
    ) -> [RawSQLReference] {
        let newColumns = Set(columns(of: destination).values.map { $0.lowercased() })
        var result: [RawSQLReference] = []
        for (property, column) in columns(of: entity).sorted(by: { $0.key < $1.key })
        where names.contains(column.lowercased()) && !newColumns.contains(column.lowercased()) {
            let renamed = diff.destination(ofProperty: property, in: entity.name).flatMap { columns(of: destination)[$0] }
            result.append(
                RawSQLReference(
                    object: object, target: .column(table: table, column: column), change: renamed.map { .renamed(to: $0) } ?? .dropped,
                    oldName: column))
        }
        return result
    }

    static func tableName(of entity: Entity) -> String { entity.stored.table ?? entity.name }

    /// Property → column, for attributes and to-one relationships.
    static func columns(of entity: Entity) -> [String: String] {
        var result: [String: String] = [:]
        for attribute in entity.attributes where !attribute.isTransient {
            result[attribute.name] = attribute.stored.name ?? attribute.name
        }
        for relationship in entity.relationships where relationship.isToOne && !relationship.isTransient {
            result[relationship.name] = relationship.stored.column.name ?? "\(relationship.name)_id"
        }
        return result
    }

    /// Lower-cased identifiers of a statement: bare words and quoted names (`"a"`, `[a]`, `` `a` ``),
    /// not string literals or comments.
    static func identifiers(in sql: String) -> Set<String> {
        var result: Set<String> = []
        let s = Array(sql.unicodeScalars)
        var i = 0
        func isWord(_ c: Unicode.Scalar) -> Bool { c.properties.isAlphabetic || c == "_" || c == "$" || ("0"..."9").contains(c) }
        while i < s.count {
            let c = s[i]
            if c == "-", i + 1 < s.count, s[i + 1] == "-" {
                while i < s.count, s[i] != "\n" { i += 1 }
            } else if c == "/", i + 1 < s.count, s[i + 1] == "*" {
                i += 2
                while i + 1 < s.count, !(s[i] == "*" && s[i + 1] == "/") { i += 1 }
                i += 2
            } else if c == "'" || c == "\"" || c == "`" || c == "[" {
                let close: Unicode.Scalar = c == "[" ? "]" : c
                var j = i + 1
                var name = String.UnicodeScalarView()
                while j < s.count {
                    if s[j] == close {
                        if close != "]", j + 1 < s.count, s[j + 1] == close {
                            name.append(close)
                            j += 2
                            continue
                        }
                        break
                    }
                    name.append(s[j])
                    j += 1
                }
                if c != "'" { result.insert(String(name).lowercased()) }
                i = j + 1
            } else if isWord(c) {
                var j = i
                while j < s.count, isWord(s[j]) { j += 1 }
                result.insert(String(String.UnicodeScalarView(s[i..<j])).lowercased())
                i = j
            } else {
                i += 1
            }
        }
        return result
    }
}
