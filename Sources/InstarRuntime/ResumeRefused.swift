@_spi(Layouts) import InstarModel

/// An unfinished run cannot be resumed as asked: the plan changed under it, or the caller asked for
/// another target. Nothing was changed.
public struct ResumeRefused: InstarError, CustomStringConvertible {
    /// Why the unfinished run cannot go on.
    public enum Reason: Sendable, Hashable {
        /// The unfinished run goes to `unfinishedTarget`; this call asked for `requested`, which lies
        /// before it (a target beyond it is reached by finishing the unfinished run first).
        case otherTarget(unfinishedTarget: String, requested: String)
        /// The plan no longer has a version the unfinished chain goes through.
        case versionMissing(String)
        /// Step `index` (1-based) of the unfinished chain has other versions or hooks in the plan now.
        case stepChanged(index: Int, from: String, to: String)
    }

    /// The store's path.
    public var path: String
    /// Why the unfinished run cannot go on.
    public var reason: Reason

    /// Makes the error for the store at `path`.
    package init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// The reason in words.
    public var explanation: String {
        switch reason {
        case .otherTarget(let unfinished, let requested):
            "it goes to \(unfinished), not \(requested); nothing was changed"
        case .versionMissing(let name): "the plan no longer has the version \(name)"
        case .stepChanged(let index, let from, let to):
            "step \(index) (\(from) → \(to)) is different in the plan now (its versions or hooks changed)"
        }
    }

    public var description: String {
        "\(path): cannot resume the unfinished migration: \(explanation)"
    }
}
