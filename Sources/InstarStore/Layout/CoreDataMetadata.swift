import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// Core Data's bookkeeping tables: `Z_METADATA` (one row: `Z_VERSION` 1, the store UUID, and the metadata
/// dictionary as a binary property list), `Z_PRIMARYKEY` (one row per entity) and `Z_MODELCACHE`
/// (FORMAT.md §1.2, §1.15).
package enum CoreDataMetadata {
    /// The keys Instar writes; every other key of the dictionary (the app's own, `NSStoreUUID` when a
    /// store has it, `NSPersistenceMaximumFrameworkVersion`, …) is kept as it is.
    package static let storeTypeKey = "NSStoreType"
    /// The Core Data version (a build number such as 1448) that last wrote the store.
    package static let frameworkVersionKey = "NSPersistenceFrameworkVersion"
    /// The version of the hashing scheme (Core Data writes 3).
    package static let hashesVersionKey = "NSStoreModelVersionHashesVersion"
    /// Entity name → version hash (32 bytes) of the model that wrote the store: how versions are matched.
    package static let hashesKey = "NSStoreModelVersionHashes"
    /// The writing model's version identifiers (Xcode's "Identifier" field), one per merged model.
    package static let identifiersKey = "NSStoreModelVersionIdentifiers"
    /// A digest of all the entity hashes together.
    package static let digestKey = "NSStoreModelVersionHashesDigest"
    /// The model's version checksum, the one staged migration compares.
    package static let checksumKey = "NSStoreModelVersionChecksumKey"
    /// SQLite's `auto_vacuum` level Core Data set on the store.
    package static let autoVacuumKey = "_NSAutoVacuumLevel"
    /// The store's UUID, as the metadata API reports it (the table keeps it in `Z_UUID`).
    package static let uuidKey = "NSStoreUUID"

    /// What a store's `Z_METADATA` row holds.
    package struct Stored: @unchecked Sendable {
        /// `Z_UUID`: the store's identity (also in object IDs, `x-coredata://<UUID>/…`).
        package var uuid: String?
        /// The whole metadata dictionary, as `PropertyListSerialization` reads it.
        package var dictionary: [String: Any]

        /// Entity name → version hash, from ``CoreDataMetadata/hashesKey``; empty when absent.
        package var entityHashes: [String: Data] {
            var result: [String: Data] = [:]
            if let hashes = dictionary[CoreDataMetadata.hashesKey] as? [AnyHashable: Any] {
                for (key, value) in hashes {
                    if let name = key.base as? String, let data = value as? Data { result[name] = data }
                }
            }
            return result
        }

        /// `NSStoreModelVersionIdentifiers`: one entry per model merged into the writing model.
        package var versionIdentifiers: [String]? { dictionary[CoreDataMetadata.identifiersKey] as? [String] }
        /// The Core Data version that last wrote the store; nil when not recorded.
        package var frameworkVersion: Int? { (dictionary[CoreDataMetadata.frameworkVersionKey] as? NSNumber)?.intValue }

        /// The recorded checksum, else the one the hashes imply.
        package var versionChecksum: String? {
            if let checksum = dictionary[CoreDataMetadata.checksumKey] as? String { return checksum }
            let hashes = entityHashes
            return hashes.isEmpty ? nil : VersionHashes(entityHashes: hashes).versionChecksum
        }

        /// The metadata as `NSPersistentStoreCoordinator.metadataForPersistentStore` reports it: the
        /// dictionary with `NSStoreUUID` from `Z_UUID`.
        package var apiMetadata: [String: Any] {
            var result = dictionary
            if let uuid, result[CoreDataMetadata.uuidKey] == nil { result[CoreDataMetadata.uuidKey] = uuid }
            return result
        }
    }

    /// Bookkeeping tables with exactly the statements Core Data uses.
    static func createTables(_ db: Database, modelCache: Bool) throws {
        try db.execute(
            sql: "CREATE TABLE IF NOT EXISTS Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        try db.execute(
            sql: "CREATE TABLE IF NOT EXISTS Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        if modelCache {
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS Z_MODELCACHE (Z_CONTENT BLOB)")
        }
    }

    /// The `Z_METADATA` row, or nil when the table is missing or empty.
    package static func read(_ db: Database) throws -> Stored? {
        guard try db.tableExists(CoreDataLayout.metadataTable),
            let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
        else { return nil }
        // Whatever the store holds: a value of another type is an error that says so, never a trap.
        let uuid = try column(row, "Z_UUID", as: String.self)
        let plist = try column(row, "Z_PLIST", as: Data.self)
        return Stored(uuid: uuid, dictionary: try plist.map(decode) ?? [:])
    }

    /// `row[name]` converted to `T`, nil for NULL; a value that does not convert (an integer where a
    /// blob belongs) throws, naming the column and the type found.
    private static func column<T: DatabaseValueConvertible>(_ row: Row, _ name: String, as: T.Type) throws -> T? {
        let value: DatabaseValue = row[name]
        if value.isNull { return nil }
        guard let converted = T.fromDatabaseValue(value) else {
            throw BookkeepingError(layout: CoreDataLayout.layoutName, table: CoreDataLayout.metadataTable, .unexpectedType(column: name, found: value.storedType))
        }
        return converted
    }

    /// A binary (or XML) property list dictionary, read with InstarModelIO's checked reader: the bytes
    /// come from the store, and Foundation's parser crashes on some corrupted ones.
    package static func decode(_ data: Data) throws -> [String: Any] {
        let object: Any
        do {
            object = try CheckedPropertyList.foundationValue(data)
        } catch {
            throw BookkeepingError(layout: CoreDataLayout.layoutName, table: CoreDataLayout.metadataTable, .unreadablePropertyList(column: "Z_PLIST", detail: error.description))
        }
        guard let dictionary = object as? [AnyHashable: Any] else {
            throw BookkeepingError(layout: CoreDataLayout.layoutName, table: CoreDataLayout.metadataTable, .propertyListNotADictionary(column: "Z_PLIST"))
        }
        var result: [String: Any] = [:]
        for (key, value) in dictionary {
            if let name = key.base as? String { result[name] = value }
        }
        return result
    }

    /// The dictionary as a binary property list, as `Z_METADATA.Z_PLIST` stores it.
    package static func encode(_ dictionary: [String: Any]) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
    }

    /// `existing` with the keys that describe `model`'s version replaced, everything else kept.
    package static func updated(_ existing: [String: Any], model: Model, frameworkVersion: Int) -> [String: Any] {
        let hashes = VersionHashes(model: model)
        var result = existing
        result[storeTypeKey] = "SQLite"
        result[frameworkVersionKey] = frameworkVersion
        result[hashesVersionKey] = 3
        result[hashesKey] = hashes.entityHashes
        // A set to Core Data: an existing store's order is kept when it names the same identifiers.
        if let recorded = existing[identifiersKey] as? [String], Set(recorded) == Set(model.versionIdentifiers) {
            result[identifiersKey] = recorded
        } else {
            result[identifiersKey] = model.versionIdentifiers
        }
        result[digestKey] = hashes.versionHashesDigest
        result[checksumKey] = hashes.versionChecksum
        if result[autoVacuumKey] == nil { result[autoVacuumKey] = "2" }
        // Core Data keeps the UUID in Z_UUID, not in the dictionary (every observed store).
        return result
    }

    /// Records that the store is at `model`'s version: metadata, entity numbers, model cache (``ModelCacheWriter``), links.
    static func write(_ db: Database, model: Model, layout: CoreDataLayout) throws {
        try createTables(db, modelCache: layout.keepsModelCache)
        let stored = try read(db)
        let dictionary = updated(stored?.dictionary ?? [:], model: model, frameworkVersion: layout.frameworkVersion)
        let uuid = stored?.uuid ?? UUID().uuidString
        try db.execute(sql: "DELETE FROM Z_METADATA")
        try db.execute(
            sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)", arguments: [uuid, try encode(dictionary)])

        let map = try layout.storageMap(for: model)
        let removed = try renumber(db, model: model, layout: layout, map: map)
        if removed { try unlinkMissingRows(db, model: model, map: map, onlyRemoved: try RemovedRows.isRecording(db)) }
        try RemovedRows.forget(db)

        // The store's own model, in the same transaction as the metadata naming its version: a kill
        // anywhere leaves the old store with its old cache or the new store with its new one.
        try ModelCacheWriter.write(db, model: model, layout: layout)
    }

    /// Rewrites `Z_PRIMARYKEY` for `model`'s numbering. Each root's `Z_MAX` is the highest key its table
    /// holds or its rows' older hierarchy had handed out (so object IDs of deleted rows are never reused,
    /// also when a sub-entity leaves for a table of its own); sub-entities keep 0, as in Core Data. Rows
    /// of Core Data's own entities (history tracking, numbers from 16000) are kept. Returns true when an
    /// entity of the previous numbering is gone (rows may still be linked to it).
    @discardableResult
    static func renumber(_ db: Database, model: Model, layout: CoreDataLayout, map: StorageMap) throws -> Bool {
        var previous: [Int64: (name: String, parent: Int64, max: Int64)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT < 16000") {
            // Rows of other types (a text Z_ENT in a damaged store) are skipped, never trapped on.
            guard let number = Int64.fromDatabaseValue(row["Z_ENT"]), let name = String.fromDatabaseValue(row["Z_NAME"])
            else { continue }
            previous[number] = (name, Int64.fromDatabaseValue(row["Z_SUPER"]) ?? 0, Int64.fromDatabaseValue(row["Z_MAX"]) ?? 0)
        }
        // Entity name → the Z_MAX of its older root.
        var rootMax: [String: Int64] = [:]
        for (number, entry) in previous {
            var current = number
            var seen: Set<Int64> = []
            while let parent = previous[current]?.parent, parent != 0, previous[parent] != nil, seen.insert(parent).inserted {
                current = parent
            }
            rootMax[entry.name] = max(rootMax[entry.name] ?? 0, previous[current]?.max ?? 0)
        }
        try db.execute(sql: "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
        for (number, name, parent) in layout.entityNumbers(for: model) {
            var highest: Int64 = 0
            if parent == 0, let table = map.table(of: name) {
                for member in map.entities[name]?.kinds ?? [name] {
                    let entity = model.entity(named: member)
                    for older in [member, entity?.renamingIdentifier].compactMap({ $0 }) {
                        highest = max(highest, rootMax[older] ?? 0)
                    }
                }
                if try db.tableExists(table) {
                    highest = max(highest, try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(table.sqlQuoted)") ?? 0)
                }
            }
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                arguments: [number, name, parent, highest])
        }
        let names = Set(model.entities.map(\.name))
        return previous.values.contains { !names.contains($0.name) }
    }

    /// After a step that removed entities, links to rows that are gone become NULL (a to-one key, its
    /// entity column and its ordering column) or go (join-table rows), as Core Data's delete leaves them.
    /// Links are checked against the destination's table and entity kinds. With `onlyRemoved`, only
    /// links to rows the steps removed (``RemovedRows``) are touched: a key that led nowhere before
    /// the step (Core Data does not enforce references) is the store's data, kept as it is. Without it
    /// (a mapping step, which removes rows by its own rules) every link to a missing row is cleared.
    static func unlinkMissingRows(_ db: Database, model: Model, map: StorageMap, onlyRemoved: Bool) throws {
        /// `column IN (keys of the entity's rows)`; entity numbers are integers printed from their values.
        func exists(_ destination: String, _ column: String) -> String? {
            guard let storage = map.entities[destination], let info = map.entityTables[storage.table] else { return nil }
            let kinds = storage.kinds.compactMap { map.entities[$0]?.discriminatorValue?.literal }.joined(separator: ", ")
            let rows = info.discriminator.map { " WHERE \($0.sqlQuoted) IN (\(kinds))" } ?? ""
            return "\(column) IN (SELECT \(info.primaryKey.sqlQuoted) FROM \(storage.table.sqlQuoted)\(rows))"
        }
        for entity in model.entities {
            for relationship in entity.relationships where !relationship.isTransient {
                let key = RelationshipKey(entity: entity.name, name: relationship.name)
                switch map.relationships[key] {
                case .foreignKey(let table, let column)?:
                    guard let live = exists(relationship.destination, column.sqlQuoted) else { continue }
                    var cleared = [column]
                    let entityColumns = map.entityTables[table]?.bookkeeping.filter { $0.value == .entityOf(foreignKey: column) }
                    cleared += (entityColumns?.keys).map(Array.init) ?? []
                    // The position of this row in the destination's ordered set.
                    for case .inverseForeignKey(let inverse, let position?) in map.relationships.values where inverse == key {
                        cleared.append(position)
                    }
                    let assignments = cleared.map { "\($0.sqlQuoted) = NULL" }.joined(separator: ", ")
                    var sql = "UPDATE \(table.sqlQuoted) SET \(assignments) WHERE \(column.sqlQuoted) IS NOT NULL AND NOT \(live)"
                    var arguments = StatementArguments()
                    if onlyRemoved, let destination = map.entities[relationship.destination]?.table {
                        let removed = RemovedRows.removedFrom(destination, column: column)
                        sql += " AND " + removed.sql
                        arguments = removed.arguments
                    }
                    try db.execute(sql: sql, arguments: arguments)
                case .joinTable(let name, let owner, let destination, _)?:
                    guard let ownerLive = exists(entity.name, owner.sqlQuoted),
                        let destinationLive = exists(relationship.destination, destination.sqlQuoted)
                    else { continue }
                    var sql = "DELETE FROM \(name.sqlQuoted) WHERE (NOT \(ownerLive) OR NOT \(destinationLive))"
                    var arguments = StatementArguments()
                    if onlyRemoved, let ownerTable = map.entities[entity.name]?.table,
                        let destinationTable = map.entities[relationship.destination]?.table
                    {
                        let fromOwner = RemovedRows.removedFrom(ownerTable, column: owner)
                        let fromDestination = RemovedRows.removedFrom(destinationTable, column: destination)
                        sql += " AND (\(fromOwner.sql) OR \(fromDestination.sql))"
                        arguments = fromOwner.arguments + fromDestination.arguments
                    }
                    try db.execute(sql: sql, arguments: arguments)
                default:
                    continue
                }
            }
        }
    }
}

