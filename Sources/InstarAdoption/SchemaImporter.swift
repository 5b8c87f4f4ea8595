import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts

/// Imports an existing SQLite database's schema as a model of the plain SQL layout (`instar model
/// import`): tables as entities, foreign keys as to-one relationships with inverses, link tables as
/// many-to-many relationships, names kept with naming keys (``StoredNames``). Whatever a model cannot
/// express is kept verbatim (``RawSQL``) and listed in the notes, with what it blocks: a database is
/// never adopted with something silently left out.
package enum SchemaImporter {
    /// What the importer decided a table is.
    enum Role: Equatable {
        case entity
        case link
        case raw([String])
    }

    /// Imports the database at `path`, opened read-only.
    package static func importModel(path: String, name: String) throws(StoreError) -> ImportedModel {
        guard FileKind.exists(path) else {
            throw StoreError(.notFound, path: path, reason: .noFile(.importedDatabase))
        }
        try StoreFile.checkBeforeOpening(path, role: .importedDatabase)
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in try importModel(db, name: name, source: path) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.from(error, path: path, doing: .importingSchema)
        }
    }

    static func importModel(_ db: Database, name: String, source: String) throws -> ImportedModel {
        let objects = try SchemaReader.readSQL(db, skipping: { _ in false })
        let shadow = Set(
            try String.fetchAll(db, sql: "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'"))
        var facts: [String: TableFacts] = [:]
        var order: [String] = []
        for object in objects where object.kind == .table && !shadow.contains(object.name) {
            facts[object.name] = try TableFacts.read(db, table: object.name, sql: object.sql)
            order.append(object.name)
        }
        try refuseUnsafeDeclaredTypes(order.map { facts[$0]! }, source: source)
        let roles = classify(order.map { facts[$0]! })
        let indexes = try IndexFacts.readAll(db, objects: objects)
        var builder = ImportedEntityBuilder(facts: facts, roles: roles, indexes: indexes)
        let entities = builder.build(order: order)
        var raw: [RawSQL] = []
        var notes: [AdoptionNote] = []
        for object in objects where object.kind != .table || !shadow.contains(object.name) {
            guard let note = builder.note(for: object) else { continue }
            notes.append(note)
            if note.effect != .notKept {
                raw.append(RawSQL(kind: object.kind, name: object.name, table: object.table, sql: object.sql, reason: note.reasons.joined(separator: "; ")))
            }
        }
        notes += builder.detailNotes
        let model = try Model(name: name, entities: entities, source: source, rawSQL: raw)
        return ImportedModel(model: model, notes: notes)
    }

    /// Entity, link or raw, for every table; a table whose foreign keys reach a raw table, or not a
    /// primary key, becomes raw too, until nothing changes.
    /// A model keeps a column's declared type as written and layouts write it into `CREATE TABLE` as
    /// SQL words, so a declared type that is not a type name (SQLite accepts a quoted one, such as
    /// `"TEXT); DROP TABLE t; --"`) would become SQL: the import is refused, naming the table and
    /// column, rather than normalising the type (which would describe another schema).
    static func refuseUnsafeDeclaredTypes(_ tables: [TableFacts], source: String) throws(StoreError) {
        for table in tables {
            for column in table.definition.columns where !SQLTypeName.isValid(column.declaredType) {
                throw StoreError(
                    .layout, path: source,
                    reason: .declaredTypeNotSQL(table: table.name, column: column.name, declaredType: column.declaredType))
            }
        }
    }

    static func classify(_ tables: [TableFacts]) -> [String: Role] {
        var roles: [String: Role] = [:]
        for table in tables {
            roles[table.name] = initialRole(table)
        }
        var changed = true
        while changed {
            changed = false
            for table in tables where roles[table.name] != nil {
                guard case .raw = roles[table.name]! else {
                    let problems = foreignKeyProblems(table, roles: roles, tables: tables)
                    if !problems.isEmpty {
                        roles[table.name] = .raw(problems)
                        changed = true
                    }
                    continue
                }
            }
        }
        return roles
    }

    static func initialRole(_ table: TableFacts) -> Role {
        if !table.rawReasons.isEmpty { return .raw(table.rawReasons) }
        let definition = table.definition
        if !definition.primaryKey.isEmpty {
            if isLinkShape(table) { return .link }
            return isAssociationShape(table) ? .entity : .raw(["composite primary key that is not a link table"])
        }
        if let key = table.integerPrimaryKey, key.declaredType.uppercased() != "INTEGER" {
            return .raw(["primary key of type '\(key.declaredType)' (not a row id)"])
        }
        if table.integerPrimaryKey == nil, definition.columns.contains(where: { PlainSQLNames.isRowID($0.name) }) {
            return .raw(["no primary key and a column named like the row id"])
        }
        if !table.expressionDefaults.isEmpty {
            return .raw(table.expressionDefaults.sorted().map { "default of '\($0)' is an expression" })
        }
        let inexpressible = ImportedColumns.inexpressibleDefaults(table)
        if !inexpressible.isEmpty { return .raw(inexpressible) }
        return .entity
    }

    /// Two integer columns, both `NOT NULL`, without defaults, forming the primary key, each a foreign
    /// key to a primary key (its `ON DELETE` action kept by the join table's `onDelete:`), and nothing
    /// else: what the layout writes for a many-to-many.
    static func isLinkShape(_ table: TableFacts) -> Bool {
        let d = table.definition
        guard d.columns.count == 2, Set(d.primaryKey) == Set(d.columns.map(\.name)), d.uniqueConstraints.isEmpty,
            d.verbatimConstraints.isEmpty, d.columns.allSatisfy({ $0.verbatimClauses == nil && $0.references?.constraintName == nil }),
            table.foreignKeys.count == 2, Set(table.foreignKeys.flatMap(\.from)) == Set(d.primaryKey)
        else { return false }
        return d.columns.allSatisfy { $0.declaredType.uppercased() == "INTEGER" && $0.notNull && ($0.defaultValue ?? .null) == .null }
            && table.foreignKeys.allSatisfy { $0.from.count == 1 }
    }

    /// A composite key of plain columns, each a single-column foreign key, in a table with a rowid:
    /// a link table with columns of its own (`order_line (order_id, product_id, quantity)`), modelled
    /// as an entity with two to-ones and `compositeKey:`.
    static func isAssociationShape(_ table: TableFacts) -> Bool {
        let key = Set(table.definition.primaryKey)
        let single = Set(table.foreignKeys.filter { $0.from.count == 1 }.map { $0.from[0] })
        return key.count >= 2 && key.isSubset(of: single)
    }

    static func foreignKeyProblems(_ table: TableFacts, roles: [String: Role], tables: [TableFacts]) -> [String] {
        var problems: [String] = []
        let keys = Set(table.definition.primaryKey + [table.integerPrimaryKey?.name].compactMap { $0 })
        for fk in table.foreignKeys {
            let label = "foreign key (\(fk.from.joined(separator: ", "))) → \(fk.table)"
            guard fk.from.count == 1 else {
                problems.append("composite \(label)")
                continue
            }
            guard let target = tables.first(where: { $0.name.sqliteFolded == fk.table.sqliteFolded }),
                roles[target.name] == .entity, let targetKey = target.integerPrimaryKey,
                fk.to[0] == targetKey.name, target.name == fk.table
            else {
                problems.append("\(label) that does not name the primary key of an entity table")
                continue
            }
            if fk.onUpdate != "NO ACTION" || fk.match != "NONE" { problems.append("\(label) with ON UPDATE or MATCH") }
            if roles[table.name] == .entity, table.integerPrimaryKey?.name == fk.from[0] {
                problems.append("\(label) on the primary key")
            }
            if roles[table.name] == .entity, let column = table.definition.column(named: fk.from[0]),
                (column.defaultValue ?? .null) != .null
            {
                problems.append("\(label) with a default")
            }
        }
        if roles[table.name] == .entity {
            for constraint in table.definition.uniqueConstraints where constraint.contains(where: { keys.contains($0) }) {
                problems.append("UNIQUE constraint (\(constraint.joined(separator: ", "))) on the primary key")
            }
        }
        return problems
    }
}
