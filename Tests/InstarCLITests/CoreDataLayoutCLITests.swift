import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore
import Testing
@_spi(Layouts) import InstarLayouts
import InstarTestSupport

/// The cases of CoreDataLayoutTests (InstarStoreTests) that run `instar`.
@Suite struct CoreDataLayoutCLITests {
    @Test func migratedStoresOpenAtTheirNewVersionThroughTheCLI() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Birds.xcdatamodeld")
        func write(_ version: String, _ entities: String) throws {
            let folder = bundle.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
                \(entities)
                </model>
                """.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        let bird = """
            <entity name="Bird" syncable="YES"><attribute name="name" optional="YES" attributeType="String"/></entity>
            """
        try write("Birds", bird)
        try write("Birds 2", bird + "\n<entity name=\"Aviary\" syncable=\"YES\"><attribute name=\"size\" optional=\"YES\" attributeType=\"Integer 32\"/></entity>")
        let store = directory.appendingPathComponent("Birds.sqlite").path
        let created = try runInstar(["store", "create", "\(bundle.path)#Birds", "--store", store, "--layout", "coredata"])
        #expect(created.status == 0, "\(created.stderr)")
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in try db.execute(sql: "INSERT INTO ZBIRD (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 1, 1, 'crow')") }
        try queue.close()
        let before = try runInstar(["inspect", "--store", store, "--model", bundle.path, "--format", "json"])
        #expect(before.json?["layout"] as? String == "coredata")
        #expect(before.json?["version"] as? String == "Birds")
        #expect(before.json?["matchedBy"] as? String == "metadata")
        let migrated = try runInstar([
            "migrate", "--store", store, "--to-model", bundle.appendingPathComponent("Birds 2.xcdatamodel").path, "--model",
            bundle.appendingPathComponent("Birds.xcdatamodel").path,
        ])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let after = try runInstar(["inspect", "--store", store, "--model", bundle.path, "--format", "json"])
        #expect(after.json?["version"] as? String == "Birds 2")
        #expect((after.json?["drift"] as? [Any])?.isEmpty == true)
        #expect((after.json?["rowCounts"] as? [String: Int])?["ZBIRD"] == 1)
        let rows = try DatabaseQueue(path: store).read { db in try Row.fetchAll(db, sql: "SELECT Z_ENT, ZNAME FROM ZBIRD") }
        #expect(rows.map { $0["Z_ENT"] as Int } == [2])
    }
}
