// Stores in temporary folders for the tests of the store and the layers above it.
import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
@_spi(Layouts) import InstarLayouts
import InstarTestSupport

/// A store in a temporary folder, with helpers to fill it and read it back.
package final class StoreFixture {
    package let directory: URL
    package let path: String
    package let store: SQLiteStore

    package init(_ model: Model, layout: any StoreLayout = InstarLayout(), busyTimeout: TimeInterval = 2) throws {
        directory = try temporaryDirectory()
        path = directory.appendingPathComponent("store.sqlite").path
        store = try SQLiteStore.create(at: path, model: model, layout: layout)
    }

    deinit {
        try? store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    package func execute(_ sql: String, _ arguments: StatementArguments = []) throws {
        try store.withDatabase { db in try db.execute(sql: sql, arguments: arguments) }
    }

    /// Every row of a table as `column → value`, ordered by the first column.
    package func rows(_ table: String, orderBy: String = "_pk") throws -> [[String: DatabaseValue]] {
        try store.withDatabase { db in
            try Row.fetchAll(db, sql: "SELECT * FROM \(SQLIdentifier.quoted(table)) ORDER BY \(SQLIdentifier.quoted(orderBy))")
                .map { row in Dictionary(uniqueKeysWithValues: row.columnNames.map { ($0, row[$0] as DatabaseValue) }) }
        }
    }

    package func column(_ table: String, _ column: String) throws -> [DatabaseValue] {
        try rows(table).map { $0[column] ?? .null }
    }

    package func schema() throws -> StoreSchema { try store.schema() }

    /// The exact bytes of the store file: equal before and after a failed step means nothing changed.
    package func fileBytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }
}

extension DatabaseValue {
    package static func int(_ v: Int64) -> DatabaseValue { v.databaseValue }
    package static func text(_ v: String) -> DatabaseValue { v.databaseValue }
    package static func real(_ v: Double) -> DatabaseValue { v.databaseValue }
}
