import Foundation
@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore

/// The verdict of a release check: one of four, each its own exit status of `instar check`, so that a
/// CI job can tell "this release breaks these stores" from "it silently loses data" from "nothing here
/// can tell". Ordered by how bad: the report's verdict is the worst of its findings' and stores'.
public enum ReleaseVerdict: String, Sendable, Hashable, Codable, Comparable {
    /// Nothing blocks and nothing is lost that was not declared.
    case pass
    /// A store's version could not be told (unknown, or its schema drifted), or a step runs app code
    /// (a Swift hook) that cannot run here: the release may be fine, but nothing here proves it.
    case cannotDecide
    /// A step drops values while adding where they probably belong, or changes a meaning, and the intent
    /// file does not declare it.
    case undeclaredChange
    /// The migration will fail: on a given store's rows, or for lack of a chain, on every store.
    case willFail

    private static let order: [ReleaseVerdict] = [.pass, .cannotDecide, .undeclaredChange, .willFail]
    private var rank: Int { Self.order.firstIndex(of: self) ?? 0 }

    /// Orders verdicts by how bad they are, so that a report's verdict is the `max()` of its parts.
    public static func < (a: ReleaseVerdict, b: ReleaseVerdict) -> Bool { a.rank < b.rank }
}

/// What happened to one store: its version, its chain, and what of its data blocks a step.
public struct StoreVerdict: Sendable, Hashable, Codable {
    /// The store's path, as given.
    public var store: String
    /// This store's verdict.
    public var verdict: ReleaseVerdict
    /// The version the store was found at, when it was.
    public var version: String?
    /// The chain to the target, as `from → to` labels (empty when it is at the target or has none).
    public var chain: [String] = []
    /// How many of the chain's steps ran on the temporary copy.
    public var stepsRun = 0
    /// The step (older, newer version) the store's data blocks, when one does.
    public var blockedAt: [String]?
    /// Every data condition of that step the rows break, counted.
    public var violations: [DataViolation] = []
    /// Why the store cannot be decided or will fail, when it is not a data condition (no chain, an
    /// unknown version, a failed check), in the library's words.
    public var reason: String?
}

/// The whole answer of a release check.
public struct ReleaseCheckReport: Sendable, Hashable, Codable {
    /// The worst verdict of the findings and the stores.
    public var verdict: ReleaseVerdict
    /// The plan (or model bundle, or SchemaMigrationPlan) checked.
    public var plan: String
    /// The version the chains lead to.
    public var target: String?
    /// The intent file read, when one was.
    public var intentFile: String?
    /// What was found without a store: lint's findings, undeclared losses and meaning changes, and the
    /// declared ones acknowledged.
    public var findings: [ReleaseFinding]
    /// Each store's verdict, in the order given.
    public var stores: [StoreVerdict]
}

/// Decides whether a release's migration can ship: the static findings (lint, undeclared data loss,
/// meaning changes), then each given store migrated — on a temporary copy, step by step, through the
/// migrator's real chain with its hooks — until a step refuses; the refusal's every broken data
/// condition is kept with its counts.
///
/// `instar plan` and `instar lint` judge the models; only the rows of a store the app shipped tell
/// whether a required attribute added without a default, or a new uniqueness constraint, will refuse.
public struct ReleaseCheck: Sendable {
    /// The migrator whose plan and registered hooks the runs use.
    public let migrator: Migrator

    /// A check of the migrator's plan; register Swift hooks on the migrator first.
    public init(migrator: Migrator) {
        self.migrator = migrator
    }

    /// Checks every store (copies in a temporary folder, removed afterwards) and sums up.
    /// - Parameters:
    ///   - findings: what was found without a store (``UndeclaredChanges``, lint).
    ///   - subject: what the report names as the plan.
    public func run(stores: [String], findings: [ReleaseFinding], subject: String, intentFile: String? = nil) -> ReleaseCheckReport {
        run(stores: stores, subject: subject, intentFile: intentFile) { _ in findings }
    }

