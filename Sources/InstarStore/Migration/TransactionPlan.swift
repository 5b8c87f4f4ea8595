import GRDB
import InstarInference
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts
import InstarCompiler

/// A hook that runs inside a migration's transaction, once the store is at a given version.
package struct InlineHook {
    package var name: String
    /// Its SQL when it is plain SQL, which the planner may analyse (``SQLAccess``); nil for code, which
    /// nothing can see into.
    package var statements: [String]?
    /// Runs the hook; nil in a dry run.
    package var run: ((Database) throws -> Void)?

    package init(name: String, statements: [String]?, run: ((Database) throws -> Void)? = nil) {
        self.name = name
        self.statements = statements
        self.run = run
    }
}

/// What one transaction of a migration does, in order: runs of steps (fused where exact) and the
/// hooks between them, with the work that was moved across a hook (``DeferredWork``).
///
/// Built once from the versions and hooks, and used both to run the transaction
/// (``SQLiteStore/migrate(through:fuse:hooks:beforeCommit:onStatement:)``) and to report it in a dry run, so the
/// report shows what will run.
package struct TransactionPlan {
    /// Consecutive steps run as one program.
    package struct Unit {
        package var program: StepProgram
        package var from: Model
        package var to: Model
        /// Data conditions of the unit's first step, checked on the data before it runs.
        package var conditions: [DataCondition]
        /// How many steps the unit covers.
        package var steps: Int
        /// Index of `from` in the transaction's versions.
        package var position: Int
    }

    package enum Part {
        case steps(Unit)
        /// Hooks that run once the store is at `versions[position]`.
        case hooks([InlineHook], position: Int, access: SQLAccess)
    }

    /// Work moved past the hooks at a position.
    package struct Move: Sendable {
        package var hooks: [String]
        package var position: Int
        package var work: DeferredWork
    }

    package var versions: [Model]
    package var parts: [Part]
    package var moves: [Move]
    /// Where consecutive steps of the transaction were not fused, and why: the position of the version
    /// between them, and the reason (tables both rewrite are then rewritten twice).
    package var refusals: [(position: Int, reason: FusionRefusal)] = []

    /// Steps that fusion merged into others.
    package var fusedSteps: Int {
        parts.reduce(0) { n, part in
            if case .steps(let unit) = part { n + max(0, unit.steps - 1) } else { n }
        }
    }

    /// Plans the transaction from `versions[0]` (the store's version) to the last one, with `hooks`
    /// keyed by the position of the version at which they run. With `fuse`, consecutive steps fold
    /// into one program where that is exact and work moves across analysable hooks; without, every
    /// step runs on its own and nothing moves.
    package static func make(
        versions: [Model], hooks: [Int: [InlineHook]], layout: any StorageLayout, fuse: Bool
    ) throws -> TransactionPlan {
        var parts: [Part] = []
        var refusals: [(position: Int, reason: FusionRefusal)] = []
        var schema = try layout.storageMap(for: versions[0]).schema
        // Steps, folded into units between hooks.
        for position in 0..<versions.count {
            if let here = hooks[position], !here.isEmpty {
                parts.append(.hooks(here, position: position, access: access(of: here, in: schema)))
            }
            guard position + 1 < versions.count else { break }
            let (old, new) = (versions[position], versions[position + 1])
            let diff = ModelDiff(from: old, to: new)
            let program = try StepCompiler(diff: diff, from: old, to: new, layout: layout).compile()
            schema = program.targetSchema
            var fusion: Result<StepProgram, FusionRefusal>?
            if fuse, case .steps(let unit)? = parts.last {
                fusion = unit.program.fusion(with: program, nextHasConditions: !diff.conditions.isEmpty)
                if case .failure(let reason) = fusion { refusals.append((position, reason)) }
            }
            if case .success(let fused)? = fusion, case .steps(var unit)? = parts.last {
                unit.program = fused
                unit.to = new
                unit.steps += 1
                parts[parts.count - 1] = .steps(unit)
            } else {
                parts.append(
                    .steps(Unit(program: program, from: old, to: new, conditions: diff.conditions, steps: 1, position: position)))
            }
        }
        var plan = TransactionPlan(versions: versions, parts: parts, moves: [])
        plan.refusals = refusals
        if fuse { try plan.moveWorkAcrossHooks(layout: layout) }
        return plan
    }

    private static func access(of hooks: [InlineHook], in schema: StoreSchema) -> SQLAccess {
        guard let statements = statements(of: hooks) else { return .opaque("a hook is not SQL") }
        return SQLAccess.of(statements, in: schema)
    }

    private static func statements(of hooks: [InlineHook]) -> [String]? {
        var statements: [String] = []
        for hook in hooks {
            guard let sql = hook.statements else { return nil }
            statements += sql
        }
        return statements
    }

    /// The hooks must touch exactly the same in the shape they will actually see: a column that only
    /// the deferred table's older shape has can change how a name in the hook resolves (an unqualified
    /// column in a correlated subquery, `SELECT *`, `NATURAL JOIN`).
    private static func seesTheSame(_ hooks: [InlineHook], access: SQLAccess, in schema: StoreSchema) -> Bool {
        guard let statements = statements(of: hooks) else { return false }
        let there = SQLAccess.of(statements, in: schema)
        return !there.isOpaque && there == access
    }

    /// Moves rebuilds and index creation past each analysable hook (``StepProgram/deferring(past:sourceSchema:moveTables:)``),
    /// fusing what moved with the steps after the hook, or adding a last unit that only creates the
    /// moved indexes.
    private mutating func moveWorkAcrossHooks(layout: any StorageLayout) throws {
        var schemaBefore = try layout.storageMap(for: versions[0]).schema  // at the start of parts[index]
        var index = 0
        while index < parts.count {
            defer { index += 1 }
            guard case .steps(var before) = parts[index] else { continue }
            defer { schemaBefore = before.program.targetSchema }
            guard index + 1 < parts.count, case .hooks(let hooks, let position, let access) = parts[index + 1] else {
                continue
            }
            let names = hooks.map(\.name)
            if index + 2 < parts.count, case .steps(let next) = parts[index + 2] {
                for moveTables in [true, false] {
                    guard let (now, later, moved) = before.program.deferring(
                        past: access, sourceSchema: schemaBefore, moveTables: moveTables),
                        Self.seesTheSame(hooks, access: access, in: now.targetSchema),
                        let fused = later.fused(with: next.program, nextHasConditions: !next.conditions.isEmpty)
                    else { continue }
                    before.program = now
                    var merged = next
                    merged.program = fused
                    parts[index] = .steps(before)
                    parts[index + 2] = .steps(merged)
                    moves.append(Move(hooks: names, position: position, work: moved))
                    break
                }
            } else if let (now, later, moved) = before.program.deferring(
                past: access, sourceSchema: schemaBefore, moveTables: false),
                Self.seesTheSame(hooks, access: access, in: now.targetSchema)
            {
                before.program = now
                parts[index] = .steps(before)
                let last = versions[position]
                parts.insert(
                    .steps(Unit(program: later, from: last, to: last, conditions: [], steps: 0, position: position)),
                    at: index + 2)
                moves.append(Move(hooks: names, position: position, work: moved))
            }
        }
    }
}
