import Foundation
@_spi(Layouts) import Instar
import Testing

@testable import InstarCLI
@testable import InstarRuntime  // Lease's memberwise initializer, for a lease held elsewhere
@testable import InstarStore  // SchemaDifference's memberwise initializer: the library builds drift items, apps read them
import InstarTestSupport
import InstarStoreTestSupport

/// The words `instar` prints for the library's errors, compared with a golden file: the library hands
/// over facts (kinds, drift items, hook names, SQLite codes), and only the command line turns them into
/// hints that name its flags and commands. Run in-process: no binary is spawned.
///
/// To regenerate after a deliberate wording change, run `INSTAR_UPDATE_GOLDEN=1 swift test --filter Golden`
/// and review the diff of `Tests/Fixtures/Golden/error-hints.txt` before committing it.
@Suite struct CLIWordingGoldenTests {
    static let store = "/nonexistent/dir/store.sqlite"
    static let resume = "instar migrate plan.yaml --store \(store)"

    /// Each error the CLI adds words to, built from facts as the library builds them.
    static func cases() -> [(String, String)] {
        var drift = StoreError(.schemaDrift, path: store, reason: .schemaDrift(version: "V1"))
        drift.drift = [SchemaDifference(kind: .extraColumn, table: "Track", column: "sneaky", actual: "TEXT")]
        let locked = StoreError(
            .locked, path: store, reason: .sqlite(.migrating(step: nil)),
            sqlite: SQLiteFailure(code: 5, extendedCode: 5, message: "database is locked", sql: "BEGIN IMMEDIATE"))
        // The library's own refusal of an empty backup file, moved to a fixed path.
        var emptyBackup = StoreError(.notFound, path: "", reason: .unexpected(.readingBackup))
        if let folder = try? temporaryDirectory() {
            let empty = folder.appendingPathComponent("backup.sqlite").path
            FileManager.default.createFile(atPath: empty, contents: Data())
            do { try SQLiteStore.checkBackup(empty) } catch { emptyBackup = error }
            try? FileManager.default.removeItem(at: folder)
        }
        emptyBackup.path = "/nonexistent/dir/backup.sqlite"
        var unchanged = HookError(hook: "broken", step: "V1 → V2", message: "SQLite: no such table: Nope")
        unchanged.storeUnchanged = true
        return [
            ("store.notFound (no file)", ErrorHints.text(StoreError(.notFound, path: store, reason: .noFile(.store)))),
            ("store.notFound (SQLite cannot open)", ErrorHints.text(StoreError(
                .notFound, path: store, reason: .sqlite(.opening),
                sqlite: SQLiteFailure(code: 14, extendedCode: 14, message: "unable to open database file", sql: nil)))),
            ("store.notFound (a missing backup, instar restore)", ErrorHints.text(
                StoreError(.notFound, path: "/nonexistent/dir/backup.sqlite", reason: .noFile(.backup)), store: store)),
            ("store.locked", ErrorHints.text(locked)),
            ("store.needsRecovery", ErrorHints.text(StoreError(.needsRecovery, path: store, reason: .hotJournal(.opening)))),
            ("store.schemaDrift", ErrorHints.text(drift)),
            ("hook.commandsNotAllowed", ErrorHints.text(
                HookError(hook: "external", step: "V1 → V2", message: "it runs an external command", kind: .commandsNotAllowed),
                resume: resume)),
            ("hook.failed", ErrorHints.text(
                HookError(hook: "fill", step: "V1 → V2", message: "the command exited with status 3"), resume: resume)),
            ("hook.notDefined", ErrorHints.text(
                HookError(hook: "fill", step: "V1 → V2", message: "the plan does not define it", kind: .notDefined),
                resume: resume)),
            ("hook.failed (a fresh run's first transaction: the store unchanged)", ErrorHints.text(unchanged, resume: resume)),
            ("resume.stepChanged", ErrorHints.text(
                ResumeRefused(path: store, reason: .stepChanged(index: 1, from: "V1", to: "V2")), resume: resume)),
            ("resume.otherTarget", ErrorHints.text(
                ResumeRefused(path: store, reason: .otherTarget(unfinishedTarget: "V2", requested: "V1")), resume: resume)),
            ("resume.versionMissing", ErrorHints.text(ResumeRefused(path: store, reason: .versionMissing("V2")), resume: resume)),
            ("lease", ErrorHints.text(LeaseError(path: store, holder: Lease(
                owner: "instar pid 4242 on elsewhere", pid: 4242, host: "elsewhere",
                since: Date(timeIntervalSince1970: 1_000_000_000), heartbeat: Date(timeIntervalSince1970: 1_000_000_000))))),
            ("store.notADatabase (an empty backup, instar restore)", ErrorHints.text(emptyBackup, store: store)),
            ("store.alreadyExists (a backup, instar migrate --backup)", ErrorHints.text(
                StoreError(.alreadyExists, path: "/nonexistent/dir/backup.sqlite", reason: .fileInTheWay(.backup)),
                store: store)),
        ]
    }

    static func render() -> String {
        cases().map { "## \($0.0)\n\($0.1)\n" }.joined(separator: "\n")
    }

    @Test func hintsMatchTheGoldenFile() throws {
        try GoldenFile.check(Self.render(), "error-hints.txt")
    }

    /// The CLI decides from facts, not from the library's message text: a store error with another
    /// message but the same facts gets the same hint.
    @Test func hintsFollowFactsNotMessages() {
        let reworded = ErrorHints.text(StoreError(.notFound, path: Self.store, reason: .unexpected(.opening)))
        #expect(reworded.contains("instar store create"))
        let sqliteCannotOpen = ErrorHints.text(StoreError(
            .notFound, path: Self.store, reason: .noFile(.store),
            sqlite: SQLiteFailure(code: 14, extendedCode: 14, message: nil, sql: nil)))
        #expect(!sqliteCannotOpen.contains("instar store create"))
    }

    /// Options repeated across commands parse the same in each (in-process, ArgumentParser's parser).
    @Test func sharedOptionsParseInEveryCommand() throws {
        for arguments in [
            ["plan", "plan.yaml", "--store", "s.sqlite", "--format", "json"],
            ["status", "--store", "s.sqlite", "--format", "json"],
        ] {
            let command = try InstarCommand.parseAsRoot(arguments)
            #expect("\(type(of: command))".hasSuffix("Command"), "\(arguments)")
        }
        #expect(throws: (any Error).self) { try InstarCommand.parseAsRoot(["migrate", "--store"]) }
    }
}
