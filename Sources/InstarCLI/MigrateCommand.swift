import ArgumentParser
import Foundation
@_spi(Layouts) import Instar
import InstarCompiler

/// `instar migrate [<plan>] --store <db> [--to <version>]`, or `--to-model <model>` for one inferred step.
struct MigrateCommand: ParsableCommand, UsesSwiftDataOptions {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store in place, along a plan's chain or in one inferred step.",
        discussion: """
            With a plan: detects the store's version among the plan's versions, finds the cheapest \
            chain to the target (--to, else the plan's target) and runs it with the plan's hooks. \
            Steps with nothing but inline SQL hooks between them run as one transaction, fused so \
            that each table is rewritten at most once; a rebuild or a new index moves past a hook \
            whose SQL provably cannot see it ('instar plan' shows what moved; --no-fuse turns all \
            of this off). Without a plan: --to-model gives the target version and the step is \
            inferred directly (a plain Core Data lightweight migration).

            Without a plan, --model App.xcdatamodeld does what a Core Data app does at launch: the \
            store's version is found among the bundle's versions and the cheapest chain of inferred \
            steps runs to the bundle's current version (or --to), with the journal, resume, lease and \
            progress of a plan. 'instar plan --model App.xcdatamodeld --store S' shows that chain.

            Each step commits schema, data and metadata together after verification (schema, foreign \
            keys, row counts), or nothing changes. Hooks and batches commit with a journal kept inside \
            the store: a migration that is killed, fails or stops (--time-budget, Ctrl-C) continues \
            exactly where it stopped when migrate runs again ('instar status' shows where). One \
            migrator at a time: a second one is told who holds the store, or waits (--wait).

            Exit codes: 0 done; 1 failed (the store is at the last committed point); 2 another \
            migration holds the store; 75 stopped by --time-budget; 130/143 stopped by SIGINT/SIGTERM \
            after committing the current batch.

            Refuses, with the reasons, when the step cannot be inferred, the store's schema has drifted \
            from its version, or the data does not satisfy a change (NULLs in an attribute that \
            becomes required without a default).

            With --swiftdata <sources>: the app's SchemaMigrationPlan, checked first as 'instar plan \
            --swiftdata' checks it, runs from the store's schema to the last; custom stages' closures \
            are hooks named as 'plan --swiftdata' names them (SQL from --hooks). Sources without a plan \
            (an unversioned app) migrate in the one step SwiftData infers, from the store's own model \
            (Z_MODELCACHE) or the sources it shipped with (--from-swiftdata) to the sources' schema \
            (--classes names its @Model classes). The metadata is written as SwiftData writes it, and \
            the store's own model (Z_MODELCACHE) with it, as for every Core Data store from framework 600 on.

            Example:
              instar migrate Plans/garage/plan.yaml --store /tmp/garage.sqlite
              instar migrate --store /tmp/garage.sqlite --to-model Plans/garage/models/v3.yaml
              instar migrate --store App.sqlite --model App.xcdatamodeld --to 'App 7'
              instar migrate --swiftdata MyApp/Models --store default.store --hooks hooks.yaml
            """
    )

    @OptionGroup var planArgument: PlanArgument
    var plan: String? { planArgument.plan }

    @Option(help: "The target version: one of the plan's, or of the --model bundle (default: the plan's target, the bundle's current version).")
    var to: String?

    @Flag(help: "Let the plan's command hooks run (they run outside the transaction).")
    var allowCommands = false

    @Option(help: "With a plan: stop at the next safe point after this many seconds (exit 75); run again to continue.")
    var timeBudget: Double?

    @Option(help: "With a plan: wait up to this many seconds for another migration of the store to finish.")
    var wait: Double?

    @Option(help: "With a plan: take an online backup of the store to this path before the first step.")
    var backup: String?

    @Flag(help: "With a plan: commit every step on its own: no fusing of steps, no work moved across hooks.")
    var noFuse = false

    @Option(
        help: ArgumentHelp(
            "Copy the rows of rebuilt tables ahead of a step's transaction in slices that each commit, so that a step longer than --time-budget moves forward run by run: auto (with --time-budget, for steps of 10,000 rows or more), off, SECONDSs per slice (0.25s) or ROWSrows per slice (5000rows).",
            valueName: "mode"))
    var slices: String?

    @Option(help: "Progress output: bar (terminals), lines, json (one event per line), none.")
    var progress: ProgressStyle?

    @Option(help: "SQLite secure_delete while migrating: on, off or fast (default: the plan's option, else SQLite's setting).")
    var secureDelete: String?

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.store }

    @Option(name: .customLong("to-model"), help: "Without a plan: the target model version; --model then gives candidates for the store's version.")
    var toModel: String?

    @OptionGroup var appModels: AppModelsOption
    var models: [String] { appModels.models }

    @Flag(
        help: """
            Without a plan: the --model arguments are parts of one model merged from them (an app's model and \
            its frameworks', NSManagedObjectModel(byMerging:)); each part moves from the version the store \
            has to its bundle's current version (or --to).
            """)
    var merge = false

    @Flag(help: "Show the SQL without running it.")
    var dryRun = false

    @Flag(
        help: """
            Write schemas that rest on SwiftData type mappings no real store shows (CGFloat → Double, UInt64 → \
            Integer 64, Set → Transformable; 'instar model swiftdata' warns of each) even where the store does not \
            prove them. Only after SwiftData was seen to open a store migrated with them.
            """)
    var acceptAssumedTypes = false

    @OptionGroup var swiftDataOptions: SwiftDataOptions

    @OptionGroup var swiftDataHooks: SwiftDataHooksOption
    var hooks: String? { swiftDataHooks.hooks }

    func validate() throws {
        _ = try slicingMode()  // a bad --slices is a usage error, shown with migrate's usage
        if !swiftdata.isEmpty || migrationPlan != nil || hooks != nil || classes != nil || !fromSwiftdata.isEmpty {
            try validateSwiftData()
            return
        }
        if plan == nil && toModel == nil && models.isEmpty {
            throw ValidationError(
                "give a plan file, --model with the app's model bundle (every version; the store's is found), or --to-model with the target version")
        }
        if plan != nil && !models.isEmpty {
            throw ValidationError("give either a plan file or --model, not both: the plan lists its versions")
        }
        if merge && (plan != nil || toModel != nil || models.count < 2) {
            throw ValidationError("--merge takes two or more --model arguments and no plan or --to-model")
        }
        if toModel != nil && to != nil {
            throw ValidationError("give either --to (a version of the plan or bundle) or --to-model, not both")
        }
        if plan != nil && toModel != nil {
            throw ValidationError("give either a plan file or --to-model, not both")
        }
        // Parsed as a Double, 'nan' is accepted, and '--time-budget nan' paused before the first write
        // on every run (exit 75, "the budget is spent"): a run that can never progress. A negative
        // number is a typo too. 'inf' means no limit, and stays allowed.
        for (flag, value) in [("--time-budget", timeBudget), ("--wait", wait)] {
            if let value, value.isNaN || value < 0 {
                throw ValidationError("\(flag) takes a number of seconds, 0 or more; not \(value)")
            }
        }
    }

    func run() throws {
        if !swiftdata.isEmpty {
            try runSwiftData()
            return
        }
        if let plan {
            try runPlan(
                try loadPlan(plan), resume: "instar migrate \(plan) --store \(store)\(to.map { " --to '\($0)'" } ?? "")",
                preview: "instar plan \(plan)")
            return
        }
        if toModel == nil {
            // A bundle (or versions) without a plan: the progressive migration a Core Data app runs at launch.
            let implicit =
                merge
                ? try ImplicitPlan.makeMerged(models: models, storePath: store, target: to)
                : try ImplicitPlan.make(
                    models: models, storePath: store, target: to, reading: .neededByStore)
            if dryRun {
                try printDryRun(implicit)
                return
            }
            let resume = ImplicitPlan.resumeCommand(models: models, store: store, target: to, merge: merge)
            try runPlan(implicit, resume: resume, preview: resume + " --dry-run")
            return
        }
        // One engine: the step to --to-model runs through the Migrator like any plan (journal, lease,
        // progress, resume), the store's version found among the --model candidates.
        let implied = try ImplicitPlan.makeToModel(toModel!, candidates: models, storePath: store)
        if dryRun {
            try printDryRun(implied)
            return
        }
        let resume = "instar migrate --store '\(store)' " + models.map { "--model '\($0)' " }.joined() + "--to-model '\(toModel!)'"
        try runPlan(implied, resume: resume, preview: resume + " --dry-run")
    }

    /// The implicit plan's chain as `instar plan` shows it.
    func printDryRun(_ plan: Plan) throws {
        let report: DryRunReport
        do {
            report = try DryRun.report(plan: plan, storePath: store, from: nil, to: to)
        } catch {
            throw fail(error)
        }
        printOut(ReportRendering.text(report))
        if report.noChain != nil { throw InstarExit.failure }
    }

    /// `--secure-delete` as the library's setting; a spelling it does not know fails with status 1,
    /// as SQLite's refusal of it did.
    func secureDeleteMode() throws -> SecureDelete? {
        guard let secureDelete else { return nil }
        guard let mode = SecureDelete(parsing: secureDelete) else {
            throw fail(StoreError(.sqlite, path: store, reason: .unknownSecureDeleteMode(secureDelete)))
        }
        return mode
    }

    /// `--slices` as the library's setting.
    func slicingMode() throws -> Slicing {
        guard let slices else { return .default }
        if slices == "auto" { return .default }
        if slices == "off" { return .off }
        if slices.hasSuffix("rows"), let rows = Int(slices.dropLast(4)), rows > 0 { return .rows(rows) }
        if slices.hasSuffix("s"), let seconds = Double(slices.dropLast()), seconds > 0, seconds.isFinite { return .seconds(seconds) }
        throw ValidationError("--slices takes auto, off, SECONDSs (0.25s) or ROWSrows (5000rows), not '\(slices)'")
    }

    /// Where the store's journal says a run stands (its position, hook checkpoint and rows copied), or
    /// nil without a journal: equal before and after a launch when the launch committed nothing.
    func committedMark() -> [String]? {
        guard let journal = (try? Migrator.status(ofStoreAt: store))?.journal else { return nil }
        return [journal.position, journal.checkpoint ?? "", String(journal.rowsCopied ?? -1), journal.status.rawValue]
    }

    /// Runs a plan through the Migrator. `resume` is the command line that runs it again, `preview`
    /// the one that shows its chain.
    func runPlan(_ plan: Plan, resume: String, preview: String) throws {
        let migrator = Migrator(plan: plan)
        migrator.allowCommands = allowCommands
        migrator.secureDelete = try secureDeleteMode()
        migrator.fuse = !noFuse
        migrator.slicing = try slicingMode()
        migrator.acceptsAssumedMappings = acceptAssumedTypes
        if dryRun {
            printError("use 'instar plan \(plan.file) --store \(store)' for a dry run of a plan")
            throw ExitCode.validationFailure
        }
        let stop = StopRequest()
        // A process's SIGINT and SIGTERM pause the run. A command run inside another program (a test,
        // `InstarCommand.runInProcess`) leaves that program's signals alone: its console captures.
        let signalSources = Console.current.isCapturing ? [] : stop.handleSignals()
        defer { signalSources.forEach { $0.cancel() } }
        let reporter = ProgressReporter(style: progress ?? (Console.current.isTerminal ? .bar : .lines))
        let reclaimed = LastReclaim()
        let before = committedMark()
        do {
            let result = try migrator.migrate(
                storeAt: store, to: to, timeBudget: timeBudget, wait: wait ?? 0, backup: backup, stop: stop,
                progress: { event in
                    if case .reclaiming(let rows, let pages) = event { reclaimed.left = (rows, pages ?? 0) }
                    reporter.report(event)
                })
            reporter.finish()
            switch result {
            case .finished(let steps):
                if steps == 0 {
                    printOut(reclaimed.left == nil ? "the store is already at the target; nothing to do" : "the store is already at the target")
                } else if let journal = try? Migrator.status(ofStoreAt: store).journal, journal.status == .finished {
                    let versions = [journal.chain.first?.from ?? "?"] + journal.chain.map(\.to)
                    let seconds = journal.timings.values.reduce(0, +)
                    printOut("migrated \(store): \(versions.joined(separator: " → ")) in \(String(format: "%.2f", seconds)) s")
                } else {
                    // Layouts that keep no journal after a run (Core Data, plain SQL) leave nothing to read.
                    printOut("migrated \(store) to \(to ?? plan.targetVersion ?? "the target") in \(steps) step(s)")
                }
                if steps > 0 { noteModelCache(plan) }
                if let left = reclaimed.left {
                    printOut(
                        left.rows > 0 || left.pages > 0
                            ? "the old tables a sliced run retired are still being deleted (at most \(left.rows) rows, then "
                                + "\(left.pages) free pages): the store is usable, and the next runs go on with it"
                            : "the old tables a sliced run retired are deleted and their space given back")
                }
            case .paused(.timeBudget) where committedMark() == before:
                // Nothing committed in this launch: saying "resume" alone invites a loop that never ends.
                let budget = String(format: "%g", timeBudget ?? 0)
                printOut(
                    "stopped at a safe point: the time budget (\(budget) s) was spent before this launch committed "
                        + "any work; the store is as it was.")
                printOut(
                    "a launch with this budget makes progress only if its next unit of work fits in it (or, with "
                        + "--wait, once another run lets go of the store): 'instar plan \(plan.file) --store \(store) "
                        + "--time-budget \(budget)' names the units that do not fit")
                printOut("resume with a larger --time-budget, or with: \(resume)")
                throw InstarExit.paused
            case .paused(let reason):
                printOut("stopped at a safe point: \(reason). Everything done so far is committed.")
                printOut("resume with: \(resume)")
                switch reason {
                case .timeBudget, .cancelled: throw InstarExit.paused
                case .interrupt: throw ExitCode(130)
                case .terminate: throw ExitCode(143)
                }
            }
        } catch let error as StoreError {
            reporter.finish()
            throw fail(error)
        } catch let error as NoChain {
            reporter.finish()
            // The chain is sought before anything is written (see Migrator.migrate).
            printError(
                error.description + "\n  nothing was changed"
                    + "\n  hint: run '\(preview)' to see a proposed decomposition")
            throw InstarExit.failure
        } catch let error as HookError {
            reporter.finish()
            printError(ErrorHints.text(error, resume: resume))
            throw InstarExit.failure
        } catch let error as LeaseError {
            reporter.finish()
            printError(ErrorHints.text(error))
            throw InstarExit.locked
        } catch let error as ResumeRefused {
            reporter.finish()
            printError(ErrorHints.text(error, resume: resume))
            throw InstarExit.failure
        } catch let error as AssumedMappingError {
            reporter.finish()
            printError(error.description)
            throw InstarExit.failure
        }
    }
}

/// The last ``ProgressEvent/reclaiming(rowsLeft:freePagesLeft:)`` of a run: what the tidy-up left.
private final class LastReclaim {
    var left: (rows: Int, pages: Int)?
}
