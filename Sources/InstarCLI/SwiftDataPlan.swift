import Foundation
@_spi(Layouts) import Instar
import InstarModelIO
import InstarSwiftData
import InstarSwiftDataCheck

/// The command line's name for the library's ``SwiftDataPlanCheck``: the rules live there (an app calls
/// them too); here they are only rendered, as text on standard error and `plan --format json`.
typealias SwiftDataPlan = SwiftDataPlanCheck

extension SwiftDataPlanCheck {
    /// ``make(sources:planName:store:classes:earlier:currentOnly:hooks:report:)`` with its notes printed as
    /// they arise (the reader's errors with the flags that help) and its failure printed, as an exit code.
    static func make(
        sources: [String], planName: String?, hooksFile: String?, store: String? = nil, classes: [String]? = nil,
        earlier: [String] = [], currentOnly: Bool = false
    ) throws -> SwiftDataPlan {
        try rendered {
            try make(
                sources: sources, planName: planName, store: store, classes: classes, earlier: earlier, currentOnly: currentOnly,
                hooks: { try hooksFile.map(readHooks) ?? [:] }, report: printMessage)
        }
    }

    /// ``make(sources:planName:hooksFile:store:classes:earlier:currentOnly:)`` for every plan the sources
    /// declare when they declare several (an app with several containers) and neither `planName` nor a
    /// store chose one: each is planned, in source order. The reader's warnings are printed once.
    static func makeEach(
        sources: [String], planName: String?, hooksFile: String?, store: String?, classes: [String]?, earlier: [String]
    ) throws -> [SwiftDataPlan] {
        do {
            return [
                try make(
                    sources: sources, planName: planName, store: store, classes: classes, earlier: earlier, currentOnly: true,
                    hooks: { try hooksFile.map(readHooks) ?? [:] }, report: printMessage)
            ]
        } catch let error as SwiftDataPlanCheckError where !error.plans.isEmpty && store == nil && planName == nil {
            printError("note: \(error.plans.count) SchemaMigrationPlans (an app with several containers): each is planned in turn; choose one with --migration-plan")
            return try error.plans.map { name in
                try rendered {
                    try make(
                        sources: sources, planName: name, store: nil, classes: classes, earlier: earlier, currentOnly: true,
                        hooks: { try hooksFile.map(readHooks) ?? [:] },
                        report: { if case .note = $0 { printMessage($0) } })
                }
            }
        } catch {
            return try rendered { throw error }
        }
    }

    /// ``match(store:)``, its failure printed, as an exit code.
    mutating func matchStore(_ path: String) throws {
        var copy = self
        try Self.rendered { try copy.match(store: path) }
        self = copy
    }

    /// A reader's message on standard error, with the command line's hints.
    static func printMessage(_ message: Message) {
        switch message {
        case .diagnostic(let diagnostic): printError(ErrorHints.text(diagnostic))
        case .note(let text): printError(text)
        }
    }

    /// Runs the library's `body`; a ``SwiftDataPlanCheckError`` is printed and becomes the exit code
    /// scripts rely on (66 unreadable, 65 invalid input, a store error's own).
    static func rendered<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SwiftDataPlanCheckError {
            if let store = error.storeError { throw fail(store) }
            for message in error.messages { printError(message) }
            throw error.reason == .unreadable ? InstarExit.unreadable : InstarExit.invalidInput
        }
    }

    /// `hooks.yaml`: `name: SQL text` or `name: [statements]`, the name as the summary shows it.
    static func readHooks(_ path: String) throws -> [String: HookDefinition] {
        do throws(ModelError) {
            let source = try YAMLSource.load(path: path)
            var walker = YAMLWalker(source: source)
            var hooks: [String: HookDefinition] = [:]
            for pair in walker.pairs(source.root, what: "the hooks file") {
                hooks[pair.key] = .sql(walker.stringList(pair.value, what: "hook '\(pair.key)' (SQL text or a list of statements)"))
            }
            if !walker.problems.isEmpty { throw ModelError(walker.problems) }
            return hooks
        } catch {
            printError(error.description)
            throw error.problems.allSatisfy { $0.kind == .unreadable } ? InstarExit.unreadable : InstarExit.invalidInput
        }
    }

    var summary: [String] {
        var lines = ["SwiftData plan \(migrationPlan.name): \(plan.versions.count) schema(s), \(migrationPlan.stages.count) stage(s)"]
        for stage in migrationPlan.stages {
            var line = "  \(stage.kind.rawValue) \(stage.fromVersion) → \(stage.toVersion)"
            if stage.kind == .custom {
                let hooks = plan.stages.first { $0.from == stage.fromVersion && $0.to == stage.toVersion }?.hooks ?? []
                line += hooks.isEmpty ? " (no closures)" : " hooks: " + hooks.map { name in
                    if case .sql? = plan.hooks[name] { return "\(name) (SQL)" }
                    return "\(name) (missing: give it as SQL with --hooks, or register it in Swift)"
                }.joined(separator: ", ")
            }
            lines.append(line)
        }
        if let storeSchema { lines.append("store: written by \(storeSchema)") }
        // Only the sources are checked here: the store's rows may still block a step (the risks below,
        // and `instar check`), so this line never says "passed" above them.
        lines.append(
            findings.isEmpty
                ? "SwiftData's launch checks on the sources: none fails (checksums distinct, lightweight stages inferable, every schema reachable); the store's data is judged under risks"
                : "SwiftData's launch checks on the sources: \(findings.count) problem(s)")
        return lines
    }
}
