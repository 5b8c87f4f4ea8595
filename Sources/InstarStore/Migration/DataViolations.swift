import Foundation
import GRDB
import InstarInference
import InstarLayouts
import InstarModel
import InstarSQL

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
    /// For ``Kind/duplicates``: up to ``sampleLimit`` shared values (one string per property, `NULL`
    /// for a missing value), the largest groups first, so that the user sees which values collide.
    public var samples: [[String]]
    /// What the rows break, in a sentence (the refusal's words).
    public var message: String

    /// How many duplicate groups are sampled.
    public static let sampleLimit = 3

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
    public init(_ condition: DataCondition, count: Int, samples: [[String]] = [], message: String) {
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
    public func dataViolations(from old: Model, to new: Model) throws(StoreError) -> [DataViolation] {
        do {
            return try withDatabase { db in
                try dataViolations(ModelDiff(from: old, to: new).conditions, db: db, map: layout.storageMap(for: old), step: (old, new))
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.from(error, path: path, doing: "checking the data")
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
            found.append(DataViolation(condition, count: count, samples: shared, message: message(count) + example))
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

    /// The refusal of a step whose data breaks `violations` (not empty): every one named, the first
    /// kept in ``StoreError/condition`` and ``StoreError/violations`` as before.
    func dataConditionError(_ violations: [DataViolation]) -> StoreError {
        let first = violations[0]
        let entities = violations.map(\.entity).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let message =
            violations.count == 1
            ? first.message + "; nothing was changed"
            : "the data breaks \(violations.count) conditions of the step; nothing was changed:\n  "
                + violations.map(\.message).joined(separator: "\n  ")
        var error = StoreError(
            .dataCondition, path: path, message,
            hint: "fix the \(entities.map { "'\($0)'" }.joined(separator: ", ")) data first (for example in a hook of a custom stage), or give the attribute a default")
        error.condition = first.condition
        error.violations = first.count
        error.dataViolations = violations
        return error
    }
}
