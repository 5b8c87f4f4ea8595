import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
import InstarRuntime
@_spi(Layouts) import InstarLayouts

/// Compares the rows of a store before a migration (a snapshot) with the rows after it, entity by
/// entity, matched by primary key: the rows check (every row of a kept entity is still there) and the
/// values check (every kept or renamed property reads the same).
///
/// Both sides are read in primary-key order and merged as they stream, so memory does not grow with the
/// rows. Every identifier is quoted, every value bound.
struct RowComparison {
    struct Side {
        var store: SQLiteStore
        var model: Model
        var map: StorageMap
    }

    struct Outcome {
        var rowsBefore: [String: Int] = [:]
        var rowsAfter: [String: Int] = [:]
        var missing: [String: (count: Int, first: RowDifference)] = [:]
        var changed: [String: (count: Int, first: RowDifference)] = [:]
        /// What was not compared, and why.
        var notes: [String] = []

        var firstMissing: RowDifference? { missing.keys.sorted().first.map { missing[$0]!.first } }
        var firstChanged: RowDifference? { changed.keys.sorted().first.map { changed[$0]!.first } }
    }

    let before: Side
    let after: Side
    let correspondence: RowCorrespondence

    func run() throws -> Outcome {
        var outcome = Outcome()
        for entity in after.model.entities where !entity.isAbstract {
            outcome.rowsAfter[entity.name] = try count(after, entity: entity.name)
        }
        for entity in before.model.entities where !entity.isAbstract {
            outcome.rowsBefore[entity.name] = try count(before, entity: entity.name)
            guard let path = correspondence.entities[entity.name] else { continue }
            guard let target = path.target else {
                if outcome.rowsBefore[entity.name]! > 0 {
                    outcome.notes.append("\(entity.name): dropped by step \(path.droppedAt ?? "?") as its diff says (\(outcome.rowsBefore[entity.name]!) rows)")
                }
                continue
            }
            for (property, reason) in path.computed.sorted(by: { $0.key < $1.key }) {
                outcome.notes.append("\(entity.name).\(property): computed by \(reason), not compared")
            }
            try compare(entity.name, to: target, path: path, into: &outcome)
        }
        return outcome
    }

    /// `SELECT` of one concrete entity's own rows (a hierarchy table holds its sub-entities too).
    private func select(_ side: Side, entity: String, columns: [String]) -> (String, StatementArguments)? {
        guard let storage = side.map.entities[entity], let table = side.map.entityTables[storage.table] else { return nil }
        var sql = "SELECT " + SQLIdentifier.list([table.primaryKey] + columns) + " FROM " + SQLIdentifier.quoted(storage.table)
        var arguments: StatementArguments = []
        if let discriminator = table.discriminator, let value = storage.discriminatorValue {
            sql += " WHERE " + SQLIdentifier.quoted(discriminator) + " = ?"
            arguments = [value.databaseValue]
        }
        return (sql + " ORDER BY " + SQLIdentifier.quoted(table.primaryKey), arguments)
    }

    /// Rows per concrete entity of a store at `model` (for a run that failed before any comparison).
    static func counts(of store: SQLiteStore, model: Model) throws -> [String: Int] {
        let side = Side(store: store, model: model, map: try store.layout.storageMap(for: model))
        let comparison = RowComparison(before: side, after: side, correspondence: RowCorrespondence(source: model, steps: [], versions: []))
        var counts: [String: Int] = [:]
        for entity in model.entities where !entity.isAbstract {
            counts[entity.name] = try comparison.count(side, entity: entity.name)
        }
        return counts
    }

    /// Rows of `entity` before the run (with `property`: those whose value is not NULL).
    func nonNullCount(entity: String, property: String?) throws -> Int {
        guard let property else { return try count(before, entity: entity) }
        guard let column = before.map.entities[entity]?.columns[property],
            let (sql, arguments) = select(before, entity: entity, columns: [column])
        else { return 0 }
        return try before.store.withDatabase { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(sql)) WHERE " + SQLIdentifier.quoted(column) + " IS NOT NULL", arguments: arguments) ?? 0
        }
    }

    private func count(_ side: Side, entity: String) throws -> Int {
        guard let (sql, arguments) = select(side, entity: entity, columns: []) else { return 0 }
        return try side.store.withDatabase { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(sql))", arguments: arguments) ?? 0
        }
    }

    /// Merges the source entity's rows with the target entity's by primary key.
    private func compare(_ source: String, to target: String, path: RowCorrespondence.EntityPath, into outcome: inout Outcome) throws {
        let sourceColumns = before.map.entities[source]?.columns ?? [:]
        let targetColumns = after.map.entities[target]?.columns ?? [:]
        let pairs = path.properties.keys.sorted().compactMap { property -> Pair? in
            guard let to = path.properties[property], let a = sourceColumns[property], let b = targetColumns[to] else { return nil }
            return Pair(
                property: property, sourceColumn: a, targetColumn: b,
                from: before.model.property(property, of: source)?.property.attribute,
                to: after.model.property(to, of: target)?.property.attribute)
        }
        guard let (sourceSQL, sourceArguments) = select(before, entity: source, columns: pairs.map(\.sourceColumn)),
            let (targetSQL, targetArguments) = select(after, entity: target, columns: pairs.map(\.targetColumn))
        else { return }
        let rowsMayVanish = path.rowsMayVanish
        if let rowsMayVanish { outcome.notes.append("\(source): rows not required (\(rowsMayVanish))") }
        try before.store.withDatabase { sourceDB in
            try after.store.withDatabase { targetDB in
                let old = try Row.fetchCursor(sourceDB, sql: sourceSQL, arguments: sourceArguments)
                let new = try Row.fetchCursor(targetDB, sql: targetSQL, arguments: targetArguments)
                var next = try new.next()
                while let row = try old.next() {
                    // Layouts key rows by integers; a store adopted with another key is not matched.
                    guard let key = Int64.fromDatabaseValue(row[0]) else {
                        outcome.notes.append("\(source): its primary key is not an integer; rows and values not compared")
                        return
                    }
                    while let candidate = next, let other = Int64.fromDatabaseValue(candidate[0]), other < key {
                        next = try new.next()
                    }
                    guard let match = next, Int64.fromDatabaseValue(match[0]) == key else {
                        if rowsMayVanish == nil { note(&outcome.missing, source, RowDifference(entity: source, primaryKey: key)) }
                        continue
                    }
                    for (index, pair) in pairs.enumerated() {
                        let a = SQLValue(row[index + 1] as DatabaseValue)
                        let b = SQLValue(match[index + 1] as DatabaseValue)
                        guard let found = ValueEquivalence.difference(a, b, from: pair.from, to: pair.to, layout: after.store.layout)
                        else { continue }
                        let difference = RowDifference(
                            entity: source, primaryKey: key, property: pair.property, before: ValueEquivalence.render(a),
                            after: ValueEquivalence.render(b), reason: found.mismatch?.description, mismatch: found.mismatch)
                        note(&outcome.changed, "\(source).\(pair.property)", difference)
                    }
                }
            }
        }
    }

    private struct Pair {
        var property: String
        var sourceColumn: String
        var targetColumn: String
        var from: Attribute?
        var to: Attribute?
    }

    private func note(_ list: inout [String: (count: Int, first: RowDifference)], _ key: String, _ difference: RowDifference) {
        if let known = list[key] { list[key] = (known.count + 1, known.first) } else { list[key] = (1, difference) }
    }
}
