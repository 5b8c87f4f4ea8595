import Foundation
import GRDB
import InstarInference
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

/// One data condition of a step that a store's rows break, counted: the entity, the properties, how
/// many rows (for a uniqueness condition, how many groups of rows) break it, and for duplicates a few
/// of the shared values.
///
/// A refusal that named only the first broken condition sent users round the fix-and-retry loop once
/// per entity; a release check needs all of them at once, as values a CI job can count and compare.
public struct DataViolation: Sendable, Hashable, Codable {
    /// What the rows break.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Rows hold NULL in a property that becomes required without a default (``DataCondition/noNulls(entity:property:)``).
        case nullValues
        /// Rows exist where the step needs none (``DataCondition/noRows(entity:)``): a required value is added without a default.
        case rowsExist
        /// Rows no to-many links, where a new required to-one takes those links over (``DataCondition/linked(entity:by:relationship:)``).
        case unlinkedRows
        /// Groups of rows share values that become unique (``DataCondition/unique(entity:properties:)``).
        case duplicates
    }

    /// What the rows break.
    public var kind: Kind
    /// The (older) entity whose rows break it.
    public var entity: String
    /// The properties concerned: the one that becomes required, or those that become unique together.
    public var properties: [String]
    /// For ``Kind/unlinkedRows``: the older entity owning the to-many whose links are taken over.
    public var owner: String?
    /// For ``Kind/unlinkedRows``: that to-many relationship.
    public var relationship: String?
    /// How many rows break it; for ``Kind/duplicates``, how many groups of rows share values.
    public var count: Int
    /// For ``Kind/duplicates``: up to `sampleLimit` shared values (one string per property, `NULL`
    /// for a missing value), the largest groups first, so that the user sees which values collide.
    public var samples: [[String]]
    /// What the rows break, in a sentence (the refusal's words).
    public var message: String
    /// What to do about it, for this kind of condition and property: a relationship is linked, not given
    /// a default; duplicates are merged or removed, not defaulted.
    public var fix: String?
    /// Where the newer version declares what the rows break (the property, or the entity for a
    /// uniqueness constraint), when its model file says: the place to edit.
    public var location: SourceLocation?

    /// How many duplicate groups are sampled.
    @_spi(Layouts) public static let sampleLimit = 3

    /// The condition, as the step's inference stated it.
    public var condition: DataCondition {
        switch kind {
        case .nullValues: .noNulls(entity: entity, property: properties.first ?? "")
        case .rowsExist: .noRows(entity: entity)
        case .unlinkedRows: .linked(entity: entity, by: owner ?? "", relationship: relationship ?? "")
        case .duplicates: .unique(entity: entity, properties: properties)
        }
    }

    /// The counted violation of `condition`.
    @_spi(Layouts) public init(
        _ condition: DataCondition, count: Int, samples: [[String]] = [], message: String, fix: String? = nil,
        location: SourceLocation? = nil
    ) {
        self.fix = fix
        self.location = location
        switch condition {
        case .noNulls(let e, let p): (kind, entity, properties) = (.nullValues, e, [p])
        case .noRows(let e): (kind, entity, properties) = (.rowsExist, e, [])
        case .linked(let e, let o, let r): (kind, entity, properties, owner, relationship) = (.unlinkedRows, e, [], o, r)
        case .unique(let e, let ps): (kind, entity, properties) = (.duplicates, e, ps)
        }
        self.count = count
        self.samples = samples
        self.message = message
    }
}

