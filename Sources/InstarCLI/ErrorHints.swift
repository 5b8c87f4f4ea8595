import Foundation
@_spi(Layouts) import Instar
import InstarSwiftData
import InstarSwiftDataCheck

/// What the command line adds to the library's errors: the flags and commands that act on them.
///
/// The library's errors carry facts and say what happened in words an app can show; only here do
/// they learn about `--wait`, `--allow-commands` or `instar status`, because only here do those exist.
enum ErrorHints {
    /// A store error with the command that helps, where there is one.
    /// - Parameter store: the store the command works on, when the error may concern another file (a
    ///   backup): only a missing *store* is one `instar store create` makes.
    static func text(_ error: StoreError, store: String? = nil) -> String {
        var text = error.description
        switch error.kind {
        case .notFound where error.sqlite == nil && error.path == (store ?? error.path)
            && !FileManager.default.fileExists(atPath: error.path):
            text += "\n  hint: create one with 'instar store create <model> --store \(error.path)'"
        case .locked:
            text += "\n  hint: if another migration runs, 'instar status --store \(error.path)' names it; or pass --wait <seconds>"
        case .needsRecovery:
            text += "\n  hint: 'instar migrate' opens it for writing and recovers it first"
        case .schemaDrift:
            text += "\n  hint: 'instar inspect --store \(error.path)' shows which version it is closest to"
        default: break
        }
        return text
    }

    /// A SwiftData source diagnostic, with the flag that chooses another migration plan where one helps.
    static func text(_ diagnostic: SwiftDataDiagnostic) -> String {
        switch diagnostic.finding {
        case .stageGoesBackwards?:
            diagnostic.description + "\n  hint: with a separate downgrade plan, choose the forward one with --migration-plan <name>"
        case nil, .defaultNotLiteral?, .reachableModelAdded?, .ambiguousInverse?, .inverseNotInferred?, .assumedMapping?:
            diagnostic.description
        }
    }

    /// A store's cached model that cannot stand for its version: the model is given with `--model`.
    static func text(_ error: ModelCacheError) -> String {
        error.description + (error.kind.isSQLite ? "" : "\n  hint: pass the model the store was written with: --model <model>")
    }

    /// The note for a model the library could not archive into `Z_MODELCACHE` (the migration itself succeeded).
    static func modelCacheKept(_ refusal: ModelCacheRefusal) -> String {
        "note: Z_MODELCACHE kept as it was, not rewritten for \(refusal.version): \(refusal.reasons.joined(separator: "; "))"
            + "\n  hint: Core Data opens the store with the app's model as usual; only a later migration from a model no "
            + "longer bundled with the app lacks the store's own model"
    }

    static func text(_ error: LeaseError) -> String {
        error.description
            + "\n  hint: wait for it to finish, or pass --wait <seconds>; a lease whose process has died is taken over automatically"
    }

    /// - Parameter resume: the command line that runs the migration again.
    static func text(_ error: ResumeRefused, resume: String) -> String {
        switch error.reason {
        case .otherTarget(let unfinished, _):
            error.description
                + "\n  hint: an unfinished run is finished before another target is reached, and \(unfinished) lies beyond the one asked for: "
                + "run migrate with --to '\(unfinished)' (or a later version) to finish it ('instar status --store \(error.path)' shows where it stopped)"
        case .versionMissing, .stepChanged:
            error.description
                + "\n  hint: restore the plan as it was, or restore the backup taken before the run ('instar restore')"
        }
    }

    /// - Parameter resume: the command line that runs the migration again.
    static func text(_ error: HookError, resume: String) -> String {
        switch error.kind {
        case .commandsNotAllowed:
            error.description + "\n  hint: pass --allow-commands to run command hooks, then: \(resume) --allow-commands"
        case .commandsUnsupported:
            error.description
        case .notDefined:
            error.description
                + "\n  hint: define each hook under the plan's hooks (SQL runs inside the step's transaction); Swift hooks run only in an app that registers them"
        case .failed where error.storeUnchanged:
            error.description + "\n  hint: fix the hook, then run again: \(resume)"
        case .failed:
            error.description + " ('instar status' shows it)\n  hint: fix the hook, then run again to retry from there: \(resume)"
        }
    }
}
