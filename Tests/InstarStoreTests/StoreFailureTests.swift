import Foundation
import GRDB
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore
import InstarCompiler
import Testing
import InstarTestSupport
import InstarStoreTestSupport

/// Each failure leaves the store byte-for-byte as it was, with an error that says what to do.
@Suite struct StoreFailureTests {
    let v1 = "entities:\n  Track:\n    attributes:\n      title: string?\n      plays: int64?\n"
    /// A step that rebuilds `Track` (optional → required with a default).
    let rebuild = "entities:\n  Track:\n    attributes:\n      title: string = untitled\n      plays: int64?\n"

    func filled(rows: Int = 200) throws -> StoreFixture {
        let f = try StoreFixture(try model(v1, name: "V1"))
        try f.store.withDatabase { db in
            try db.inTransaction {
                for i in 0..<rows {
                    try db.execute(
                        sql: "INSERT INTO Track (_pk, title, plays) VALUES (?, ?, ?)",
                        arguments: [i + 1, i % 7 == 0 ? nil : "title \(i) " + String(repeating: "x", count: 200), i])
                }
                return .commit
            }
        }
        return f
    }

    func expectUnchanged(_ f: StoreFixture, kind: StoreError.Kind, _ body: () throws -> Void) throws {
        let before = try f.fileBytes()
        do {
            try body()
            Issue.record("expected a \(kind) error")
        } catch let error as StoreError {
            #expect(error.kind == kind, "\(error)")
            #expect(error.path == f.path)
        }
        #expect(try f.fileBytes() == before, "the store file changed")
        #expect(!FileManager.default.fileExists(atPath: f.path + "-journal"))
        // And the store still opens at its old version.
        #expect(try SQLiteStore.open(at: f.path).metadata()?.versionName == "V1")
    }

    @Test func nonInferableTargetIsRefusedWithReasons() throws {
        let f = try filled()
        try expectUnchanged(f, kind: .notInferable) {
            do {
                try f.store.migrate(
                    from: try model(v1, name: "V1"),
                    to: try model("entities:\n  Track:\n    attributes:\n      title: int64?\n      plays: int64?\n", name: "V2"))
            } catch let error as StoreError {
                let compile = error.underlying as? StepCompileError
                #expect(compile?.from == "V1" && compile?.to == "V2")
                guard case .changesNotInferable(let changes)? = compile?.reason else {
                    Issue.record("not refused for its changes: \(error)")
                    throw error
                }
                #expect(changes.map(\.kind) == [.attributeTypeChanged])
                #expect(changes.first?.subject == "Track.title" && changes.first?.before == "String" && changes.first?.after == "Integer 64")
                throw error
            }
        }
    }

    @Test func schemaDriftIsRefused() throws {
        let f = try filled()
        try f.execute("ALTER TABLE Track ADD COLUMN sneaky TEXT")
        try expectUnchanged(f, kind: .schemaDrift) {
            do {
                try f.store.migrate(from: try model(v1, name: "V1"), to: try model(rebuild, name: "V2"))
            } catch let error as StoreError {
                #expect(error.drift.map(\.kind) == [.extraColumn])
                #expect(error.drift.first.map { [$0.table, $0.column] } == ["Track", "sneaky"])
                throw error
            }
        }
    }

    @Test func nullsBlockingARequiredAttributeAreCountedAndRefused() throws {
        let f = try filled()
        let required = "entities:\n  Track:\n    attributes:\n      title: string\n      plays: int64?\n"
        try expectUnchanged(f, kind: .dataCondition) {
            do {
                try f.store.migrate(from: try model(v1, name: "V1"), to: try model(required, name: "V2"))
            } catch let error as StoreError {
                #expect(error.condition == .noNulls(entity: "Track", property: "title"))
                #expect(error.violations == 29)
                throw error
            }
        }
    }

    @Test func readOnlyStoreIsRefused() throws {
        let f = try filled()
        let readOnly = try SQLiteStore.open(at: f.path, readOnly: true)
        try expectUnchanged(f, kind: .readOnly) {
            try readOnly.migrate(from: try model(v1, name: "V1"), to: try model(rebuild, name: "V2"))
        }
    }

    @Test func lockedStoreIsRefused() throws {
        let f = try filled()
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true  // another app holding a write lock
        let other = try DatabaseQueue(path: f.path, configuration: configuration)
        let busy = try SQLiteStore.open(at: f.path, busyTimeout: 0.05)
        try other.inDatabase { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        defer { try? other.inDatabase { db in try db.execute(sql: "ROLLBACK") } }
        let before = try f.fileBytes()
        do {
            try busy.migrate(from: try model(v1, name: "V1"), to: try model(rebuild, name: "V2"))
            Issue.record("expected the lock to block the step")
        } catch let error as StoreError {
            #expect(error.kind == .locked)
            #expect(error.sqlite?.code == ResultCode.SQLITE_BUSY.rawValue, "\(error)")
            #expect(error.path == f.path)
        }
        #expect(try f.fileBytes() == before)
    }

    @Test func fullDiskRollsBackTheRebuild() throws {
        let f = try filled(rows: 2000)
        // Allow a few pages more than the store has: the rebuild's copy of Track cannot fit.
        try f.execute("PRAGMA max_page_count = \(try f.store.withDatabase { db in try Int.fetchOne(db, sql: "PRAGMA page_count")! } + 3)")
        try expectUnchanged(f, kind: .diskFull) {
            try f.store.migrate(from: try model(v1, name: "V1"), to: try model(rebuild, name: "V2"))
        }
    }

    @Test func failingViewRecreationRollsBack() throws {
        let f = try filled()
        // A view of the app's own that reads a column the step removes cannot be recreated.
        try f.execute("CREATE VIEW played AS SELECT title, plays FROM Track WHERE plays > 0")
        let dropped = "entities:\n  Track:\n    attributes:\n      title: string?\n"
        let before = try f.fileBytes()
        #expect(throws: StoreError.self) {
            try f.store.migrate(from: try model(v1, name: "V1"), to: try model(dropped, name: "V2"))
        }
        #expect(try f.fileBytes() == before)
    }

    @Test func missingAndNonDatabaseFilesAreClearErrors() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect {
            _ = try SQLiteStore.open(at: dir.appendingPathComponent("nope.sqlite").path)
        } throws: { ($0 as? StoreError)?.kind == .notFound }
        let text = dir.appendingPathComponent("text.sqlite")
        try String(repeating: "not a database\n", count: 100).write(to: text, atomically: true, encoding: .utf8)
        let bytes = try Data(contentsOf: text)
        #expect {
            _ = try SQLiteStore.open(at: text.path)
        } throws: { ($0 as? StoreError)?.kind == .notADatabase }
        #expect(try Data(contentsOf: text) == bytes)
    }

    @Test func creatingOverAnExistingFileIsRefused() throws {
        let f = try filled(rows: 1)
        let before = try f.fileBytes()
        #expect {
            _ = try SQLiteStore.create(at: f.path, model: try model(v1, name: "V1"))
        } throws: { ($0 as? StoreError)?.kind == .alreadyExists }
        #expect(try f.fileBytes() == before)
    }
}
