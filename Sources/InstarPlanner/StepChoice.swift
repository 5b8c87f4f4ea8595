/// Which rule put a step in its chain: the dry run says it for every step, so that a user can tell a
/// chain Core Data would infer from the walk an app's own mapping models make it take.
public enum StepChoice: Sendable, Hashable {
    /// The cheapest chain over a plan's ordered versions (fewest rows rewritten, stages and pinned
    /// versions respected).
    case cheapest
    /// A mapping model starts at the step's version: apps that ship a chain of mapping models walk it,
    /// one model after the other, and so does Instar.
    case mappingModel
    /// Straight to the target by inference, as Core Data migrates at launch: no mapping model lies on
    /// the way.
    case direct
    /// Through other versions by inference: going straight would drop stored values that this way
    /// keeps (a property renamed in more than one version).
    case keepsStoredValues
    /// An inferred step past the mapping models named: each only copies values (no custom policy, no
    /// filter, no computed expression), and the step holds on the store's rows.
    case inferredPast(mappingModels: [String])
    /// No mapping model starts at the step's version: an inferred step to where the next mapping
    /// model starts, the walk the app's own code takes, because jumping further `reason`.
    case walk(because: WalkReason)

    /// Why a walk did not jump past the next mapping models.
    public enum WalkReason: Sendable, Hashable {
        /// A mapping model on the way runs app code or computes values (named).
        case mappingRunsCode(String)
        /// Inference cannot go further in one step, or would drop stored values.
        case notInferable
        /// The step further needs a property of the rows that the store may not have (named).
        case needsRows(String)
    }
}

extension StepChoice: CustomStringConvertible {
    public var description: String {
        switch self {
        case .cheapest: "cheapest chain"
        case .mappingModel: "a mapping model starts here"
        case .direct: "straight to the target, as Core Data infers it"
        case .keepsStoredValues: "through other versions: straight would drop stored values"
        case .inferredPast(let names): "inferred past mapping models that only copy values (\(names.joined(separator: ", ")))"
        case .walk(let reason): "to where the next mapping model starts: \(reason)"
        }
    }
}

extension StepChoice.WalkReason: CustomStringConvertible {
    public var description: String {
        switch self {
        case .mappingRunsCode(let name): "the mapping model \(name) on the way runs app code or computes values"
        case .notInferable: "no inferred step goes further without dropping stored values"
        case .needsRows(let condition): "going further needs \(condition)"
        }
    }
}
