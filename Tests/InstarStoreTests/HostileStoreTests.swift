import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import Testing
import InstarTestSupport
import InstarStoreTestSupport

/// Stores whose bookkeeping holds values of the wrong type or damaged property lists: GRDB's typed
/// subscripts and Foundation's property-list parser crashed the process on them (found by
/// `Scripts/fuzz`). Reading them must be an error naming the table and column, and change nothing.
@Suite struct HostileStoreTests {
    /// A database with Core Data's `Z_METADATA` holding `uuid` and `plist` as given.
    func coreDataMetadata(uuid: DatabaseValueConvertible?, plist: DatabaseValueConvertible?) throws -> Error? {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("store.sqlite").path)
        return try queue.write { db in
            try db.execute(sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
            try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, ?, ?)", arguments: [uuid, plist])
            do {
                _ = try CoreDataMetadata.read(db)
                return nil
            } catch {
                return error
            }
        }
    }

    @Test func aMetadataPlistOfAnotherTypeIsAnError() throws {
        let error = try coreDataMetadata(uuid: "U", plist: 12) as? BookkeepingError
        #expect(error == BookkeepingError(layout: "coredata", table: "Z_METADATA", .unexpectedType(column: "Z_PLIST", found: .integer)))
        // Z_UUID has text affinity: a number becomes text, but bytes that are not UTF-8 stay a blob.
        let uuidError = try coreDataMetadata(uuid: Data([0xFF, 0x00]), plist: nil) as? BookkeepingError
        #expect(uuidError?.problem == .unexpectedType(column: "Z_UUID", found: .blob))
    }

    /// Every single-byte change of a real metadata plist: an error or a dictionary, never a crash.
    @Test func corruptedMetadataPlistsAreErrors() throws {
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["NSStoreModelVersionHashes": ["Note": Data(repeating: 7, count: 32)],
                               "NSStoreModelVersionIdentifiers": [""], "NSStoreType": "SQLite"],
            format: .binary, options: 0)
        var errors = 0
        for offset in stride(from: 0, to: plist.count, by: 3) {
            for byte: UInt8 in [0x00, 0x80, 0xDF, 0xAF, 0xFF] {
                var damaged = plist
                damaged[offset] = byte
                if let error = try coreDataMetadata(uuid: "U", plist: damaged) {
                    let bookkeeping = error as? BookkeepingError
                    #expect(bookkeeping?.table == "Z_METADATA", "\(error)")
                    switch bookkeeping?.problem {
                    case .unreadablePropertyList("Z_PLIST", _)?, .propertyListNotADictionary("Z_PLIST")?: break
                    default: Issue.record("not the plist's error: \(error)")
                    }
                    errors += 1
                }
            }
        }
        #expect(errors > 0)
        let deep = "<?xml version=\"1.0\"?><plist><dict><key>a</key>" + String(repeating: "<array>", count: 30_000)
        let deepError = try coreDataMetadata(uuid: "U", plist: Data(deep.utf8))
        guard case .unreadablePropertyList("Z_PLIST", let detail)? = (deepError as? BookkeepingError)?.problem else {
            Issue.record("a plist nested 30,000 deep: \(String(describing: deepError))")
            return
        }
        #expect(detail.contains("nests"), "the reader's account says it nests too deep: \(detail)")
    }

    @Test func instarMetadataOfAnotherTypeIsAStoreError() throws {
        let f = try StoreFixture(try model("entities:\n  Note:\n    attributes:\n      title: string?\n", name: "V1"))
        // The column has text affinity: a number would become text, bytes that are not UTF-8 stay a blob.
        try f.execute("UPDATE \"_instar_metadata\" SET \"value\" = x'FF00' WHERE \"key\" = 'version'")
        let before = try f.fileBytes()
        #expect {
            _ = try f.store.metadata()
        } throws: { error in
            let text = "\(error)"
            return text.contains(f.path) && text.contains("_instar_metadata key 'version' holds a blob, not text")
        }
        #expect(try f.fileBytes() == before)
    }
}
