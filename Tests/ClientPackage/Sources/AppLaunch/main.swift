import Foundation
import Instar

// An app's launch, reduced to what a migration needs: it reads the folder `instar export` wrote
// (shipped among its resources), registers its hooks by the names the export lists, and migrates its
// store, imports `Instar` only. `Scripts/app-launch-check` kills it inside a step and launches it
// again, as a watchdog and a user would.
//
//   AppLaunch <export folder> <store> [--to <version>] [--mapping-hook <name>]… [--hook <name>]… [--accept-assumed-types]
//
// --accept-assumed-types: the app accepts the SwiftData type mappings its export marks as assumed (a
// developer who saw SwiftData open a store migrated with them); without it the migrator refuses them.

var arguments = Array(CommandLine.arguments.dropFirst())
let acceptsAssumedTypes = arguments.contains("--accept-assumed-types")
arguments.removeAll { $0 == "--accept-assumed-types" }
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: AppLaunch <export folder> <store> [--to v] [--mapping-hook n]… [--hook n]…\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[0])
let store = URL(fileURLWithPath: arguments[1])
var target: String?
var mappingHooks: [String] = []
var hooks: [String] = []
var index = 2
while index + 1 < arguments.count {
    switch arguments[index] {
    case "--to": target = arguments[index + 1]
    case "--mapping-hook": mappingHooks.append(arguments[index + 1])
    case "--hook": hooks.append(arguments[index + 1])
    default:
        FileHandle.standardError.write(Data("unknown option \(arguments[index])\n".utf8))
        exit(64)
    }
    index += 2
}

/// Says on standard output what the hooks saw, so the check can tell a run that did the work.
@Sendable func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

do {
    let exported = try PlanFileReader.read(url: folder.appendingPathComponent("plan.yaml"))
    let migrator = Migrator(plan: ImpliedPlan(exported: exported, store: store).plan)
    migrator.acceptsAssumedMappings = acceptsAssumedTypes
    for name in mappingHooks {
        // A custom policy's work: here it only counts the rows its entity mapping made.
        migrator.register(mappingHook: name) { (context: MappingHookContext) in
            let rows = try Int.fetchOne(context.db, sql: "SELECT count(*) FROM temp._instar_keymap") ?? 0
            say("mapping hook \(name) ran on \(rows) row(s) in \(context.step)")
        }
    }
    for name in hooks {
        migrator.register(hook: name) { (context: HookContext) in
            say("hook \(name) ran in \(context.step) (\(context.phase))")
        }
    }
    let pending = try await migrator.pendingWork(store: store, to: target)
    say("pending: \(pending)")
    let result = try await migrator.migrate(store: store, to: target) { event in say("event: \(event)") }
    say("result: \(result)")
    exit(result.isFinished ? 0 : 75)
} catch {
    FileHandle.standardError.write(Data("AppLaunch: \(error)\n".utf8))
    exit(1)
}
