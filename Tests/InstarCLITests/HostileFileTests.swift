import Foundation
import GRDB
import Testing
import InstarAdoption
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarLayouts
import InstarPlanner
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
import InstarTestSupport
import InstarStoreTestSupport
@testable import InstarCLI  // ErrorHints, the words the CLI adds to a library error

/// Files that are not what they claim (issue 32, items 6 and 7): a FIFO, a device or a directory where a
/// store should be, a store whose -wal SQLite would delete, YAML whose aliases nest or multiply past the
/// limits, database and model values that would become SQL, and outputs that would overwrite an input,
/// a link's target or a device. Each is refused before anything is opened or written.
@Suite struct HostileFileTests {
    /// Runs `instar`, killing it if it has not exited after a minute: a regression that blocks (a FIFO
    /// opened) fails the test instead of hanging the suite. Nothing here measures time.
    func runInstarOrKill(_ arguments: [String], currentDirectory: URL? = nil) throws -> CLIResult {
        let process = Process()
        process.executableURL = instarBinary
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let killer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: killer)
        let (outData, errData) = readBoth(out, err)
        process.waitUntilExit()
        killer.cancel()
        return CLIResult(
            status: process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }

    func makeFIFO(in folder: URL, _ name: String = "store.sqlite") throws -> String {
        let path = folder.appendingPathComponent(name).path
        #expect(mkfifo(path, 0o600) == 0)
        return path
    }

    static let musicPlan = packageRoot.appendingPathComponent("Plans/music/plan.yaml").path
    static let musicV1 = packageRoot.appendingPathComponent("Plans/music/models/v1.yaml").path

    // MARK: - Only regular files are stores

