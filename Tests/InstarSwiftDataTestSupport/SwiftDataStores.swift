// SwiftData stores made here as SwiftData leaves them, from app sources written in a test: for the
// SwiftData tests and the CLI's (`instar migrate --swiftdata`).
import Foundation
import GRDB
import Testing
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts
import InstarSwiftData
import InstarTestSupport
import InstarStore

/// App sources (a versioned plan, an unversioned schema), the models read from them, and stores at them.
package enum SwiftDataStores {
    package static let versioned = """
        import SwiftData
        enum V1: VersionedSchema {
            static var versionIdentifier = Schema.Version(1, 0, 0)
            static var models: [any PersistentModel.Type] { [Trip.self] }
            @Model final class Trip { var name: String = ""; init() {} }
        }
        enum V2: VersionedSchema {
            static var versionIdentifier = Schema.Version(2, 0, 0)
            static var models: [any PersistentModel.Type] { [Trip.self] }
            @Model final class Trip { var name: String = ""; var note: String?; init() {} }
        }
        enum Plan: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self] }
            static var stages: [MigrationStage] { [.lightweight(fromVersion: V1.self, toVersion: V2.self)] }
        }
        """

    package static func unversioned(_ trip: String) -> String {
        """
        import SwiftData
        @Model final class Trip { \(trip) init() {} }
        let schema = Schema([Trip.self])
        """
    }

    /// `text` as `Models.swift` in a new folder.
    package static func folder(_ text: String) throws -> URL {
        let folder = try temporaryDirectory()
        try text.write(to: folder.appendingPathComponent("Models.swift"), atomically: true, encoding: .utf8)
        return folder
    }

    package static func schema(_ text: String, _ identifier: String, named name: String? = nil) throws -> Model {
        let read = SwiftDataReader().read(files: [(path: "Models.swift", text: text)])
        return try #require(read.schemas.first { $0.versionIdentifier == identifier && (name == nil || $0.name == name) }).model
    }

    /// A store as SwiftData (framework 1518) leaves it at `model`: Core Data's tables and metadata, the
    /// maximum framework version SwiftData records, one row, and `cache` in Z_MODELCACHE.
    package static func swiftDataStore(_ model: Model, at path: String, cache: Data? = nil, row: Bool = true) throws {
        let store = try SQLiteStore.create(at: path, model: model, layout: CoreDataLayout(frameworkVersion: 1518))
        try store.withDatabase { db in
            let stored = try #require(try CoreDataMetadata.read(db))
            var dictionary = stored.dictionary
            dictionary["NSPersistenceMaximumFrameworkVersion"] = 1518
            try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [try CoreDataMetadata.encode(dictionary)])
            if row {
                try db.execute(sql: "INSERT INTO ZTRIP (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 1, 1, 'Lisbon')")
                try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_NAME = 'Trip'")
            }
            if let cache { try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", arguments: [cache]) }
        }
        try store.close()
    }

    /// A property-list value as text with keys sorted and data in base64: values compared across
    /// Swift and Foundation types (an `Int` and an `NSNumber`, `[String: Data]` and `NSDictionary`).
    package static func canonical(_ value: Any?) -> String {
        switch value {
        case nil: return "none"
        case let data as Data: return "<\(data.base64EncodedString())>"
        case let string as String: return "\"\(string)\""
        case let number as NSNumber: return "\(number)"
        case let array as [Any]: return "[" + array.map { canonical($0) }.joined(separator: ", ") + "]"
        case let dictionary as [AnyHashable: Any]:
            let entries = dictionary.map { ("\($0.key.base)", canonical($0.value)) }.sorted { $0.0 < $1.0 }
            return "{" + entries.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}"
        default: return "\(value!)"
        }
    }

    package static func metadata(_ path: String) throws -> (uuid: String?, dictionary: [String: Any], primaryKeys: [String], cacheRows: Int) {
        let store = try SQLiteStore.open(at: path, readOnly: true)
        defer { try? store.close() }
        return try store.withDatabase { db in
            let stored = try #require(try CoreDataMetadata.read(db))
            let keys = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map {
                "\($0["Z_ENT"] as Int64) \($0["Z_NAME"] as String) \($0["Z_SUPER"] as Int64) \($0["Z_MAX"] as Int64)"
            }
            let cacheRows = try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_MODELCACHE") ?? 0
            return (stored.uuid, stored.dictionary, keys, cacheRows)
        }
    }

    /// The model cache of an unversioned store at `Trip { name: String }`, as ModelArchiveBuilder writes one.
    package static func cache() throws -> Data {
        var m = ModelArchiveBuilder()
        m.entity("Trip", properties: [m.attribute("name", type: 700, optional: false)])
        return RawDeflate.deflate(try m.data(versionIdentifier: "1.0.0"))
    }
}
