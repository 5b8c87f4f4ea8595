import Foundation
import GRDB
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarLayouts

// What the layout reads and writes in a store (its bookkeeping); the rest of the layout needs no database.
extension InstarLayout: StoreLayout {
    @_spi(Layouts) public func recognizes(_ db: Database) throws -> Bool {
        try db.tableExists(Self.metadataTable)
    }

    @_spi(Layouts) public func createBookkeeping(_ db: Database, model: Model) throws {
        try db.execute(
            sql: "CREATE TABLE IF NOT EXISTS \(Self.metadataTable.sqlQuoted) (\"key\" TEXT PRIMARY KEY NOT NULL, \"value\" TEXT)")
    }

    @_spi(Layouts) public func readMetadata(_ db: Database) throws -> StoreMetadata? {
        guard try recognizes(db) else { return nil }
        var values: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT \"key\", \"value\" FROM \(Self.metadataTable.sqlQuoted)") {
            // Converted, not subscripted as String: GRDB traps on a value of another type, and the
            // table is in the user's store, where anything may have been written.
            let key: DatabaseValue = row["key"]
            let value: DatabaseValue = row["value"]
            guard let name = String.fromDatabaseValue(key) else {
                throw BookkeepingError(layout: name, table: Self.metadataTable, .keyNotText(found: key.storedType))
            }
            guard value.isNull || String.fromDatabaseValue(value) != nil else {
                throw BookkeepingError(layout: self.name, table: Self.metadataTable, .valueNotText(key: name, found: value.storedType))
            }
            values[name] = String.fromDatabaseValue(value)
        }
        var hashes: [String: Data] = [:]
        if let json = values["entityHashes"]?.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: json) as? [String: String]
        {
            for (entity, base64) in object {
                if let data = Data(base64Encoded: base64) { hashes[entity] = data }
            }
        }
        return StoreMetadata(
            layout: name, versionName: values["version"], entityHashes: hashes, versionChecksum: values["versionChecksum"],
            storedModel: values["model"])
    }

    @_spi(Layouts) public func writeMetadata(_ db: Database, model: Model) throws {
        try createBookkeeping(db, model: model)
        let hashes = VersionHashes(model: model)
        let json = try JSONSerialization.data(withJSONObject: hashes.base64EntityHashes, options: [.sortedKeys])
        let values: [(String, String?)] = [
            ("layout", name),
            ("formatVersion", Self.formatVersion),
            ("version", model.name),
            ("versionIdentifier", model.versionIdentifier),
            ("versionChecksum", hashes.versionChecksum),
            ("versionHashesDigest", hashes.versionHashesDigest),
            ("entityHashes", String(decoding: json, as: UTF8.self)),
            ("model", ModelFileWriter.json(model)),
        ]
        for (key, value) in values {
            try db.execute(
                sql: "INSERT OR REPLACE INTO \(Self.metadataTable.sqlQuoted) (\"key\", \"value\") VALUES (?, ?)",
                arguments: [key, value])
        }
    }
}
