import Foundation
import InstarMapping
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarSQL

/// A user's declaration of a version chain: which versions exist in which order, how the store is laid
/// out, which steps need app code (hooks) and which versions must not be skipped.
public struct Plan: Sendable {
    /// The plan's name (defaults to its file name).
    public var name: String
    /// The plan file, for messages; relative paths in it resolve against its folder.
    public var file: String
    /// The store layout's name: `instar`, `coredata`, `sql` or a registered plug-in's. Resolved, and
    /// refused when unknown, where the plan meets a store (`LayoutRegistry.resolve` through the
    /// migrator, the dry run and the `instar` command), at the `layout` key's location.
    public var layout: String
    /// Every version, oldest first.
    public var versions: [Model]
    /// The version `migrate` goes to when none is given (default: the last).
    public var target: String?
    /// Versions a chain must stop at (never skipped).
    public var pinned: [String]
    /// Steps that run app code, in the order declared; a chain must take each stage it passes.
    public var stages: [CustomStage]
    /// The hooks the stages name, by name.
    public var hooks: [String: HookDefinition]
    /// Tuning of planning and running (step cost, skips, `secure_delete`).
    public var options: PlanOptions
    /// Where keys were written, by a path such as `stages[0].from` or `hooks.fill`.
    package var locations: [String: SourceLocation]
    /// Core Data mapping models matched to two of the versions: each makes its pair a step of its own
    /// that chains take, as Core Data uses a mapping model before it infers anything (an inferred step
    /// may go past one that only copies values and drops nothing).
    public var mappings: [PlannedMapping] = []
    /// Mapping models found beside the bundle that fit no pair of the plan's versions, each with the
    /// closest pair: said in the dry run, since they may belong to another bundle.
    package var unmatchedMappings: [String] = []
    /// False for the versions of an Xcode bundle: a bundle has no order but its current version
    /// (`.xccurrentversion`), and version names say nothing about release order (`AppPartner 5` may
    /// come before `AppFolio v1.4`). Then every version is a starting point, a chain goes straight to
    /// the target as Core Data infers it, through other versions only where a mapping model leads,
    /// and nothing is "newer" than the target. Plan files keep the order they declare (true).
    package var versionsAreOrdered = true

    /// A plan built in code; ``PlanFileReader`` reads one from a file. Validation happens in the reader and
    /// in `PlanLint` (the `instar lint` checks), not here.
    public init(
        name: String, file: String, layout: String = "instar", versions: [Model], target: String? = nil,
        pinned: [String] = [], stages: [CustomStage] = [], hooks: [String: HookDefinition] = [:],
        options: PlanOptions = PlanOptions(), locations: [String: SourceLocation] = [:]
    ) {
        self.name = name
        self.file = file
        self.layout = layout
        self.versions = versions
        self.target = target
        self.pinned = pinned
        self.stages = stages
        self.hooks = hooks
        self.options = options
        self.locations = locations
    }

    /// The position of the named version in ``versions`` (0 is the oldest), or nil when the plan has none.
    package func index(of version: String) -> Int? {
        versions.firstIndex { $0.name == version }
    }

    /// The default target: `target`, else the newest version.
    public var targetVersion: String? { target ?? versions.last?.name }

    /// The versions a store may be at when it is migrated to `target`: with ordered versions those
    /// before it, else every other version.
    package func startingVersions(for target: String) -> [Model] {
        guard let end = index(of: target) else { return [] }
        return versionsAreOrdered ? Array(versions.prefix(end)) : versions.filter { $0.name != target }
    }

    /// The mapping model for the step from `from` to `to`, if the plan has one.
    public func mapping(from: String, to: String) -> PlannedMapping? {
        mappings.first { $0.from == from && $0.to == to }
    }

    /// Where the key (`stages[0].from`, `hooks.fill`) was written, else the plan file itself.
    package func location(_ key: String) -> SourceLocation {
        locations[key] ?? SourceLocation(file: file)
    }
}

/// A mapping model (`.xcmappingmodel`) matched to two versions of a plan.
public struct PlannedMapping: Sendable {
    /// The version the mapping model migrates from.
    public var from: String
    /// The version it migrates to.
    public var to: String
    /// Resolved against the two versions: Xcode's implicit expressions are filled in.
    package var model: MappingModel

    /// Matches a mapping model, already resolved, to two versions of the plan.
    package init(from: String, to: String, model: MappingModel) {
        self.from = from
        self.to = to
        self.model = model
    }
}

/// A step that runs app code: the step itself is still an inferred migration from `from` to `to`;
/// `before` hooks run on the old shape, `after` hooks on the new one.
public struct CustomStage: Sendable, Hashable {
    /// The version the stage starts at.
    public var from: String
    /// The version it ends at (a later one, not necessarily the next).
    public var to: String
    /// Hooks run on the old shape, before the step, in order.
    public var before: [String]
    /// Hooks run on the new shape, after the step, in order.
    public var after: [String]

    /// A stage; one that names no hook still makes `from → to` a step that every chain through it takes.
    public init(from: String, to: String, before: [String] = [], after: [String] = []) {
        self.from = from
        self.to = to
        self.before = before
        self.after = after
    }

    /// Every hook the stage runs: ``before`` then ``after``.
    public var hooks: [String] { before + after }
}

/// App code a custom stage runs. Executed by the runtime.
public enum HookDefinition: Sendable, Hashable {
    /// Statements run inside the step's transaction.
    case sql([String])
    /// One statement run over key ranges of a table, `batchSize` keys per run; the statement uses the
    /// named parameters `:start` and `:end` (inclusive) for the key range.
    case batchedSQL(table: String, sql: String, batchSize: Int)
    /// An external program (argument vector), run only with `--allow-commands`.
    case command([String])
    /// A hook the app registers in Swift under this name.
    case swift(String)

    /// The key that declares this kind in a plan file (`sql`, `batchedSQL`, `command`, `swift`).
    public var kindName: String {
        switch self {
        case .sql: "sql"
        case .batchedSQL: "batchedSQL"
        case .command: "command"
        case .swift: "swift"
        }
    }
}

/// A plan's `options:`: tuning of planning and running that does not change what the migration does.
public struct PlanOptions: Sendable, Hashable {
    /// SQLite's `secure_delete` during migration: nil keeps the library's setting (`fast`, `on`, `off`).
    public var secureDelete: SecureDelete?
    /// Cost of one step in rows, so that among equally costly chains the shorter one wins.
    public var stepCost: Int
    /// How many versions one step may skip at most. Skips are searched lazily, but each candidate
    /// costs a diff; the bound keeps planning of long histories (hundreds of versions) fast.
    public var maxSkip: Int

    /// Options; the defaults are those of a plan without `options:`.
    public init(secureDelete: SecureDelete? = nil, stepCost: Int = 1, maxSkip: Int = 64) {
        self.secureDelete = secureDelete
        self.stepCost = stepCost
        self.maxSkip = maxSkip
    }
}

/// A plan file that cannot be used: every problem, each with file, line and key.
public struct PlanError: InstarError, CustomStringConvertible {
    /// Every problem found, in the order found.
    public var problems: [ModelProblem]
    /// Wraps the problems the reader collected.
    package init(_ problems: [ModelProblem]) { self.problems = problems }
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