extension SQLiteStore {
    /// Every data condition of the step from `old` (the store's version) to `new` that the store's rows
    /// break, each counted, reading only: unlike a migration, which refuses at its first check, this
    /// goes on through all of them. Empty when the step's data conditions all hold.
    package func dataViolations(from old: Model, to new: Model) throws(StoreError) -> [DataViolation] {
        do {
            return try withDatabase { db in
                try dataViolations(ModelDiff(from: old, to: new).conditions, db: db, map: layout.storageMap(for: old), step: (old, new))
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.from(error, path: path, doing: .checkingData)
        }
    }

    /// Counts each condition's violations on `db` (values bound, names quoted), in the conditions' order.
    func dataViolations(
        _ conditions: [DataCondition], db: Database, map: StorageMap, step: (from: Model, to: Model)
    ) throws -> [DataViolation] {
        var found: [DataViolation] = []
        for condition in conditions {
            let (sql, arguments, message): (String, StatementArguments, (Int) -> String)
            var samples: ((Database) throws -> [[String]])?
            switch condition {
            case .noRows(let e):
                guard let (from, filter, args) = rowsOf(e, map: map) else { continue }
                (sql, arguments) = ("SELECT count(*) FROM \(from)\(filter)", args)
                message = { "\($0) '\(e)' row(s) exist, but " + Self.rowsMustNotExist(e, step: step) }
            case .noNulls(let e, let property):
                guard let (from, filter, args) = rowsOf(e, map: map), let column = map.entities[e]?.columns[property]
                else { continue }
                let clause = (filter.isEmpty ? " WHERE " : filter + " AND ") + "\(column.sqlQuoted) IS NULL"
                (sql, arguments) = ("SELECT count(*) FROM \(from)\(clause)", args)
                message = { "\($0) '\(e)' row(s) hold NULL in '\(property)', which becomes required without a default" }
            case .linked(let e, let owner, let relationship):
                guard let (from, filter, args) = rowsOf(e, map: map), let unlinked = unlinkedRows(e, by: owner, relationship, map: map)
                else { continue }
                let clause = (filter.isEmpty ? " WHERE " : filter + " AND ") + unlinked
                (sql, arguments) = ("SELECT count(*) FROM \(from)\(clause)", args)
                message = {
                    "\($0) '\(e)' row(s) have no link from '\(owner).\(relationship)', but "
                        + Self.rowsMustNotExist(e, step: step, linkedBy: (owner, relationship))
                }
            case .unique(let e, let properties):
                guard let (from, filter, args) = rowsOf(e, map: map) else { continue }
                let columns = properties.compactMap { map.entities[e]?.columns[$0] }
                guard columns.count == properties.count else { continue }
                let list = SQLIdentifier.list(columns)
                (sql, arguments) = ("SELECT count(*) FROM (SELECT 1 FROM \(from)\(filter) GROUP BY \(list) HAVING count(*) > 1)", args)
                message = { "\($0) group(s) of '\(e)' rows share (\(properties.joined(separator: ", "))), which become unique" }
                samples = { db in
                    try Row.fetchAll(
                        db,
                        sql: "SELECT \(list) FROM \(from)\(filter) GROUP BY \(list) HAVING count(*) > 1 ORDER BY count(*) DESC LIMIT ?",
                        arguments: args + [DataViolation.sampleLimit]
                    ).map { row in (0..<row.count).map { Self.sampleText(row[$0] as DatabaseValue) } }
                }
            }
            let count = try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
            guard count > 0 else { continue }
            let shared = try samples?(db) ?? []
            let example = shared.isEmpty ? "" : " (for example " + shared.map { "(" + $0.joined(separator: ", ") + ")" }.joined(separator: ", ") + ")"
            found.append(
                DataViolation(
                    condition, count: count, samples: shared, message: message(count) + example,
                    fix: Self.fix(for: condition, step: step), location: Self.location(of: condition, in: step)))
        }
        return found
    }

    /// A stored value as a user recognises it: text as is, numbers in SQL's spelling, blobs by size.
    static func sampleText(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case .int64(let v): String(v)
        case .double(let v): String(v)
        case .string(let v): v
        case .blob(let data): "<\(data.count) bytes>"
        }
    }

    /// Where the newer version declares the condition's subject: the property made required or added,
    /// the relationship taking over links, or the entity made unique.
    static func location(of condition: DataCondition, in step: (from: Model, to: Model)) -> SourceLocation? {
        let diff = ModelDiff(from: step.from, to: step.to)
        let renamed = { (e: String) in diff.mappings.first { $0.source == e }?.destination ?? e }
        switch condition {
        case .noNulls(let e, let p): return step.to.location(ofEntity: renamed(e), property: p)
        case .unique(let e, _): return step.to.location(ofEntity: renamed(e))
        case .noRows, .linked:
            guard let change = diff.changes.first(where: { $0.verdict.condition == condition }) else { return nil }
            return step.to.location(ofEntity: change.entity, property: change.property)
        }
    }

    /// The fix for a broken condition, by its kind and the kind of property the step adds or changes.
    static func fix(for condition: DataCondition, step: (from: Model, to: Model)) -> String {
        let target = step.to.name
        switch condition {
        case .noNulls(let e, let p):
            return "fill the NULLs of '\(e).\(p)' before the step (in a hook of a custom stage), or give '\(p)' a default in \(target)"
        case .noRows(let e):
            let added = ModelDiff(from: step.from, to: step.to).changes.filter {
                $0.verdict.condition == condition && ($0.kind == .attributeAdded || $0.kind == .relationshipAdded)
            }
            if let relationship = added.first(where: { $0.kind == .relationshipAdded }) {
                return "a relationship takes no default: make '\(relationship.subject)' optional in \(target), or add it optional in an "
                    + "intermediate version, link every '\(e)' row in a hook, and make it required in the version after"
            }
            if let attribute = added.first {
                return "give '\(attribute.subject)' a default in \(target) (or make it optional), or add it optional first and fill it in a hook"
            }
            return "remove or convert the '\(e)' rows before the step, in a hook of a custom stage"
        case .linked(let e, let owner, let relationship):
            return "link every '\(e)' row from '\(owner).\(relationship)' before the step (in a hook), or keep the new to-one optional"
        case .unique(let e, let properties):
            return "merge or remove the '\(e)' rows that share (\(properties.joined(separator: ", "))) before the step, in a hook of a "
                + "custom stage (SwiftData: the stage's willMigrate); a default does not help, it would make more duplicates"
        }
    }

    /// The refusal of a step whose data breaks `violations` (not empty): every one named, the first
    /// kept in ``StoreError/condition`` and ``StoreError/violations`` as before.
    func dataConditionError(_ violations: [DataViolation]) -> StoreError {
        let first = violations[0]
        var error = StoreError(.dataCondition, path: path, reason: .dataViolations)
        error.condition = first.condition
        error.violations = first.count
        error.dataViolations = violations
        return error
    }
}
