import ArgumentParser
import Foundation
@_spi(Layouts) import Instar
import InstarSwiftData
import InstarSwiftDataCheck

/// `instar migrate --swiftdata <sources> --store <store>`: a SwiftData app's store migrated through its
/// `SchemaMigrationPlan` (or, unversioned, the one step SwiftData infers), with the checks of
/// `instar plan --swiftdata` first: a plan SwiftData would refuse, or a store at no schema of it, is not run.
extension MigrateCommand {
    func validateSwiftData() throws {
        if swiftdata.isEmpty { throw ValidationError("--migration-plan, --hooks, --classes and --from-swiftdata go with --swiftdata") }
        if plan != nil || toModel != nil || !models.isEmpty || merge {
            throw ValidationError("give --swiftdata without a plan file, --model, --to-model or --merge: the sources declare the versions")
        }
        if dryRun { throw ValidationError("use 'instar plan --swiftdata <sources> --store <store>' for a dry run") }
        for (flag, value) in [("--time-budget", timeBudget), ("--wait", wait)] {
            if let value, value.isNaN || value < 0 {
                throw ValidationError("\(flag) takes a number of seconds, 0 or more; not \(value)")
            }
        }
    }

    func runSwiftData() throws {
        let names = classes.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        var checked = try SwiftDataPlan.make(
            sources: swiftdata, planName: migrationPlan, hooksFile: hooks, store: store, classes: names, earlier: fromSwiftdata)
        if !checked.isInferred { try checked.matchStore(store) }
        printOut(checked.summary.joined(separator: "\n"))
        for finding in checked.findings { printError(finding.text) }
        if !checked.findings.isEmpty {
            printError("nothing was changed")
            throw InstarExit.failure
        }
        var resume = "instar migrate --store '\(store)'" + swiftdata.map { " --swiftdata '\($0)'" }.joined()
        if let migrationPlan { resume += " --migration-plan '\(migrationPlan)'" }
        if let hooks { resume += " --hooks '\(hooks)'" }
        if let classes { resume += " --classes '\(classes)'" }
        resume += fromSwiftdata.map { " --from-swiftdata '\($0)'" }.joined()
        if let to { resume += " --to '\(to)'" }
        try runPlan(checked.plan, resume: resume, preview: "instar plan " + resume.dropFirst("instar migrate ".count))
    }
}
