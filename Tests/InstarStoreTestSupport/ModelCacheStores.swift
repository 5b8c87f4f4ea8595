// Cached models (Z_MODELCACHE) as Core Data writes them, and stores holding them: for the store's tests
// and the CLI's.
import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts
import InstarTestSupport
import InstarModelIO
@_spi(Layouts) import InstarStore

/// A cached-model archive and a Core Data store that keeps it.
package enum ModelCacheStores {
    package static let compositeClass = [
        "NSCompositeAttributeDescription", "NSAttributeDescription", "NSPropertyDescription", "NSObject",
    ]

    /// A cached-model archive as Core Data writes one: entities in an `NSKnownKeysDictionary1`, an
    /// inherited property as a proxy, a composite attribute with two elements.
    package static func cacheArchive(identifier: String? = "1.3", entities: Bool = true, composite: Bool = true) throws -> Data {
        var m = ModelArchiveBuilder()
        if entities {
            let base = m.entity("Base", properties: [m.attribute("created", type: 900, optional: false)])
            let proxy = m.archive.object(
                ["_NSPropertyDescriptionProxy", "NSObject"],
                ["NSEntityDescription": base, "NSReferenceID": 0, "NSUnderlyingProperty": ArchiveBuilder.null])
            let elements = m.archive.array([
                m.attribute("raw", type: 700).1, m.attribute("count", type: 300, optional: false).1,
            ])
            let kind = (
                "kind",
                m.archive.object(
                    Self.compositeClass,
                    [
                        "NSPropertyName": m.archive.add("kind"), "NSAttributeType": 2100, "_P": 0xF3,
                        "NSIsOptional": true, "NSFlagsKey": 0, "NSDefaultValue": ArchiveBuilder.null,
                        "NSCompositeElements": elements,
                    ])
            )
            m.entity(
                "Item", properties: [("created", proxy), m.attribute("title", type: 700)] + (composite ? [kind] : []),
                extra: ["NSSuperentity": base])
        }
        let identifiers = m.archive.array(identifier.map { [m.archive.add($0)] } ?? [], className: "NSSet")
        let keys = m.archive.array(m.entities.map { m.archive.add($0.0) }, className: "NSArray")
        let strategy = m.archive.object(
            ["NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject"],
            ["keys": keys, "length": m.entities.count, "version": 1])
        let dictionary = m.archive.object(
            ["NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject"],
            [
                "searchMapping": strategy, "values": m.archive.array(m.entities.map(\.1), className: "NSArray"),
                "emptyToken": m.archive.add("__empty_slot_token__"), "version": 1,
            ])
        let root = m.archive.object(
            ["NSManagedObjectModel", "NSObject"], ["NSEntities": dictionary, "NSVersionIdentifiers": identifiers])
        return try m.archive.data(root: root)
    }

    /// A Core Data store created here, its cache written as Core Data writes it (without the composite:
    /// the coredata layout does not flatten composites into columns yet).
    package static func store(cache: Data?, in folder: URL) throws -> (path: String, model: Model) {
        let archive = try cacheArchive(composite: false)
        let model = try CompiledModelReader.parse(data: archive, name: "v1.3", file: "/tmp/c.mom")
        let path = folder.appendingPathComponent("Cached.sqlite").path
        let store = try SQLiteStore.create(at: path, model: model, layout: CoreDataLayout(frameworkVersion: 1448))
        if let cache {
            try store.withDatabase { db in
                try db.execute(sql: "INSERT INTO \"Z_MODELCACHE\" (\"Z_CONTENT\") VALUES (?)", arguments: [cache])
            }
        }
        try store.close()
        return (path, model)
    }
}
