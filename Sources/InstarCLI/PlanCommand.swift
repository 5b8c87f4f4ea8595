import ArgumentParser
import Foundation
@_spi(Layouts) import Instar
import InstarSwiftDataCheck
import InstarCompiler

/// Output formats of `instar plan`.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case markdown
    case json
}

/// `instar plan <plan> [--store <db>] [--to <version>]`: the dry run.
struct PlanCommand: ParsableCommand, UsesSwiftDataOptions {
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

            With --swiftdata <sources> the plan is the app's SchemaMigrationPlan, read from its Swift \
            sources (layout coredata), and checked first as SwiftData checks it at launch: distinct \
            version checksums, every .lightweight stage inferable (else the entity, attribute and why), \
            every schema reachable from every earlier one by the stages, and --store matched to a schema \
            by its entity hashes (else the closest schema and what was edited in it: SwiftData's error \
            134504). Custom stages become hooks named after their closures (willMigrate before the step, \
            didMigrate after); --hooks hooks.yaml gives them as SQL (name: SQL or a list of statements). \
            Sources without a plan (an unversioned app) with --store: one step from the store's own model \
            (Z_MODELCACHE), or from the sources it shipped with (--from-swiftdata), to the sources' schema \
            (--classes names its @Model classes), checked as \
            SwiftData's automatic migration would infer it; a change it cannot infer is named at the \
            property's file:line:column; --scaffold <dir> then writes MigrationPlan.swift, VersionedSchemas \
            and a custom stage to start from.

            Example:
              instar plan Plans/music/plan.yaml --store music.sqlite --format markdown
              instar plan --swiftdata MyApp/Models --store default.store
              instar plan --model App.xcdatamodeld --store App.sqlite --format json
            """
    )

    @OptionGroup var planArgument: PlanArgument
    var plan: String? { planArgument.plan }

    @OptionGroup var appModels: AppModelsOption
    var models: [String] { appModels.models }

    @OptionGroup var swiftDataOptions: SwiftDataOptions

    @OptionGroup var swiftDataHooks: SwiftDataHooksOption
    var hooks: String? { swiftDataHooks.hooks }

    @OptionGroup var storeOption: ReadOnlyStoreOption
    var store: String? { storeOption.store }

    @Option(help: "Without --store: the version to start from (default: the oldest).")
    var from: String?

    @Option(help: "The target version (default: the plan's target).")
    var to: String?

    @OptionGroup var output: ReportFormatOption
    var format: ReportFormat { output.format }

    @Option(help: ArgumentHelp("Write the proposed intermediate models and hooks here (where no chain exists), and templates for a mapping step's missing hooks.", valueName: "dir"))
    var scaffold: String?

    @Option(
        help: ArgumentHelp(
            "With --store: flag each transaction that would not fit in a launch's time budget of this many seconds.",
            valueName: "seconds"))
    var timeBudget: Double?

    func validate() throws {
        if let timeBudget, !(timeBudget > 0) { throw ValidationError("--time-budget takes a number of seconds above 0") }
        let given = [plan != nil, !models.isEmpty, !swiftdata.isEmpty].filter { $0 }.count
        if given == 0 { throw ValidationError("give a plan file, --model with the app's model bundle, or --swiftdata with its sources") }
        if given > 1 { throw ValidationError("give one of a plan file, --model and --swiftdata") }
        if swiftdata.isEmpty && (migrationPlan != nil || hooks != nil || classes != nil || !fromSwiftdata.isEmpty) {
            throw ValidationError("--migration-plan, --hooks, --classes and --from-swiftdata go with --swiftdata")
        }
    }

    func run() throws {
        if !swiftdata.isEmpty {
            let plans = try SwiftDataPlan.makeEach(
                sources: swiftdata, planName: migrationPlan, hooksFile: hooks, store: store,
                classes: classes.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } },
                earlier: fromSwiftdata)
            // Several plans (several containers): each is reported; the exit says whether any failed.
            if plans.count > 1, format == .json {
                printError("several SchemaMigrationPlans (\(plans.map(\.migrationPlan.name).joined(separator: ", "))): --format json reports one\n  hint: choose it with --migration-plan <name>")
                throw InstarExit.invalidInput
            }
            var failure: (any Error)?
            for (index, checked) in plans.enumerated() {
                if index > 0, format == .text { printOut("") }
                do {
                    try planSwiftData(checked)
                } catch {
                    failure = failure ?? error
                }
            }
            if let failure { throw failure }
            return
        }
        try report(try self.plan.map(loadPlan) ?? ImplicitPlan.make(models: models, storePath: store, target: to))
    }

    /// One SwiftData plan: its launch checks, then its dry run.
    private func planSwiftData(_ one: SwiftDataPlan) throws {
        var checked = one
        if let store, !checked.isInferred, !checked.isRefused { try checked.matchStore(store) }
        if !checked.findings.isEmpty {
            if format == .json {
                printOut(
                    jsonText(
                        SwiftDataPlanRefusal(plan: checked.migrationPlan.name, problems: checked.findings)))
            } else {
                printOut(checked.summary.joined(separator: "\n"))
            }
            for finding in checked.findings { printError(finding.text) }
            // An unversioned app's refused step: VersionedSchemas and a custom stage to start from.
            if let scaffold, checked.isInferred {
                try checked.writeVersionedScaffold(into: scaffold)
                return
            }
            throw InstarExit.failure
        }
        if format == .text { printOut(checked.summary.joined(separator: "\n") + "\n") }
        try report(checked.plan)
    }

    private func report(_ plan: Plan) throws {
        var report: DryRunReport
        do {
            report = try DryRun.report(plan: plan, storePath: store, from: from, to: to)
            if let timeBudget, store != nil { report.risks += report.unitsExceeding(timeBudget: timeBudget) }
        } catch {
            throw fail(error)
        }
        if let scaffold {
            try ScaffoldWriter.write(report: report, plan: plan, directory: scaffold, format: format)
            return
        }
        switch format {
        case .json: printOut(jsonText(report))
        case .text: printOut(ReportRendering.text(report) + launchesLine(report))
        case .markdown: printOut(ReportRendering.markdown(report) + launchesLine(report))
        }
        if report.noChain != nil { throw InstarExit.failure }
    }

    /// With --time-budget and a store: how many launches of that budget the chain needs, its table
    /// rewrites copied ahead in slices where they can be (`migrate --slices auto`).
    private func launchesLine(_ report: DryRunReport) -> String {
        guard let timeBudget, store != nil, report.noChain == nil, !report.steps.isEmpty else { return "" }
        // Which rate the estimate stands on matters to the reader: a measured one is this device's.
        let rate =
            report.measuredRowsPerSecond != nil
            ? "at \(Int(report.estimateRowsPerSecond)) rows/s measured on this store"
            : "at the typical \(Int(report.estimateRowsPerSecond)) rows/s"
        let budget = String(format: "%g", timeBudget)
        guard timeBudget > DryRunReport.typicalLaunchSeconds else {
            return "\nlaunches: none makes progress: a launch's fixed work takes about "
                + "\(String(format: "%g", DryRunReport.typicalLaunchSeconds)) s, the whole \(budget) s budget (see the risks above)"
        }
        guard let launches = report.launches(timeBudget: timeBudget) else {
            return "\nlaunches: a transaction is estimated not to fit a \(budget) s budget even with slicing, \(rate) (see the risks above)"
        }
        let sliced = report.steps.map(\.slicedRows).reduce(0, +)
        return "\nlaunches: about \(launches) of \(budget) s \(rate)"
            + (sliced > 0 ? ", \(sliced) row(s) copied ahead in slices (migrate --time-budget \(budget))" : "")
    }
}
