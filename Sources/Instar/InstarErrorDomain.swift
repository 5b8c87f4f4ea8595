import InstarMapping
@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore

/// Which part of Instar failed, carrying that part's error with all its facts: what an app switches on
/// after `catch let error as InstarError`.
///
/// Each case names the layer a user would look at (the model, the plan, the store, a hook) and hands
/// over the concrete error, so that nothing has to be parsed out of a message.
public enum InstarErrorDomain: Sendable {
    /// A model could not be read or is not valid: every problem with its file, line and column.
    case model(ModelError)
    /// A plan file could not be used: every problem with its file, line and key.
    case plan(PlanError)
    /// No chain of steps reaches the target: each gap and the changes that block it.
    case noChain(NoChain)
    /// A mapping model could not be read: where, and which entity mapping and property.
    case mapping(MappingError)
    /// A predicate or expression in a mapping model does not parse: the column within its text.
    case expressionSyntax(ExpressionSyntaxError)
    /// A mapping step cannot run (a mapping the step needs is missing or does not fit the versions).
    case mappingStep(MappingStepError)
    /// The store: SQLite's failures with their codes and statement, drift items, data conditions.
    case store(StoreError)
    /// A layout cannot store the model: the layout, entity and property.
    case layout(LayoutError)
    /// A hook failed or is missing: which, in which step, and the error it threw.
    case hook(HookError)
    /// Another process holds the store's migration lease: who, since when.
    case lease(LeaseError)
    /// The journal's unfinished run cannot be resumed with this plan or target.
    case resumeRefused(ResumeRefused)
    /// The chain would write a schema resting on SwiftData type mappings no store shows and this store
    /// does not prove: each property, its version and the mapping assumed.
    case assumedMapping(AssumedMappingError)
    /// An error of a part outside the app's umbrella (the test harness, SwiftData sources).
    case other(any InstarError)
}

extension InstarError {
    /// Which part of Instar failed, with the concrete error: switch on it instead of casting.
    public var domain: InstarErrorDomain {
        switch self {
        case let error as ModelError: .model(error)
        case let error as PlanError: .plan(error)
        case let error as NoChain: .noChain(error)
        case let error as MappingError: .mapping(error)
        case let error as ExpressionSyntaxError: .expressionSyntax(error)
        case let error as MappingStepError: .mappingStep(error)
        case let error as StoreError: .store(error)
        case let error as LayoutError: .layout(error)
        case let error as HookError: .hook(error)
        case let error as LeaseError: .lease(error)
        case let error as ResumeRefused: .resumeRefused(error)
        case let error as AssumedMappingError: .assumedMapping(error)
        default: .other(self)
        }
    }
}
