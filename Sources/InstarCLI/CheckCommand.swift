import ArgumentParser
import Foundation
@_spi(Layouts) import Instar
import InstarSwiftData
import InstarSwiftDataCheck
import InstarTesting

/// `instar check <plan> | --model Bundle | --swiftdata Sources --store S… --fixtures DIR`: the one
/// verdict a CI job runs before a release. The engine is the library's ``ReleaseCheck``; this type
/// reads options, renders the report and exits with the verdict's status.
struct CheckCommand: ParsableCommand, UsesSwiftDataOptions {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Decide whether a release's migration can ship: on the plan, and on the stores users have.",
        discussion: """
            Static findings first, as 'instar lint' reports them, and two more:
              undeclaredDataLoss  a step drops an attribute, relationship or entity
                                  while adding another where its values probably
                                  belong: inference migrates it by losing every
                                  value. The finding names the probable
                                  destination and the fix in your framework.
              meaningChange       a version hash modifier changed: confirm the new
                                  meaning.
            Both are declared in an intent file (--intent, else instar-intent.yaml beside the plan, \
            bundle or sources) and then only acknowledged:
              - drop: Track.legacyCode
                reason: never shown since 2.0
              - meaning: Track.duration
                reason: seconds now

            Then each --store (and every SQLite file under --fixtures): its version is found, its chain \
            to the target chosen, and a temporary copy migrated one step at a time with the plan's hooks \
            until a step refuses; every data condition that step's rows break is listed with its counts \
            (NULLs in an attribute made required, rows under a required attribute added without a \
            default, duplicate groups under a new uniqueness constraint, with sample values). The \
            stores themselves are never written.

            Exit status (the worst verdict wins):
              0  pass
              3  will fail: a step refuses on a store's rows, or no chain reaches
                 the target (a lint error)
              4  undeclared change: values lost or a meaning changed that the
                 intent file does not declare
              5  cannot decide: a store's version is unknown or its schema drifted,
                 or a step's Swift hook cannot run here
            and 64/65/66 as every command (bad command line, invalid or unreadable input).

            Examples:
              instar check Plans/music/plan.yaml --fixtures Tests/Stores
              instar check --model App.xcdatamodeld --store shipped.sqlite --format json
              instar check --model App.xcdatamodeld --to 'App 3' --fixtures Stores
              instar check --swiftdata MyApp/Models --store default.store \\
                --intent release-intent.yaml
            """
    )

    @OptionGroup var planArgument: PlanArgument
    var plan: String? { planArgument.plan }

    @OptionGroup var appModels: AppModelsOption
    var models: [String] { appModels.models }

    @OptionGroup var swiftDataOptions: SwiftDataOptions

    @OptionGroup var swiftDataHooks: SwiftDataHooksOption
    var hooks: String? { swiftDataHooks.hooks }

    @Option(help: ArgumentHelp("A store the app shipped (repeatable); a temporary copy is migrated, never the file.", valueName: "path"))
    var store: [String] = []

    @Option(help: ArgumentHelp("A folder of stores (every SQLite file in it and below), or a file (repeatable).", valueName: "path"))
    var fixtures: [String] = []

    @Option(help: "The version the release ships (default: the plan's target, the bundle's current version or the sources' newest schema).")
    var to: String?

    @Option(help: ArgumentHelp("The intent file (default: instar-intent.yaml beside the plan, bundle or sources).", valueName: "file"))
    var intent: String?

    @Option(
        help: ArgumentHelp(
            "Spell the fixes for this framework: coreData, swiftData or instar (default: swiftData with --swiftdata, coreData for a Core Data layout, else instar).",
            valueName: "framework"))
    var framework: FixFramework?

    @Flag(help: "Accept SwiftData type mappings no real store shows, as the app's migrator does when it sets acceptsAssumedMappings (otherwise a step writing one unproven will fail).")
    var acceptAssumedTypes = false

    @OptionGroup var output: FormatOption
    var format: OutputFormat { output.format }

    func validate() throws {
        let given = [plan != nil, !models.isEmpty, !swiftdata.isEmpty].filter { $0 }.count
        if given == 0 { throw ValidationError("give a plan file, --model with the app's model bundle, or --swiftdata with its sources") }
        if given > 1 { throw ValidationError("give one of a plan file, --model and --swiftdata") }
        if !swiftdata.isEmpty && to != nil {
            throw ValidationError("--to goes with a plan file or --model: a SchemaMigrationPlan's target is its newest schema")
        }
        if swiftdata.isEmpty && (migrationPlan != nil || hooks != nil || classes != nil || !fromSwiftdata.isEmpty) {
            throw ValidationError("--migration-plan, --hooks, --classes and --from-swiftdata go with --swiftdata")
        }
    }

    func run() throws {
        let stores = store + (try fixtures.flatMap(TestCommand.storeFiles))
        if !fixtures.isEmpty && stores.count == store.count {
            printError("\(fixtures.joined(separator: ", ")): no SQLite store (a regular file starting with SQLite's header) to check")
            throw InstarExit.unreadable
        }
        let (plan, lint) = try planAndLint(firstStore: stores.first)
        let intentFile = intent ?? ChangeIntent.besides(self.plan ?? models.first ?? swiftdata.first ?? ".")
        var declared = ChangeIntent()
        if let intentFile {
            do throws(ModelError) {
                declared = try ChangeIntent.read(path: intentFile)
            } catch {
                printError(error.description)
                throw error.problems.allSatisfy { $0.kind == .unreadable } ? InstarExit.unreadable : InstarExit.invalidInput
            }
        }
        let framework = self.framework ?? (swiftdata.isEmpty ? FixFramework(plan: plan) : .swiftData)
        let subject = self.plan ?? (swiftdata.isEmpty ? models : swiftdata).joined(separator: " ")
        let migrator = Migrator(plan: plan)
        migrator.acceptsAssumedMappings = acceptAssumedTypes
        let report = ReleaseCheck(migrator: migrator).run(stores: stores, subject: subject, intentFile: intentFile) {
            UndeclaredChanges.releaseFindings(plan, steps: $0, lint: lint, intent: declared, framework: framework)
        }
        switch format {
        case .text: printOut(CheckRendering.text(report))
        case .json: printOut(jsonText(report))
        }
        switch report.verdict {
        case .pass: return
        case .willFail: throw InstarExit.willFail
        case .undeclaredChange: throw InstarExit.undeclaredChange
        case .cannotDecide: throw InstarExit.cannotDecide
        }
    }

    /// The plan to run and lint's findings on it, as `instar lint` makes them (an unreadable or invalid
    /// input exits 66 or 65 with the reader's problems).
    private func planAndLint(firstStore: String?) throws -> (Plan, [LintFinding]) {
        if !swiftdata.isEmpty { return try swiftDataPlanAndLint(firstStore: firstStore) }
        var plan = try self.plan.map(loadPlan) ?? ImplicitPlan.make(models: models, storePath: firstStore, target: to)
        if let to, plan.target != to {
            guard plan.index(of: to) != nil else {
                throw ValidationError(
                    "--to '\(to)' is not one of the plan's versions (\(plan.versions.map(\.name).joined(separator: ", ")))")
            }
            plan.target = to
        }
        return (plan, PlanLint.check(plan))
    }

    /// A SwiftData app's plan (its SchemaMigrationPlan, or one inferred step) and lint's findings on it.
    private func swiftDataPlanAndLint(firstStore: String?) throws -> (Plan, [LintFinding]) {
        var (plan, findings) = try SwiftDataPlan.lintPlan(
            sources: swiftdata, planName: migrationPlan, store: firstStore,
            classes: classes.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } },
            earlier: fromSwiftdata)
        if let hooks { plan.hooks.merge(try SwiftDataPlan.readHooks(hooks)) { $1 } }
        // A store no schema matches is that store's verdict (cannot decide), not the sources' error.
        findings.removeAll { $0.check == .invalidPlan && $0.location.file == firstStore }
        return (plan, findings)
    }
}

extension FixFramework: ExpressibleByArgument {}
