import Foundation
import GRDB
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore

/// Rows per entity of a store at a version, counted the first time the planner asks (`count(*)` reads
/// the whole table, which on a large store costs more than planning a chain of adds and renames).
package final class StoreRowCounts: Sendable {
    private let store: SQLiteStore
    private let model: Model
    private let map: StorageMap?
    private let counted = Locked<[String: Int?]>([:])

    package init(store: SQLiteStore, model: Model) {
        self.store = store
        self.model = model
        map = try? store.layout.storageMap(for: model)
    }

    /// Rows of the entity whose canonical name is `canonical` (renaming identifier, else name),
    /// summed over the store's entities that share it; nil when the store has none.
    package func rows(ofCanonical canonical: String) -> Int? {
        counted.withLock { counted in
            if let known = counted[canonical] { return known }
            var total: Int?
            if let map {
                for entity in model.entities where entity.canonicalName == canonical {
                    guard let storage = map.entities[entity.name] else { continue }
                    let (sql, arguments) = Self.countStatement(of: entity.name, stored: storage, in: map)
                    if let n = try? store.withDatabase({ db in try store.count(db, sql: sql, arguments: arguments) }) {
                        total = (total ?? 0) + n
                    }
                }
            }
            counted[canonical] = total
            return total
        }
    }

    /// The count of an entity's rows: its table's, filtered by the entity column when the table holds
    /// other entities too.
    static func countStatement(of entity: String, stored storage: EntityStorage, in map: StorageMap) -> (String, [DatabaseValue]) {
        var sql = "SELECT count(*) FROM \(storage.table.sqlQuoted)"
        var arguments: [DatabaseValue] = []
        if let (column, value) = map.countFilter(of: entity) {
            sql += " WHERE \(column.sqlQuoted) = ?"
            arguments.append(value.databaseValue)
        }
        return (sql, arguments)
    }
}

extension SQLiteStore {
    /// Rows per entity of a store at `model`, keyed by canonical entity name, for the cost model.
    package func rowsByEntity(at model: Model) throws(StoreError) -> [String: Int] {
        let map: StorageMap
        do {
            map = try layout.storageMap(for: model)
        } catch {
            throw StoreError.layout(error, path: path)
        }
        do {
            return try withDatabase { db in
                var result: [String: Int] = [:]
                for (name, storage) in map.entities {
                    let (sql, arguments) = StoreRowCounts.countStatement(of: name, stored: storage, in: map)
                    let canonical = model.entity(named: name)?.canonicalName ?? name
                    result[canonical, default: 0] += try count(db, sql: sql, arguments: arguments)
                }
                return result
            }
        } catch {
            throw StoreError.from(error, path: path, doing: .countingRows)
        }
    }
}
