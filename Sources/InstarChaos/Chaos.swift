import ArgumentParser
import Foundation
@_spi(Layouts) import Instar

/// Drives the Swift API the way apps do, at random: several `migrate` calls on one store at once,
/// cancellations at any await, time budgets down to a millisecond, hooks that sleep, fail once, or
/// write with and without checkpoints. `Scripts/chaos` runs it, SIGKILLs it at random moments, runs it
/// again, and compares the store with an uninterrupted run.
///
/// Every hook unit inserts a marker row into `Log` (`mark:0` … `mark:3`, `mark:final`, `sleepy`), so
/// the script can check each effect happened exactly once.
@main
struct Chaos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "instar-chaos",
        abstract: "Migrates a store through the Swift API under random concurrency, cancellation and budgets.",
        discussion: """
            Exit status: 0 the store reached the target, 3 it did not within the rounds, 2 another \
            process holds the store, 1 an error the API does not document for these inputs.
            The last line of standard output is a JSON summary of what happened.
            """)

    @Option(help: "The plan file.") var plan: String
    @Option(help: "The store to migrate.") var store: String
    @Option(help: "Seed of the random choices.") var seed: UInt64 = 1
    @Option(help: "Rounds of concurrent calls before giving up.") var rounds = 60
    @Option(help: "Concurrent calls per round.") var concurrency = 3
    @Flag(help: "One plain call, no chaos: the reference run.") var straight = false

    mutating func run() async throws {
        let plan = try PlanFileReader.read(path: plan)
        let random = SeededRandom(seed: seed)
        let stats = Locked(Stats())
        let url = URL(fileURLWithPath: store)
        if straight {
            let result = try await Self.migrator(plan, random: nil, stats: stats).migrate(store: url)
            print(#"{"result": "\#(result)"}"#)
            throw result.isFinished ? ExitCode.success : ExitCode(3)
        }
        var finished = false
        for _ in 0..<rounds where !finished {
            finished = try await Self.round(plan, url: url, random: random, stats: stats, calls: concurrency)
        }
        print(stats.current.json)
        throw finished ? ExitCode.success : ExitCode(3)
    }

    /// One round: `calls` concurrent calls, each with its own migrator, budget and cancellation.
    static func round(_ plan: Plan, url: URL, random: SeededRandom, stats: Locked<Stats>, calls: Int) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<calls {
                let budget: Duration? = random.chance(0.7) ? .microseconds(random.int(in: 1_000...150_000)) : nil
                let cancelAfter: Int? = random.chance(0.5) ? random.int(in: 0...150) : nil
                let migrator = migrator(plan, random: random, stats: stats)
                group.addTask {
                    let call = Task { try await migrator.migrate(store: url, timeBudget: budget, wait: .seconds(30)) }
                    if let cancelAfter {
                        try? await Task.sleep(for: .milliseconds(cancelAfter))
                        call.cancel()
                    }
                    return try await record(call, budget: budget, cancelled: cancelAfter != nil, stats: stats)
                }
            }
            var finished = false
            for try await done in group { finished = finished || done }
            return finished
        }
    }

    static func record(_ call: Task<MigrationResult, any Error>, budget: Duration?, cancelled: Bool, stats: Locked<Stats>) async throws
        -> Bool
    {
        stats.withLock {
            $0.calls += 1
            if budget != nil { $0.budgets += 1 }
            if cancelled { $0.cancels += 1 }
        }
        do {
            let result = try await call.value
            stats.withLock { $0.results[String(describing: result), default: 0] += 1 }
            return result.isFinished
        } catch let error as HookError where error.kind == .failed && error.underlying is InjectedFailure {
            stats.withLock { $0.hookFailures += 1 }
            return false
        } catch let error as LeaseError {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(2)
        }
    }

    /// A migrator with the plan's Swift hooks: `mark` writes four checkpointed units and one without a
    /// checkpoint, sleeping between them and failing once in a while; `sleepy` writes, then sleeps.
    static func migrator(_ plan: Plan, random: SeededRandom?, stats: Locked<Stats>) -> Migrator {
        let migrator = Migrator(plan: plan)
        migrator.register(hook: "mark") { context in
            var unit = context.checkpoint.flatMap(Int.init).map { $0 + 1 } ?? 0
            while unit < 4 {
                if let random { try await Task.sleep(for: .milliseconds(random.int(in: 0...40))) }
                if let random, random.chance(0.15) { throw InjectedFailure() }
                try context.write(checkpoint: String(unit)) { db in
                    try db.execute(sql: #"INSERT INTO "Log" ("msg") VALUES (?)"#, arguments: ["mark:\(unit)"])
                }
                unit += 1
            }
            try context.write { db in try db.execute(sql: #"INSERT INTO "Log" ("msg") VALUES ('mark:final')"#) }
            if let random { try await Task.sleep(for: .milliseconds(random.int(in: 0...40))) }
        }
        migrator.register(hook: "sleepy") { context in
            try context.write { db in try db.execute(sql: #"INSERT INTO "Log" ("msg") VALUES ('sleepy')"#) }
            for _ in 0..<(random?.int(in: 0...10) ?? 0) {
                try context.checkCancellation()
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        return migrator
    }
}

struct InjectedFailure: Error {}

/// What the calls of one process did, printed as JSON at the end.
struct Stats {
    var calls = 0
    var budgets = 0
    var cancels = 0
    var hookFailures = 0
    var results: [String: Int] = [:]

    var json: String {
        let results = self.results.sorted { $0.key < $1.key }.map { #""\#($0.key)": \#($0.value)"# }.joined(separator: ", ")
        return #"{"calls": \#(calls), "budgets": \#(budgets), "cancels": \#(cancels), "hookFailures": \#(hookFailures), "results": {\#(results)}}"#
    }
}

/// A reproducible source of random choices shared by concurrent tasks (SplitMix64 behind a lock).
final class SeededRandom: Sendable {
    private let state: Locked<UInt64>

    init(seed: UInt64) { state = Locked(seed) }

    func next() -> UInt64 {
        var z = state.withLock { state in
            state &+= 0x9E37_79B9_7F4A_7C15
            return state
        }
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    func chance(_ probability: Double) -> Bool {
        Double(next() % 1_000_000) / 1_000_000 < probability
    }
}
