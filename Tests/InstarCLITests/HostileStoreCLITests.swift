import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import Testing
import InstarTestSupport
import InstarStoreTestSupport
import InstarRuntime
@testable import InstarCLI  // ErrorHints, the words the CLI adds to a library error

/// The cases of HostileStoreTests (InstarStoreTests) that run `instar`.
@Suite struct HostileStoreCLITests {
    /// A `-wal` file copied from another store: SQLite replays it and reads the store as malformed.
    /// `instar` must say so and what to do, and change neither file.
    @Test(.needsCorpus) func aWALFileFromAnotherStoreIsAClearError() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("Moody.sqlite")
        try FileManager.default.copyItem(
            at: corpusRoot.appendingPathComponent("objcio__core-data/Migrations/MigrationsTests/Moody.moody"), to: store)
        try FileManager.default.copyItem(
            at: corpusRoot.appendingPathComponent("duckduckgo__BrowserServicesKit/Tests/BookmarksTests/Resources/Bookmarks_V5.sqlite-wal"),
            to: URL(fileURLWithPath: store.path + "-wal"))
        let before = try Data(contentsOf: store)
        // What the library refuses for each command: SQLite's SQLITE_CORRUPT (11), the -wal beside the store.
        let refusals = [
            "inspect": #expect(throws: StoreError.self) { try SQLiteStore.open(at: store.path, readOnly: true).close() },
            "status": #expect(throws: StoreError.self) { _ = try Migrator.status(ofStoreAt: store.path) },
        ]
        for command in [["inspect", "--store", store.path], ["status", "--store", store.path]] {
            let result = try runInstar(command)
            #expect(result.status == 1, "\(command): \(result.stderr)")
            let refusal = try #require(refusals[command[0]] ?? nil)
            #expect(refusal.kind == .corrupt && refusal.sqlite?.code == 11, "\(refusal)")
            #expect(result.stderr == "instar: \(ErrorHints.text(refusal))\n", "\(result.stderr)")
        }
        #expect(try Data(contentsOf: store) == before)
    }
}
