import Foundation
@_spi(Layouts) import Instar
@_spi(Layouts) import InstarLayouts

/// `--model` arguments as the library's ``ImpliedPlan``: the CLI only turns its facts into words and
/// exit codes, so `instar migrate --model` and an app at launch plan alike.
enum ImplicitPlan {
    /// - Parameters:
    ///   - references: the `--model` arguments.
    ///   - storePath: the store, whose own bookkeeping tells the layout; nil for a dry run without one.
    ///   - reading: which versions of a compiled bundle to decode; `migrate` reads only what its store's
    ///     chain needs, as an app at launch does, while `plan`, `check` and `test` look at every version.
    static func make(models references: [String], storePath: String?, target: String?, reading: VersionReading = .every)
        throws -> Plan
    {
        try render(store: storePath) {
            try ImpliedPlan(
                models: references.map { URL(fileURLWithPath: $0) }, store: storePath.map { URL(fileURLWithPath: $0) },
                target: target, reading: reading)
        }
    }

    /// The plan for a store written through a model merged from several (`--merge`).
    static func makeMerged(models references: [String], storePath: String, target: String?) throws -> Plan {
        try render(store: storePath) {
            try ImpliedPlan.merged(models: references.map { URL(fileURLWithPath: $0) }, store: URL(fileURLWithPath: storePath), target: target)
        }
    }

    /// The plan for `--to-model`: the store's version among the `--model` candidates, then to the target.
    static func makeToModel(_ target: String, candidates: [String], storePath: String) throws -> Plan {
        try render(store: storePath) {
            try ImpliedPlan.toModel(
                URL(fileURLWithPath: target), from: candidates.map { URL(fileURLWithPath: $0) }, store: URL(fileURLWithPath: storePath))
        }
    }

    /// Runs `make`, printing its notes and the versions' warnings, and turning its errors into words and
    /// exit codes.
    private static func render(store: String?, _ make: () throws -> ImpliedPlan) throws -> Plan {
        let implied: ImpliedPlan
        do {
            implied = try make()
        } catch let error as ModelError {
            printError(error.description)
            throw error.problems.allSatisfy { $0.kind == .unreadable } ? InstarExit.unreadable : InstarExit.invalidInput
        } catch let error as StoreError {
            throw fail(error)
        } catch let error as ImpliedPlanError {
            printError(words(error, store: store))
            if case .versionGivenTwice = error.kind { throw InstarExit.invalidInput }
            throw InstarExit.failure
        }
        reportWarnings(of: implied.plan.versions)
        for note in implied.notes { printError("note: \(note)") }
        return implied.plan
    }

    /// An implied plan's error in the command line's words (its flags named).
    static func words(_ error: ImpliedPlanError, store: String?) -> String {
        switch error.kind {
        case .versionGivenTwice(let name):
            "version '\(name)' is given twice\n  hint: give each version once; a bundle stands for all of its versions"
        case .unknownTarget(let target, let suggestion):
            "the target '\(target)' is not one of the given versions; nothing was changed" + (suggestion.map { "\n  hint: \($0)" } ?? "")
        case .notAMerge:
            "the store was not written through a merge of one version of each --model\n"
                + "  hint: 'instar inspect --store \(store ?? "STORE")' with the same --model arguments shows what it matches"
        case .targetInNoGroup(let target):
            "the target '\(target)' is not a version of any --model; nothing was changed"
        }
    }

    static func isBundle(_ reference: String) -> Bool { ImpliedPlan.isBundle(URL(fileURLWithPath: reference)) }

    /// The command line that continues an implicit plan's run.
    static func resumeCommand(models references: [String], store: String, target: String?, merge: Bool) -> String {
        let models = references.map { "--model '\($0)'" }.joined(separator: " ")
        return "instar migrate --store '\(store)' \(models)" + (merge ? " --merge" : "") + (target.map { " --to '\($0)'" } ?? "")
    }
}

func loadBundle(_ reference: String) throws -> ModelBundle {
    do {
        let bundle = try ModelBundle.read(xcdatamodeld: URL(fileURLWithPath: reference))
        reportWarnings(of: bundle.versions)
        return bundle
    } catch {
        printError(error.description)
        let unreadable = error.problems.allSatisfy { $0.kind == .unreadable }
        throw unreadable ? InstarExit.unreadable : InstarExit.invalidInput
    }
}
