import ArgumentParser
import Foundation
@_spi(Layouts) import Instar
import InstarSwiftDataCheck

/// `instar export`: what an app ships to migrate at launch as the command line does.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the folder an app ships to migrate at launch: plan, model versions, mapping files, hooks.",
        discussion: """
            An unversioned SwiftData app (no SchemaMigrationPlan) exports its current schema alone: at \
            launch the store's own cached model is the source of the one step SwiftData would infer.

            An app cannot read its Xcode model sources, its compiled mapping models (.cdm) or its \
            SwiftData sources at launch the way this tool does. 'export' reads them here and writes a new \
            folder that the app adds to its resources: plan.yaml (the chain's rules: a bundle's versions \
            have no order but the current one, mapping models are walked), one Instar model file per \
            version, one Instar mapping file per mapping model, and, at the top of plan.yaml, the hooks \
            the app must register (custom migration policies, expressions SQL cannot compute, SwiftData \
            custom stages). Everything is read back and compared before the folder appears.

            At launch:
              let plan = try PlanFileReader.read(url: Bundle.main.url(forResource: "plan", withExtension: "yaml", subdirectory: "Migrations")!)
              let migrator = Migrator(plan: try ImpliedPlan(exported: plan, store: storeURL).plan)

            Examples:
              instar export --model App.xcdatamodeld --output Migrations
              instar export --swiftdata MyApp/Models --output Migrations
            """
    )

    @OptionGroup var appModels: AppModelsOption
    var models: [String] { appModels.models }

    @OptionGroup var swiftDataSources: SwiftDataSourceOptions
    var swiftdata: [String] { swiftDataSources.swiftdata }
    var migrationPlan: String? { swiftDataSources.migrationPlan }

    @OptionGroup var swiftDataHooks: SwiftDataHooksOption
    var hooks: String? { swiftDataHooks.hooks }

    @Option(help: ArgumentHelp("The folder to write; it must not exist.", valueName: "folder"))
    var output: String

    func validate() throws {
        if models.isEmpty == swiftdata.isEmpty { throw ValidationError("give either --model or --swiftdata") }
        if swiftdata.isEmpty && (migrationPlan != nil || hooks != nil) { throw ValidationError("--migration-plan and --hooks go with --swiftdata") }
    }

    func run() throws {
        let plan: Plan
        if swiftdata.isEmpty {
            plan = try ImplicitPlan.make(models: models, storePath: nil, target: nil)
        } else {
            let checked = try SwiftDataPlan.make(sources: swiftdata, planName: migrationPlan, hooksFile: hooks, currentOnly: true)
            for finding in checked.findings { printError(finding.text) }
            if !checked.findings.isEmpty { throw InstarExit.invalidInput }
            // An unversioned app: its current schema alone, with no order (see `exportablePlan`).
            plan = checked.exportablePlan
        }
        let summary: PlanExport.Summary
        do {
            summary = try PlanExport.write(plan, to: URL(fileURLWithPath: output))
        } catch {
            printError(error.description)
            throw error.kind == .exists ? InstarExit.failure : InstarExit.invalidInput
        }
        printOut(
            "wrote \(output): \(summary.modelFiles.count) version(s), \(summary.mappingFiles.count) mapping model(s); "
                + "target \(plan.targetVersion ?? "?")")
        let hooks = summary.swiftHooks.map { "  register(hook: \"\($0)\")" }
            + summary.mappingHooks.map { "  register(mappingHook: \"\($0.name)\")   \($0.reason)" }
        printOut(hooks.isEmpty ? "hooks to register: none" : "hooks to register:\n" + hooks.joined(separator: "\n"))
    }
}
