import ArgumentParser
import Foundation
@_spi(Layouts) import Instar
import InstarSwiftDataCheck
import InstarTesting

/// `instar test <plan> | --model Bundle [--rows N] [--from V…] [--fixtures DIR]`: every version of the
/// history migrated to the target through the real chain, and checked. The engine is the library's
/// ``MigrationTester``; this type only reads options and renders the report.
struct TestCommand: ParsableCommand, UsesSwiftDataOptions {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Migrate a store of every version to the target and check the result.",
        discussion: """
            For every version of the history before the target (every other version of a bundle, which \
            has no order; or each --from; versions left out are listed as skipped), creates a store, seeds \
            it with --rows synthetic rows per entity (edge values first, as 'instar store seed' does), \
            copies it, migrates it to the target through the real chain with its hooks (as 'instar \
            migrate' would), and checks:

              migration  the chain ran to the end
              schema     the result equals a store created fresh at the target
              rows       every row of every entity the chain keeps is still there (by primary key)
              values     kept and renamed attributes and to-ones read the same; a conversion that
                         changes what the app reads (a truncated fraction, a value that does not fit
                         Integer 16, a number made a Boolean) is a difference
              drops      data is dropped only where the steps' diffs say; a drop the diff itself calls
                         a probable rename (no renaming identifier) fails, unless --accept-drop names it
              integrity  PRAGMA integrity_check and foreign_key_check
              journal    the journal records the run as finished

            Values a hook or a mapping expression computes are not compared: the report names them. \
            When rows or values differ, the chain is replayed one step at a time to name the step that \
            lost or changed them; a row a hook deletes is a failure (purpose cannot be told from a \
            forgotten WHERE). Each run's migration time and extra disk (the store's files at their \
            largest during the run, -wal and -journal included, minus their size before) are \
            reported, so slow starting versions show before a user's large store meets them.

            --fixtures takes real stores instead (a folder of SQLite files, or files; each is copied \
            first, never written): their version is found among the plan's, as migrate finds it. \
            Without a plan, --model App.xcdatamodeld tests what 'instar migrate --model' runs, and \
            --swiftdata <sources> the app's SchemaMigrationPlan (checked as 'instar plan --swiftdata' \
            checks it; custom stages' hooks as SQL from --hooks, else reported missing). \
            Command hooks run only with --allow-commands; Swift hooks cannot run here (register them on \
            a Migrator and call MigrationTester from the app's tests).

            Exit status 0 when every check passed, 1 when any failed (the report names the version, \
            the step and the first differing row), 65 for an unknown --from version or an invalid plan \
            or model, 66 when a file cannot be read.

            Example:
              instar test Plans/music/plan.yaml --rows 200
              instar test Plans/garage/plan.yaml --from 'Garage 1' --format markdown
              instar test --model App.xcdatamodeld --fixtures Tests/Stores --format json
              instar test --swiftdata MyApp/Models --hooks hooks.yaml --fixtures Tests/Stores
            """
    )

    @OptionGroup var planArgument: PlanArgument
    var plan: String? { planArgument.plan }

    @OptionGroup var appModels: AppModelsOption
    var models: [String] { appModels.models }

    @OptionGroup var swiftDataOptions: SwiftDataOptions

    @Option(help: ArgumentHelp("With --swiftdata or --model: SQL for the custom stages' hooks or the mapping models' policies (YAML: hook name → SQL, names as 'instar plan' gives them); hooks not given are reported missing.", valueName: "file"))
    var hooks: String?

    @Option(help: "Rows per concrete entity of each seeded store.")
    var rows: Int = 100

    @Option(help: "Seed of the synthetic rows.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("A version to start from (repeatable; default: every version before the target, every other version of a bundle).", valueName: "version"))
    var from: [String] = []

    @Option(help: ArgumentHelp("Real stores to test instead of seeded ones: a folder of SQLite files, or a file (repeatable).", valueName: "path"))
    var fixtures: [String] = []

    @Option(help: ArgumentHelp("Keep the stores of failing runs here (before.sqlite, after.sqlite).", valueName: "dir"))
    var keep: String?

    @Option(
        name: .customLong("accept-drop"),
        help: ArgumentHelp("A drop the diff calls a probable rename that is meant: Entity.attribute or Entity (repeatable).", valueName: "name"))
    var acceptedDrops: [String] = []

    @OptionGroup var output: ReportFormatOption
    var format: ReportFormat { output.format }

    @Flag(help: "Let command hooks run (they execute outside the transaction).")
    var allowCommands = false

    func validate() throws {
        let given = [plan != nil, !models.isEmpty, !swiftdata.isEmpty].filter { $0 }.count
        if given == 0 { throw ValidationError("give a plan file, --model with the app's model bundle, or --swiftdata with its sources") }
        if given > 1 { throw ValidationError("give one of a plan file, --model and --swiftdata") }
        if rows < 0 { throw ValidationError("--rows must be 0 or more") }
        if !fixtures.isEmpty && !from.isEmpty { throw ValidationError("give either --fixtures or --from: a fixture's version is its own") }
        if hooks != nil && plan != nil { throw ValidationError("--hooks goes with --swiftdata or --model: a plan file declares its hooks") }
    }

    func run() throws {
        let stores = try fixtures.flatMap(Self.storeFiles)
        if !fixtures.isEmpty && stores.isEmpty {
            // Without this, an empty --fixtures would silently test seeded stores instead.
            printError("\(fixtures.joined(separator: ", ")): no SQLite store (a regular file starting with SQLite's header) to test")
            throw InstarExit.unreadable
        }
        let plan: Plan
        if !swiftdata.isEmpty {
            // The SwiftData checks first (as `plan --swiftdata`): a plan SwiftData would refuse is not run.
            // Unversioned sources: the earlier sources' schema, else the first fixture's own model, is the
            // inferred step's source.
            let checked = try SwiftDataPlan.make(
                sources: swiftdata, planName: migrationPlan, hooksFile: hooks, store: stores.first,
                classes: classes.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } },
                earlier: fromSwiftdata)
            for finding in checked.findings { printError(finding.text) }
            if !checked.findings.isEmpty { throw InstarExit.failure }
            let missing = checked.plan.hooks.filter { if case .swift = $0.value { return true } else { return false } }.keys.sorted()
            if !missing.isEmpty {
                printError("note: hooks not given as SQL (their stages' runs report them missing): \(missing.joined(separator: ", "))\n  hint: give them in a --hooks file, or test them in the app with MigrationTester")
            }
            plan = checked.plan
        } else {
            var implied = try self.plan.map(loadPlan) ?? ImplicitPlan.make(models: models, storePath: stores.first, target: nil)
            // A bundle's mapping models: each custom policy or uncomputable expression as SQL, by the
            // name `instar export` and `instar plan` give it.
            if let hooks { implied.hooks.merge(try SwiftDataPlan.readHooks(hooks)) { $1 } }
            plan = implied
        }
        let migrator = Migrator(plan: plan, allowCommands: allowCommands)
        // The test migrates its own copies: it goes on with assumed SwiftData mappings (the reader warned
        // of each) to judge the rest; `migrate` and `check` keep refusing them unproven.
        migrator.acceptsAssumedMappings = true
        let options = MigrationTestOptions(
            rows: rows, seed: seed, versions: from.isEmpty ? nil : from, fixtures: stores, keep: keep,
            acceptedDrops: Set(acceptedDrops))
        let report: MigrationTestReport
        do {
            report = try MigrationTester(migrator: migrator).run(options)
        } catch let error as MigrationTestError {
            printError(error.description)
            throw InstarExit.invalidInput
        }
        switch format {
        case .text: printOut(TestRendering.text(report))
        case .markdown: printOut(TestRendering.markdown(report))
        case .json: printOut(jsonText(report))
        }
        if !report.passed { throw InstarExit.failure }
    }

    /// The SQLite files a --fixtures argument names: the file itself, or every file in the folder (and
    /// below) that starts with SQLite's header, in name order; `-wal`, `-shm` and `-journal` files
    /// belong to their store.
    static func storeFiles(_ path: String) throws -> [String] {
        switch FileKind.of(path) {
        case .missing:
            printError("\(path): no such file or folder")
            throw InstarExit.unreadable
        case .regular:
            return [path]
        case .directory:
            break
        default:
            throw fail(StoreError(.notARegularFile, path: path, reason: StoreFile.notARegularFile(path, role: .fixture)))
        }
        guard let enumerator = FileManager.default.enumerator(atPath: path) else {
            printError("\(path): cannot read the folder")
            throw InstarExit.unreadable
        }
        let sidecars = ["-wal", "-shm", "-journal"]
        var found: [String] = []
        for case let relative as String in enumerator where !sidecars.contains(where: relative.hasSuffix) {
            let full = (path as NSString).appendingPathComponent(relative)
            // Only regular files are read: a FIFO would block the read, a link to a device never end it.
            guard FileKind.of(full) == .regular, let handle = FileHandle(forReadingAtPath: full) else { continue }
            let header = (try? handle.read(upToCount: 16)) ?? Data()
            try? handle.close()
            if header == Data("SQLite format 3\0".utf8) { found.append(full) }
        }
        return found.sorted()
    }
}
