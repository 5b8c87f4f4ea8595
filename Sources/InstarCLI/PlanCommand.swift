import ArgumentParser
import Foundation
import Instar

/// Output formats of `instar plan`.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case markdown
    case json
}

/// `instar plan <plan> [--store <db>] [--to <version>]`: the dry run.
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show what a migration would do, without touching the store.",
        discussion: """
            Reads the plan, detects the store's version (read-only), and shows the chosen chain and the \
            alternatives with their costs; for each step the changes, whether it is lightweight or \
            custom, the SQL that will run, the tables rebuilt, the rows touched, the extra disk space \
            and the hooks; and the risks: values that will be dropped, NULLs that block a change, \
            probable renames without identifiers, versions with identical checksums.

            Without --store the chain starts at the plan's oldest version (or --from).

            Without a plan, --model App.xcdatamodeld plans what 'instar migrate --model' runs: the \
            bundle's versions in order, to its current version (or --to).

            Where no chain exists, the report says why and proposes one per gap (intermediate versions \
            and hooks: a temporary attribute and a conversion hook for a type change or external storage \
            turned off, a pick-one hook for to-many → to-one, a fill hook template for optional → \
            required; the manual recipe in words otherwise). With --scaffold <dir> the proposal is written \
            out: the intermediate model files (YAML) and hooks.yaml, the versions/stages/hooks to paste \
            into the plan. For a mapping step whose hooks the plan does not declare, --scaffold also \
            writes one <hook>.sql template per hook (named as the refusal names it), saying at which \
            point of the step it runs and what it must produce. Existing files are never overwritten.

            Exit status 0 when a chain exists (or --scaffold wrote its files), 1 when none does (the \
            report says why) or the scaffold could not be written, 65/66 when an input cannot be read.

            Example:
              instar plan Plans/music/plan.yaml --store music.sqlite --format markdown
              instar plan --model App.xcdatamodeld --store App.sqlite --format json
            """
    )

    @Argument(help: "The plan file (or give --model instead).")
    var plan: String?

    @Option(
        name: .customLong("model"),
        help: ArgumentHelp(
            "Without a plan: the app's model bundle (.xcdatamodeld, every version), or versions oldest first (repeatable).",
            valueName: "model"))
    var models: [String] = []

    @Option(help: "The store to plan for (opened read-only).")
    var store: String?

    @Option(help: "Without --store: the version to start from (default: the oldest).")
    var from: String?

    @Option(help: "The target version (default: the plan's target).")
    var to: String?

    @Option(help: "Output format: text, markdown or json.")
    var format: ReportFormat = .text

    @Option(help: ArgumentHelp("Write the proposed intermediate models and hooks here (where no chain exists), and templates for a mapping step's missing hooks.", valueName: "dir"))
    var scaffold: String?

    @Option(
        help: ArgumentHelp(
            "With --store: flag each transaction that would not fit in a launch's time budget of this many seconds.",
            valueName: "seconds"))
    var timeBudget: Double?

    func validate() throws {
        if let timeBudget, !(timeBudget > 0) { throw ValidationError("--time-budget takes a number of seconds above 0") }
        if plan == nil && models.isEmpty { throw ValidationError("give a plan file, or --model with the app's model bundle") }
        if plan != nil && !models.isEmpty { throw ValidationError("give either a plan file or --model, not both") }
    }

    func run() throws {
        let plan = try self.plan.map(loadPlan) ?? ImplicitPlan.make(models: models, storePath: store, target: to)
        var report: DryRunReport
        do {
            report = try DryRun.report(plan: plan, storePath: store, from: from, to: to)
            if let timeBudget, store != nil { report.risks += report.unitsExceeding(timeBudget: timeBudget) }
        } catch let error as StoreError {
            throw fail(error)
        } catch let error as StepCompileError {
            printError(error.message)
            throw InstarExit.failure
        }
        if let scaffold {
            try ScaffoldWriter.write(report: report, plan: plan, directory: scaffold, format: format)
            return
        }
        switch format {
        case .json: printOut(jsonText(ReportRendering.json(report)))
        case .text: printOut(ReportRendering.text(report))
        case .markdown: printOut(ReportRendering.markdown(report))
        }
        if report.noChain != nil { throw InstarExit.failure }
    }
}