    /// Checks every store, then asks for the static findings of the steps the stores' chains take (each
    /// step once, in the order met), or of nil when no store was given: a drop between two versions a
    /// chain goes straight past loses nothing on these stores.
    public func run(
        stores: [String], subject: String, intentFile: String? = nil, findings: (_ steps: [[String]]?) -> [ReleaseFinding]
    ) -> ReleaseCheckReport {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("instar-check-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var steps: [[String]] = []
        let verdicts = stores.map { store in
            let (verdict, chain) = check(store: store, scratch: scratch)
            steps += chain.filter { !steps.contains($0) }
            return verdict
        }
        let findings = findings(stores.isEmpty ? nil : steps) + assumedMappingFindings(stores.isEmpty ? nil : steps)
        let fromFindings: [ReleaseVerdict] = findings.map {
            switch $0.kind {
            case .lintError: .willFail
            case .undeclaredDataLoss, .meaningChange: .undeclaredChange
            case .lintWarning, .acknowledged: .pass
            }
        }
        return ReleaseCheckReport(
            verdict: (fromFindings + verdicts.map(\.verdict)).max() ?? .pass, plan: subject, target: migrator.plan.targetVersion,
            intentFile: intentFile, findings: findings, stores: verdicts)
    }

    /// One store: copied, its version found, then migrated one step at a time until the target or a refusal.
    /// Returns the store's verdict and its chain's steps as (from, to) names (empty when none was found).
    func check(store: String, scratch: URL) -> (StoreVerdict, [[String]]) {
        var steps: [[String]] = []
        let verdict = check(store: store, scratch: scratch, steps: &steps)
        return (verdict, steps)
    }

    private func check(store: String, scratch: URL, steps chainSteps: inout [[String]]) -> StoreVerdict {
        var verdict = StoreVerdict(store: store, verdict: .pass)
        let folder = scratch.appendingPathComponent(UUID().uuidString)
        let path = folder.appendingPathComponent("store.sqlite").path
        func words(_ error: any Error) -> String { MigrationTester.message(error, path: path, source: store) }
        let steps: [Step]
        do {
            try MigrationTester.copyStore(store, into: folder, at: path)
            let opened = try SQLiteStore.open(at: path, layout: try migrator.layout, readOnly: true)
            defer { try? opened.close() }
            let found: Model
            do {
                found = try migrator.currentVersion(of: opened).0
            } catch {
                verdict.verdict = .cannotDecide
                verdict.reason = "its version cannot be told: " + words(error)
                return verdict
            }
            verdict.version = found.name
            steps = try migrator.chain(for: opened, to: nil, from: found).chain.steps
        } catch {
            verdict.verdict = verdict.version == nil ? .cannotDecide : .willFail
            verdict.reason = (verdict.version == nil ? "it cannot be read: " : "no chain to the target: ") + words(error)
            return verdict
        }
        verdict.chain = steps.map(MigrationTester.label)
        chainSteps = steps.map { [$0.from, $0.to] }
        for step in steps {
            do {
                _ = try migrator.migrate(storeAt: path, to: step.to)
                verdict.stepsRun += 1
            } catch let error as StoreError where error.kind == .dataCondition {
                verdict.verdict = .willFail
                verdict.blockedAt = [step.from, step.to]
                verdict.violations = error.dataViolations
                if error.dataViolations.isEmpty { verdict.reason = words(error) }
                return verdict
            } catch let error as HookError where error.kind == .notDefined || error.kind == .commandsNotAllowed {
                // App code (a Swift hook, a command) decides what the step meets: it does not run here.
                verdict.verdict = .cannotDecide
                verdict.blockedAt = [step.from, step.to]
                verdict.reason = words(error)
                return verdict
            } catch let error as AssumedMappingError {
                // The app's migrator refuses it at launch as it is configured (unless it accepts them).
                verdict.verdict = .willFail
                verdict.blockedAt = [step.from, step.to]
                verdict.reason = error.description
                return verdict
            } catch {
                verdict.verdict = .willFail
                verdict.blockedAt = [step.from, step.to]
                verdict.reason = words(error)
                return verdict
            }
        }
        return verdict
    }
}

extension ReleaseCheck {
    /// The steps whose newer version writes an entity that rests on an assumed SwiftData type mapping
    /// and that no store can prove (new, or changed from the older version: a store written by SwiftData
    /// at the older version records another hash). The launch's migrator refuses such a step on every
    /// store (``AssumedMappingError``) unless the app accepts assumed mappings, as this check's migrator
    /// then does too. `steps` nil: every consecutive pair of versions up to the target.
    func assumedMappingFindings(_ steps: [[String]]?) -> [ReleaseFinding] {
        guard !migrator.acceptsAssumedMappings else { return [] }
        let plan = migrator.plan
        let pairs = steps ?? {
            let last = plan.targetVersion.flatMap(plan.index(of:)) ?? (plan.versions.count - 1)
            guard last > 0 else { return [] }
            return (1...last).map { [plan.versions[$0 - 1].name, plan.versions[$0].name] }
        }()
        var found: [ReleaseFinding] = []
        for pair in pairs where pair.count == 2 {
            guard let older = plan.versions.first(where: { $0.name == pair[0] }),
                let newer = plan.versions.first(where: { $0.name == pair[1] })
            else { continue }
            let recorded = older.versionHashes.entityHashes
            for item in Migrator.unprovenAssumptions(in: [newer], recorded: recorded) {
                found.append(
                    ReleaseFinding(
                        .lintError, check: "assumedMapping",
                        "\(item.entity).\(item.property): \(item.mapping) is assumed (no real store shows it), and no store at \(pair[0]) can prove it: the migration refuses this step at launch on every store",
                        hint: "check on a device that SwiftData opens a store migrated with it, then accept assumed mappings in the app (Migrator.acceptsAssumedMappings) and here (--accept-assumed-types); or declare the property with a type whose mapping a store shows",
                        location: newer.locations["\(item.entity).\(item.property)"], step: pair, entity: item.entity, property: item.property))
            }
        }
        return found
    }
}
