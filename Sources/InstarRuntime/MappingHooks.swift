import Foundation
import GRDB
import InstarPlanner
@_spi(Layouts) import InstarStore
import InstarCompiler

/// What a Swift hook of a mapping step gets: the connection inside the step's transaction and the
/// hook's place in the mapping model. It may read the source tables set aside
/// (`MappingProgram.asideName(_:)`) and the key map (`temp._instar_keymap`: mapping, source_pk,
/// destination_pk) and write the destination tables; everything commits with the step, or not at all.
public struct MappingHookContext {
    /// The step's connection, inside its transaction. Use it only during the hook, on the hook's thread.
    public let db: Database
    /// Which hook this is and where it runs: its entity mapping, property and point in the step.
    public let hook: MappingHookRequirement
    /// The step, as `"from → to"`.
    public let step: String
    /// The run's stop request, which cancels an async hook's task.
    let stop: StopRequest?
}

/// A Swift hook of a mapping step, registered with `Migrator.register(mappingHook:_:)` under the name its
/// ``MappingHookRequirement`` gives. It runs inside the step's transaction; throwing rolls the step back.
public typealias MappingSwiftHook = (MappingHookContext) throws -> Void

/// Which hooks of a mapping step are provided, and how each runs.
struct MappingHookResolver {
    let plan: Plan
    let swift: [String: MappingSwiftHook]
    var stop: StopRequest? = nil

    /// How the hook named `name` runs, or why it cannot.
    enum Provision {
        case sql([String])
        case swift(MappingSwiftHook)
        case missing(MissingHook.MappingGap)
    }

    func provision(_ name: String) -> Provision {
        switch plan.hooks[name] {
        case .sql(let statements)?: return .sql(statements)
        case .swift(let registered)?:
            if let hook = swift[registered] { return .swift(hook) }
            return .missing(.swiftHookNotRegistered(registered))
        case .batchedSQL?, .command?:
            return .missing(.cannotRunInTransaction(kind: plan.hooks[name]!.kindName))
        case nil:
            if let hook = swift[name] { return .swift(hook) }
            return .missing(.notProvided)
        }
    }

    /// Every required hook that is not provided: its name, and a line naming hook, mapping and property.
    func missing(in program: MappingProgram) -> [(requirement: MappingHookRequirement, gap: MissingHook.MappingGap)] {
        program.hooks.compactMap { hook in
            guard case .missing(let why) = provision(hook.name) else { return nil }
            return (hook, why)
        }
    }

    /// Runs a hook in the step's transaction; a failure is a ``HookError`` naming the hook.
    func run(_ hook: MappingHookRequirement, db: Database, step: String) throws {
        do {
            switch provision(hook.name) {
            case .sql(let statements):
                for sql in statements { try db.execute(sql: sql) }
            case .swift(let body):
                try body(MappingHookContext(db: db, hook: hook, step: step, stop: stop))
            case .missing(let why):
                throw HookError(hook: hook.name, step: step, message: why.description)
            }
        } catch let error as HookError {
            throw error
        } catch let error as DatabaseError {
            throw HookError(
                hook: hook.name, step: step, message: "SQLite: \(error.message ?? "\(error)")",
                underlying: StoreError.from(error, path: Self.storePath(db), doing: .runningHook))
        } catch {
            throw HookError(hook: hook.name, step: step, message: "\(error)", underlying: error)
        }
    }

    /// The file of the step's store, which the resolver is made without: the connection knows it, and the
    /// error names it like every other store error (and finds the errno of an I/O failure from it).
    static func storePath(_ db: Database) -> String {
        (try? String.fetchOne(db, sql: "SELECT \"file\" FROM pragma_database_list WHERE \"name\" = 'main'")) ?? ""
    }
}