    @Test func aFIFOIsRefusedBeforeItIsOpened() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = try makeFIFO(in: folder)
        // In-process: opening would block for ever; the check comes first.
        #expect {
            _ = try SQLiteStore.open(at: fifo, readOnly: true)
        } throws: { ($0 as? StoreError)?.kind == .notARegularFile && "\($0)".contains("FIFO") }
        let commands: [[String]] = [
            ["inspect", "--store", fifo],
            ["plan", Self.musicPlan, "--store", fifo],
            ["model", "export", "--store", fifo],
            ["model", "import", "--store", fifo],
            ["store", "seed", fifo, "--rows", "1", "--model", Self.musicV1],
            ["test", Self.musicPlan, "--fixtures", fifo],
            ["restore", "--backup", fifo, "--store", fifo],
        ]
        // The library's refusal (the FIFO named, and its role: a store, a database to import, a fixture).
        func refusal(_ role: StoreError.FileRole) -> StoreError? {
            #expect(throws: StoreError.self) { try StoreFile.checkBeforeOpening(fifo, role: role) }
        }
        let roles: [String: StoreError.FileRole] = ["import": .importedDatabase, "test": .fixture]
        for command in commands {
            let result = try runInstarOrKill(command)
            #expect(result.status == 66, "\(command): \(result.status) \(result.stderr)")
            let expected = try #require(refusal(roles[command[1]] ?? roles[command[0]] ?? .store))
            let store = command.first == "restore" ? fifo : nil
            #expect(result.stderr == "instar: \(ErrorHints.text(expected, store: store))\n", "\(command): \(result.stderr)")
        }
    }

    @Test func aFIFOOrADeviceLinkAmongFixturesIsSkipped() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixtures = folder.appendingPathComponent("fixtures")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        _ = try makeFIFO(in: fixtures, "a.sqlite")
        try FileManager.default.createSymbolicLink(atPath: fixtures.appendingPathComponent("b.sqlite").path, withDestinationPath: "/dev/zero")
        let result = try runInstarOrKill(["test", Self.musicPlan, "--fixtures", fixtures.path])
        // Nothing in the folder is a store: the command ends (it neither blocks on the FIFO nor reads
        // /dev/zero for ever), whatever it then says about an empty folder.
        #expect(result.status == 66, "\(result.status) \(result.stderr)")  // the words: golden cli/test-fixtures.txt
        #expect(!result.stderr.contains("Fatal error"), "\(result.stderr)")
    }

    @Test func aDirectoryAndDevicesAreRefused() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let link = folder.appendingPathComponent("zero.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/zero")
        for (path, noun) in [(folder.path, "directory"), ("/dev/null", "character device"), (link, "symbolic link to a character device")] {
            #expect {
                _ = try SQLiteStore.open(at: path, readOnly: true)
            } throws: { ($0 as? StoreError)?.kind == .notARegularFile && "\($0)".contains(noun) }
        }
        #expect {
            _ = try SchemaImporter.importModel(path: "/dev/null", name: "X")
        } throws: { ($0 as? StoreError)?.kind == .notARegularFile }
        #expect {
            _ = try ModelLoader.load(link.replacingOccurrences(of: ".sqlite", with: ".yaml"))
        } throws: { _ in true }
        let yamlLink = folder.appendingPathComponent("model.yaml").path
        try FileManager.default.createSymbolicLink(atPath: yamlLink, withDestinationPath: "/dev/zero")
        #expect {
            _ = try ModelLoader.load(yamlLink)
        } throws: { "\($0)".contains("character device") }
    }

    /// SQLite deletes a `-wal` beside a 0-byte store on opening it, even read-only: refused first.
    @Test func anEmptyStoreWithAWalIsLeftAsItIs() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        FileManager.default.createFile(atPath: store, contents: Data())
        let wal = Data(repeating: 0x37, count: 4096)
        FileManager.default.createFile(atPath: store + "-wal", contents: wal)
        for readOnly in [true, false] {
            #expect {
                _ = try SQLiteStore.open(at: store, readOnly: readOnly)
            } throws: { ($0 as? StoreError)?.kind == .corrupt && "\($0)".contains("nothing was changed") }
        }
        #expect(FileManager.default.contents(atPath: store + "-wal") == wal)
        let result = try runInstar(["inspect", "--store", store])  // in-process: nothing here can block
        #expect(result.status != 0)
        #expect(FileManager.default.contents(atPath: store + "-wal") == wal)
    }

    /// A refused restore leaves the store's -wal alone: the backup is checked before the store is
    /// opened for writing (a read-write connection checkpoints the -wal when it closes).
    @Test func aRefusedRestoreLeavesTheWalAlone() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE t (a)")
        }
        // Keep the -wal: a copy taken while the connection is open.
        let snapshot = folder.appendingPathComponent("copy.sqlite").path
        try FileManager.default.copyItem(atPath: store, toPath: snapshot)
        try FileManager.default.copyItem(atPath: store + "-wal", toPath: snapshot + "-wal")
        try queue.close()
        let walBefore = FileManager.default.contents(atPath: snapshot + "-wal")
        let mainBefore = FileManager.default.contents(atPath: snapshot)
        let empty = folder.appendingPathComponent("empty.sqlite").path
        FileManager.default.createFile(atPath: empty, contents: Data())
        let result = try runInstar(["restore", "--backup", empty, "--store", snapshot])  // in-process: nothing here can block
        #expect(result.status != 0)
        let refusal = try #require(#expect(throws: StoreError.self) { try SQLiteStore.checkBackup(empty) })
        #expect(result.stderr == "instar: \(ErrorHints.text(refusal, store: snapshot))\n", "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: snapshot + "-wal") == walBefore)
        #expect(FileManager.default.contents(atPath: snapshot) == mainBefore)
    }

    // MARK: - YAML aliases count towards the limits

    func planProblems(_ text: String) throws -> [ModelProblem] {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("plan.yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try PlanFileReader.read(path: path)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func anAliasBombInAHookIsRefusedWithItsLine() throws {
        var text = "name: bomb\nversions: []\nhooks:\n  h:\n    sql:\n      - &a0 [\"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\", \"SELECT 1\"]\n"
        for level in 1...12 {
            text += "      - &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ", ") + "]\n"
        }
        let problems = try planProblems(text)
        #expect(problems.contains {
                    guard case .expandedBytes? = $0.limit else { return false }
                    return $0.location?.line != nil && $0.location?.file.hasSuffix("plan.yaml") == true
                },
                "\(problems)")
    }

    @Test func aliasesThatNestDeepAreRefusedWithTheirLine() throws {
        var text = "name: deep\nversions: []\nx0: &x0 [1]\n"
        for level in 1...2_000 {
            text += "x\(level): &x\(level) [[[[[[[[[[*x\(level - 1)]]]]]]]]]]\n"
        }
        let problems = try planProblems(text)
        #expect(problems.contains {
                    guard case .depth? = $0.limit else { return false }
                    return ($0.location?.line ?? 0) > 3
                }, "\(problems.prefix(2))")
    }

    @Test func ordinaryAliasesStillRead() throws {
        let text = """
            name: M
            entities:
              A:
                attributes:
                  x: &shape {type: string, optional: true}
                  y: *shape
            """
        let model = try ModelFileReader.parse(text, file: "m.yaml", defaultName: "M")
        #expect(model.entities.first?.attributes.count == 2)
    }

    // MARK: - No value becomes SQL

    @Test func typeNamesAndActions() {
        for valid in ["", "TEXT", "varchar(255)", "UNSIGNED BIG INT", "DECIMAL(10, 2)", "NUMERIC( -3 , +4.5 )", "double precision", "Ünïcode"] {
            #expect(SQLTypeName.isValid(valid), "\(valid)")
        }
        for invalid in ["TEXT); DROP TABLE t; --", "INT PRIMARY KEY", "TEXT NOT NULL", "varchar(", "varchar(a)", "int)", "x(1,2,3)",
                        "a -- b", "1abc", "TEXT DEFAULT 3", "a;b", "\"quoted\""] {
            #expect(!SQLTypeName.isValid(invalid), "\(invalid)")
        }
        #expect(SQLForeignKeyAction.normalized("set  null") == "SET NULL")
        #expect(SQLForeignKeyAction.normalized("CASCADE; DROP TABLE t") == nil)
        #expect(SQLColumnClause.staysInItsColumn("CHECK (\"a\" >= 0) COLLATE NOCASE"))
        #expect(SQLColumnClause.staysInItsColumn("CHECK (a <> ')')"))
        for clause in ["CHECK (1)), b INT", "CHECK (1); DROP TABLE t", "COLLATE NOCASE -- x", "CHECK ('a", "/* x */"] {
            #expect(!SQLColumnClause.staysInItsColumn(clause), "\(clause)")
        }
    }

    @Test func anInjectedDeclaredTypeInAnAdoptedDatabaseIsRefused() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("hostile.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, x \"TEXT); DROP TABLE t; CREATE TABLE injected (a); --\", y INT)")
            try db.execute(sql: "CREATE TABLE u (id INTEGER PRIMARY KEY, name TEXT)")
        }
        try queue.close()
        #expect {
            _ = try SchemaImporter.importModel(path: path, name: "Hostile")
        } throws: { error in
            let text = "\(error)"
            return text.contains("table 't'") && text.contains("column 'x'") && text.contains("not a SQLite type name")
        }
        let output = folder.appendingPathComponent("model.yaml").path
        let result = try runInstar(["model", "import", "--store", path, "--output", output])  // in-process: nothing here can block
        #expect(result.status != 0)
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let refusal = try #require(#expect(throws: StoreError.self) { try SchemaImporter.importModel(path: path, name: name) })
        #expect(result.stderr == "instar: \(ErrorHints.text(refusal))\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    func modelProblems(_ text: String) -> [ModelProblem] {
        do {
            _ = try ModelFileReader.parse(text, file: "hostile.yaml", defaultName: "H")
            return []
        } catch {
            return error.problems
        }
    }

    @Test func handWrittenColumnTypeAndOnDeleteInjectionsAreRefusedWithFileAndKey() throws {
        let columnType = modelProblems("""
            name: H
            entities:
              T:
                attributes:
                  x:
                    type: string
                    columnType: "TEXT); DROP TABLE T; CREATE TABLE injected (a); --"
            """)
        #expect(columnType.contains { $0.key == "columnType" && $0.location?.file == "hostile.yaml" && $0.property == "x" },
                "\(columnType)")
        let onDelete = modelProblems("""
            name: H
            entities:
              A:
                attributes:
                  name: string?
              B:
                relationships:
                  a:
                    to: A
                    toMany: false
                    optional: true
                    onDelete: "CASCADE); DROP TABLE A; --"
            """)
        #expect(onDelete.contains { $0.key == "onDelete" && $0.location?.file == "hostile.yaml" && $0.property == "a" },
                "\(onDelete)")
        let columnSQL = modelProblems("""
            name: H
            entities:
              T:
                attributes:
                  x:
                    type: int64
                    columnSQL: "CHECK (x > 0)); DROP TABLE T; --"
            """)
        #expect(columnSQL.contains { $0.key == "columnSQL" && $0.location?.file == "hostile.yaml" }, "\(columnSQL)")
    }

    /// A statement that reads as two (raw SQL smuggling a second) is not run at all by `store create`.
    @Test func storeCreateRunsOneStatementPerString() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let entities = try model("""
            entities:
              T:
                attributes:
                  a: string?
            """).entities
        let hostile = try Model(
            name: "H", entities: entities,
            rawSQL: [RawSQL(kind: .view, name: "v", table: "T", sql: "CREATE VIEW v AS SELECT 1; CREATE TABLE injected (a)", reason: "test")])
        let path = folder.appendingPathComponent("s.sqlite").path
        #expect {
            _ = try SQLiteStore.create(at: path, model: hostile, layout: PlainSQLLayout())
        } throws: { "\($0)".contains("more than one statement") }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    // MARK: - Outputs

    @Test func modelImportOutputNeverOverwritesWhatItShouldNot() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("app.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)") }
        try queue.close()
        let storeBytes = FileManager.default.contents(atPath: store)

        // The input itself, by its own path and through another name.
        for target in [store, folder.appendingPathComponent("./app.sqlite").path] {
            let result = try runInstarOrKill(["model", "import", "--store", store, "--output", target, "--force"])
            #expect(result.status == 65, "\(result.stderr)")  // its words: golden cli/output-refusals.txt
        }
        #expect(FileManager.default.contents(atPath: store) == storeBytes)

        // An existing file: refused without --force, replaced with it.
        let existing = folder.appendingPathComponent("model.yaml").path
        try "keep me\n".write(toFile: existing, atomically: true, encoding: .utf8)
        let refused = try runInstarOrKill(["model", "import", "--store", store, "--output", existing])
        #expect(refused.status == 65, "naming --force (golden cli/output-refusals.txt): \(refused.stderr)")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me\n")
        let forced = try runInstarOrKill(["model", "import", "--store", store, "--output", existing, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOfFile: existing, encoding: .utf8).contains("entities:"))

        // A symbolic link, to a file or to nothing: never written through, even with --force.
        let target = folder.appendingPathComponent("target.txt").path
        try "target\n".write(toFile: target, atomically: true, encoding: .utf8)
        let link = folder.appendingPathComponent("link.yaml").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let dangling = folder.appendingPathComponent("dangling.yaml").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: folder.appendingPathComponent("nowhere.yaml").path)
        for path in [link, dangling] {
            let result = try runInstarOrKill(["model", "import", "--store", store, "--output", path, "--force"])
            #expect(result.status == 65, "a symbolic link (golden cli/output-refusals.txt): \(result.stderr)")
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "target\n")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("nowhere.yaml").path))

        // A FIFO and a device.
        let fifo = try makeFIFO(in: folder, "pipe.yaml")
        for path in [fifo, "/dev/null"] {
            let result = try runInstarOrKill(["model", "import", "--store", store, "--output", path, "--force"])
            #expect(result.status == 65, "not a regular file (golden cli/output-refusals.txt): \(result.stderr)")
        }
    }

    @Test func modelExportRefusesADanglingLink() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("app.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
        try queue.close()
        let dangling = folder.appendingPathComponent("out.yaml").path
        let nowhere = folder.appendingPathComponent("nowhere.yaml").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: nowhere)
        let result = try runInstarOrKill(["model", "export", "--store", store, "--output", dangling])
        #expect(result.status == 65, "a symbolic link (golden cli/output-refusals.txt): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: nowhere))
    }
}
