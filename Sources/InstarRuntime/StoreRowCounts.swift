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
                    var sql = "SELECT count(*) FROM \(storage.table.sqlQuoted)"
                    var arguments: [DatabaseValueConvertible] = []
                    if let (column, value) = map.countFilter(of: entity.name) {
                        sql += " WHERE \(column.sqlQuoted) = ?"
                        arguments.append(value.databaseValue)
                    }
                    let n = try? store.withDatabase { db in try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) }
                    if let n = n ?? nil { total = (total ?? 0) + n }
                }
            }
            counted[canonical] = total
            return total
        }
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
                    var sql = "SELECT count(*) FROM \(storage.table.sqlQuoted)"
                    var arguments: [DatabaseValueConvertible] = []
                    if let (column, value) = map.countFilter(of: name) {
                        sql += " WHERE \(column.sqlQuoted) = ?"
                        arguments.append(value.databaseValue)
                    }
                    let canonical = model.entity(named: name)?.canonicalName ?? name
                    result[canonical, default: 0] += try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0
                }
                return result
            }
        } catch {
            throw StoreError.from(error, path: path, doing: .countingRows)
        }
    }
}
