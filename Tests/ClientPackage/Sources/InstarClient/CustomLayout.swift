import Foundation
@_spi(Layouts) import Instar

// A store layout of the app's own, written against the layout interface (`@_spi(Layouts)`): the plain
// SQL layout's tables, with a version table of its own. If a name this needs stops being reachable
// through that interface, this package stops compiling.

/// Keeps its version in one row of `app_version`; stores its tables as the plain SQL layout does.
struct AppVersionTableLayout: StoreLayout {
    let name = "app-version-table"
    private let tables = PlainSQLLayout()

    func storageMap(for model: Model) throws(LayoutError) -> StorageMap { try tables.storageMap(for: model) }
    func isBookkeepingTable(_ name: String) -> Bool { name == "app_version" || tables.isBookkeepingTable(name) }
    func convert(_ value: ColumnValueExpression, from: Attribute, to: Attribute) -> ColumnValueExpression {
        tables.convert(value, from: from, to: to)
    }
    func storedDefault(of attribute: Attribute) -> SQLValue? { tables.storedDefault(of: attribute) }
    var valueEncoding: ValueEncoding { tables.valueEncoding }
    var toleratesExtraIndexes: Bool { false }

    func recognizes(_ db: Database) throws -> Bool { try db.tableExists("app_version") }
    func createBookkeeping(_ db: Database, model: Model) throws {
        try db.execute(sql: #"CREATE TABLE IF NOT EXISTS "app_version" ("name" TEXT NOT NULL)"#)
    }
    func readMetadata(_ db: Database) throws -> StoreMetadata? {
        guard try recognizes(db), let version = try String.fetchOne(db, sql: #"SELECT "name" FROM "app_version""#) else {
            return nil
        }
        return StoreMetadata(layout: name, versionName: version, entityHashes: [:], versionChecksum: nil)
    }
    func writeMetadata(_ db: Database, model: Model) throws {
        try createBookkeeping(db, model: model)
        try db.execute(sql: #"DELETE FROM "app_version""#)
        try db.execute(sql: #"INSERT INTO "app_version" ("name") VALUES (?)"#, arguments: [model.name])
    }
}

/// Registered once at start, before a plan naming `layout: app-version-table` is read.
func registerAppLayout() -> Bool {
    LayoutRegistry.register("app-version-table") { AppVersionTableLayout() }
}
