import ArgumentParser
import Foundation
import Instar

/// `instar migrate --store <db> --to-model <model>`: one inferred step, in place.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store in place to a model version.",
        discussion: """
            Detects the store's version (its metadata, or the given --model candidates), infers the \
            step to the target version and runs it in one transaction: schema, data and metadata \
            commit together after verification (schema, foreign keys, row counts), or nothing changes.

            Refuses, with the reasons, when the step cannot be inferred, the store's schema has drifted \
            from its version, or the data does not satisfy a change (NULLs in an attribute that \
            becomes required without a default).

            Example:
              instar migrate --store /tmp/garage.sqlite --to-model Plans/garage/models/v3.yaml
            """
    )

    @Option(help: "Path of the store.")
    var store: String

    @Option(name: .customLong("to-model"), help: "The target model version.")
    var toModel: String

    @Option(name: .customLong("model"), help: "A candidate for the store's current version (repeatable).")
    var models: [String] = []

    @Flag(help: "Show the SQL without running it.")
    var dryRun = false

    func run() throws {
        let target = try loadModel(toModel)
        let candidates = try models.map(loadModel) + [target]
        let opened = try openStore(store, readOnly: dryRun)
        do {
            let detection = try opened.detectVersion(among: candidates)
            guard let current = detection.version else {
                var message = "cannot tell which version the store is at"
                if let closest = detection.closest {
                    message += "; closest is \(closest), with differences:\n  " + detection.drift.map(\.description).joined(separator: "\n  ")
                }
                printError(message + "\n  hint: pass the store's version with --model <model>")
                throw InstarExit.failure
            }
            if VersionHashes(model: current) == VersionHashes(model: target) && detection.drift.isEmpty {
                printOut("the store is already at \(target.name); nothing to do")
                return
            }
            if dryRun {
                let (_, plan) = try opened.planStep(from: current, to: target)
                printOut("step \(current.name) → \(target.name) (dry run; nothing written):")
                for statement in plan.statements { printOut("  \(statement)") }
                return
            }
            let outcome = try opened.migrate(from: current, to: target)
            let rebuilt = outcome.plan.rebuiltTables
            printOut(
                "migrated \(store): \(current.name) → \(target.name) in \(String(format: "%.2f", outcome.seconds)) s"
                    + (rebuilt.isEmpty ? " (no table rebuilt)" : " (rebuilt: \(rebuilt.joined(separator: ", ")))"))
        } catch let error as StoreError {
            throw fail(error)
        }
    }
}
