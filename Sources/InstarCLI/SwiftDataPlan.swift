import Foundation
import Instar
import InstarModelIO
import InstarSwiftData
import InstarLayouts

/// An Instar plan made from an app's `SchemaMigrationPlan`, and what SwiftData would refuse in it.
///
/// SwiftData checks a migration plan only when the app launches on a device, and then fails with a
/// bare error code; the checks here run on the sources alone, in CI, and say which schema, stage,
/// entity or attribute is at fault and what to change.
struct SwiftDataPlan {
    /// One thing SwiftData would refuse (or Instar cannot run), with the fix.
    struct Finding {
        /// `duplicate-checksum`, `not-inferable`, `unreachable`, `unknown-schema`, `unknown-model-version`,
        /// `refused-plan`.
        let kind: String
        let message: String
        let hint: String
        let location: SourceLocation?
        /// The schemas it is about, in order (a stage's two ends, or two schemas no stages connect).
        var versions: [String]? = nil
        /// The entity a change that cannot be inferred is about.
        var entity: String? = nil
        /// The property a change that cannot be inferred is about, when it is one property.
        var property: String? = nil

        var text: String {
            (location.map { "\($0): " } ?? "") + "error: \(message)\n  hint: \(hint)"
        }

        var json: SwiftDataProblemsJSON.Problem {
            SwiftDataProblemsJSON.Problem(
                kind: kind, message: message, hint: hint, location: location?.description, versions: versions, entity: entity,
                property: property)
        }
    }

    let migrationPlan: SwiftDataMigrationPlan
    let plan: Plan
    var findings: [Finding] = []
    /// The schema the `--store` was written by, when one was given and matched.
    var storeSchema: String?
    /// Whether the plan is the one step SwiftData infers for an unversioned app (no SchemaMigrationPlan
    /// in the sources), from the store's own model to the sources' schema.
    var isInferred = false
    /// Whether the sources' plan was refused by the reader (``refusal(_:others:readable:)``): the plan is
    /// empty and the findings say why.
    var isRefused = false

    /// Reads the sources and picks the migration plan (`name`, or the only one). Sources without any
    /// plan are an unversioned app: one inferred step from `store`'s own model to the sources' schema
    /// (`classes`, else the sources' `Schema([...])`), as SwiftData migrates it.
    static func make(
        sources: [String], planName: String?, hooksFile: String?, store: String? = nil, classes: [String]? = nil,
        earlier: [String] = [], currentOnly: Bool = false
    ) throws -> SwiftDataPlan {
        let read: SwiftDataSources
        do {
            read = try SwiftDataReader().read(paths: sources)
        } catch {
            printError(error.description)
            throw InstarExit.unreadable
        }
        // Errors in full; warnings (assumed mappings, app-evaluated defaults) only counted: they do not
        // change the plan, and `instar model swiftdata` lists each at its position.
        for diagnostic in read.errors { printError(ErrorHints.text(diagnostic)) }
        let warnings = read.diagnostics.count - read.errors.count
        if warnings > 0 { printError("note: \(warnings) warning(s) reading the sources; 'instar model swiftdata' lists them") }
        var candidates = read.plans.filter { planName == nil || $0.name == planName || $0.name.hasSuffix(".\(planName!)") }
        // Apps often keep each release's plan (V01 … V05): the one whose schemas include every other
        // plan's is the one the current app runs.
        if planName == nil, candidates.count > 1,
            let widest = candidates.first(where: { plan in candidates.allSatisfy { Set($0.schemas).isSubset(of: plan.schemas) } })
        {
            printError("note: \(candidates.count) SchemaMigrationPlans; using \(widest.name), whose schemas include every other's (choose with --migration-plan)")
            candidates = [widest]
        }
        if !earlier.isEmpty, !read.plans.isEmpty {
            printError("--from-swiftdata goes with sources that declare no SchemaMigrationPlan: the plan's schemas are the versions")
            throw InstarExit.invalidInput
        }
        // A plan the reader refused is never read as "no plan" (the unversioned inference, which is not
        // what the app runs): when no readable plan is left (or the one named is refused), that is the
        // refusal. A readable plan beside a refused one (an app's separate downgrade plan) is still planned,
        // the refused one's errors printed above.
        let refused = read.refusedPlans.filter { planName == nil || $0.name == planName || $0.name.hasSuffix(".\(planName!)") }
        if let first = refused.first, candidates.isEmpty {
            return refusal(first, others: Array(refused.dropFirst()), readable: read.plans.map(\.name))
        }
        if !refused.isEmpty {
            printError("note: left out \(refused.map(\.name).joined(separator: ", ")) (refused above); choose a plan with --migration-plan <name>")
        }
        if read.plans.isEmpty, planName == nil {
            return try makeUnversioned(
                read, sources: sources, storePath: store, classes: classes, hooks: try hooksFile.map(readHooks) ?? [:],
                earlier: earlier, currentOnly: currentOnly)
        }
        guard candidates.count == 1, let migrationPlan = candidates.first else {
            let names = read.plans.map(\.name)
            printError(
                candidates.isEmpty
                    ? "no SchemaMigrationPlan\(planName.map { " named '\($0)'" } ?? "") in \(sources.joined(separator: ", ")) (found: \(names.isEmpty ? "none" : names.joined(separator: ", ")))\n  hint: give the sources that declare the plan and its VersionedSchemas"
                    : "several SchemaMigrationPlans: \(names.joined(separator: ", "))\n  hint: choose one with --migration-plan <name>")
            throw InstarExit.invalidInput
        }
        return try make(migrationPlan, schemas: read.schemas, hooks: try hooksFile.map(readHooks) ?? [:])
    }

    static func make(_ migrationPlan: SwiftDataMigrationPlan, schemas all: [SwiftDataSchema], hooks: [String: HookDefinition]) throws -> SwiftDataPlan {
        var findings: [Finding] = []
        var versions: [Model] = []
        // The first schema of each name, as a scan finds it, without scanning the schemas for each one.
        let byName = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in migrationPlan.schemas {
            guard let schema = byName[name] else {
                findings.append(Finding(
                    kind: "unknown-schema", message: "the plan \(migrationPlan.name) lists \(name), which could not be read",
                    hint: "see the errors above; every schema of the plan must be readable", location: migrationPlan.location))
                continue
            }
            // A default the app computes at launch (`UUID()`, `Date()`) is one value for every row a
            // migration adds it to, as SwiftData gives it; evaluated once here.
            versions.append((try? LaunchDefaults.evaluated(schema.model)) ?? schema.model)
        }
        guard findings.isEmpty else {
            for finding in findings { printError(finding.text) }
            throw InstarExit.invalidInput
        }
        var stages: [CustomStage] = []
        var planHooks: [String: HookDefinition] = [:]
        for stage in migrationPlan.stages where stage.kind == .custom {
            let before = stage.willMigrate.map { hookName($0, stage: stage, closure: "willMigrate") }
            let after = stage.didMigrate.map { hookName($0, stage: stage, closure: "didMigrate") }
            for name in [before, after].compactMap({ $0 }) { planHooks[name] = hooks[name] ?? .swift(name) }
            stages.append(CustomStage(from: stage.fromVersion, to: stage.toVersion, before: before.map { [$0] } ?? [], after: after.map { [$0] } ?? []))
        }
        let plan = Plan(
            name: migrationPlan.name, file: migrationPlan.location.file, layout: LayoutName.coreData(frameworkVersion: nil).description,
            versions: versions, pinned: versions.map(\.name), stages: stages, hooks: planHooks)
        // Pinned: SwiftData runs the stages one after the other and never skips a schema, so neither does the chain.
        var result = SwiftDataPlan(migrationPlan: migrationPlan, plan: plan)
        result.checkChecksums()
        result.checkStages()
        return result
    }

    /// The result for sources whose plan the reader refused: no versions, and one `refused-plan` finding
    /// per error (at the stage or declaration), so that `plan` and `lint` fail (exit 1) with them.
    static func refusal(_ refused: RefusedMigrationPlan, others: [RefusedMigrationPlan], readable: [String]) -> SwiftDataPlan {
        let stand = SwiftDataMigrationPlan(name: refused.name, schemas: [], stages: [], location: refused.location)
        var result = SwiftDataPlan(
            migrationPlan: stand,
            plan: Plan(name: refused.name, file: refused.location.file, layout: LayoutName.coreData(frameworkVersion: nil).description, versions: []))
        result.isRefused = true
        let choose = readable.isEmpty ? "" : "; or choose a readable plan (\(readable.joined(separator: ", "))) with --migration-plan <name>"
        for plan in [refused] + others {
            let errors = plan.errors.isEmpty
                ? [SwiftDataDiagnostic(.error, "the plan could not be read", at: plan.location, subject: plan.name)] : plan.errors
            for error in errors {
                result.findings.append(Finding(
                    kind: "refused-plan", message: "the SchemaMigrationPlan \(plan.name) is refused: \(error.message)",
                    hint: "fix the plan's `schemas` and `stages` as the message says\(choose); Instar does not fall back to inferring one step when the sources declare a plan",
                    location: error.location, versions: Self.versions(of: error)))
            }
        }
        return result
    }

    /// The two schemas of a stage a diagnostic is about, when it says.
    private static func versions(of diagnostic: SwiftDataDiagnostic) -> [String]? {
        if case .stageGoesBackwards(_, let from, let to)? = diagnostic.finding { return [from, to] }
        return nil
    }

    /// A hook is named after its closure: a function's name (`prepare`), or for a closure literal the
    /// stage and the closure (`V1→V2.willMigrate`).
    static func hookName(_ closure: String, stage: SwiftDataMigrationStage, closure label: String) -> String {
        closure == "inline" ? "\(stage.fromVersion)→\(stage.toVersion).\(label)" : closure
    }

    /// `hooks.yaml`: `name: SQL text` or `name: [statements]`, the name as the summary shows it.
    static func readHooks(_ path: String) throws -> [String: HookDefinition] {
        do throws(ModelError) {
            let source = try YAMLSource.load(path: path)
            var walker = YAMLWalker(source: source)
            var hooks: [String: HookDefinition] = [:]
            for pair in walker.pairs(source.root, what: "the hooks file") {
                hooks[pair.key] = .sql(walker.stringList(pair.value, what: "hook '\(pair.key)' (SQL text or a list of statements)"))
            }
            if !walker.problems.isEmpty { throw ModelError(walker.problems) }
            return hooks
        } catch {
            printError(error.description)
            throw error.problems.allSatisfy { $0.kind == .unreadable } ? InstarExit.unreadable : InstarExit.invalidInput
        }
    }

    /// SwiftData refuses a plan whose schemas share a version checksum ("Duplicate version checksums").
    mutating func checkChecksums() {
        let checksums = plan.versions.map { VersionHashes(model: $0).versionChecksum }
        // The earlier schemas of each checksum, in order: the same pairs as comparing every two, in linear time.
        var earlier: [String: [Int]] = [:]
        for j in checksums.indices {
            defer { earlier[checksums[j], default: []].append(j) }
            for i in earlier[checksums[j]] ?? [] {
                findings.append(Finding(
                    kind: "duplicate-checksum",
                    message: "Duplicate version checksums: \(plan.versions[i].name) and \(plan.versions[j].name) have the same entities and hashes (\(checksums[j]))",
                    hint: "SwiftData refuses this plan at launch; change the schema (an attribute, or `hashModifier:`) or remove one of them and its stages",
                    location: migrationPlan.location))
            }
        }
    }

    /// Each `.lightweight` stage inferable; every schema reachable from every earlier one.
    mutating func checkStages() {
        let names = plan.versions.map(\.name)
        let byName = Dictionary(plan.versions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var next: [String: Set<String>] = [:]
        for stage in migrationPlan.stages {
            guard let from = byName[stage.fromVersion], let to = byName[stage.toVersion] else {
                findings.append(Finding(
                    kind: "unknown-schema", message: "the stage \(stage.fromVersion) → \(stage.toVersion) names a schema the plan's `schemas` does not list",
                    hint: "add the schema to `schemas`, in order", location: stage.location))
                continue
            }
            next[from.name, default: []].insert(to.name)
            guard stage.kind == .lightweight else { continue }
            let diff = ModelDiff(from: from, to: to)
            for change in diff.blockingChanges {
                // Inferred: at the property (or entity) in the sources, since there is no stage to point at.
                let at = to.locations["\(change.entity).\(change.property ?? "")"] ?? to.locations[change.entity] ?? stage.location
                if isInferred {
                    findings.append(Finding(
                        kind: "not-inferable",
                        message: "SwiftData cannot migrate the store to the current sources in one inferred step: \(change.subject): \(change.verdict.reason)",
                        hint: "introduce VersionedSchemas: the shipped schema (the store's) as V1, the current one as V2, and a SchemaMigrationPlan with `.custom(fromVersion: V1.self, toVersion: V2.self, willMigrate:didMigrate:)` that moves the data (or an intermediate schema so each stage makes one inferable change); `instar plan --swiftdata <sources> --store <shipped store> --scaffold <dir>` (or `--from-swiftdata <its sources>` for the store) writes them to start from",
                        location: at, versions: [from.name, to.name], entity: change.entity, property: change.property))
                    continue
                }
                findings.append(Finding(
                    kind: "not-inferable",
                    message: "the lightweight stage \(from.name) → \(to.name) cannot be inferred: \(change.subject): \(change.verdict.reason)",
                    hint: "make it `.custom(fromVersion:toVersion:willMigrate:didMigrate:)` and move the data in willMigrate/didMigrate, or add an intermediate schema so each stage makes one inferable change",
                    location: stage.location, versions: [from.name, to.name], entity: change.entity, property: change.property))
            }
        }
        // A schema with a stage to the next, whose successors all have one too, reaches every later schema:
        // only the others need a search (one per schema made the check quadratic in the schemas).
        var linkedOnward = [Bool](repeating: true, count: names.count + 1)
        for i in names.indices.reversed() {
            linkedOnward[i] = i + 1 == names.count || (next[names[i]]?.contains(names[i + 1]) == true && linkedOnward[i + 1])
        }
        for (i, start) in names.enumerated() where !linkedOnward[i] {
            var reached: Set<String> = [start]
            var frontier = [start]
            while let current = frontier.popLast() {
                for n in next[current, default: []] where reached.insert(n).inserted { frontier.append(n) }
            }
            for later in names[(i + 1)...] where !reached.contains(later) {
                findings.append(Finding(
                    kind: "unreachable", message: "no stages lead from \(start) to \(later): a store at \(start) cannot be migrated",
                    hint: "add a stage from \(start) (or a schema it reaches) to the next schema, e.g. `.lightweight(fromVersion: \(start).self, toVersion: \(names[i + 1]).self)`",
                    location: migrationPlan.location, versions: [start, later]))
                break
            }
        }
    }

    /// Matches the store to a schema by its entity hashes; when none matches, names the closest schema
    /// and what differs (SwiftData's "Cannot use staged migration with an unknown model version", 134504).
    mutating func matchStore(_ path: String) throws {
        let store: SQLiteStore
        let metadata: StoreMetadata?
        let schema: StoreSchema
        do {
            store = try SQLiteStore.open(at: path, readOnly: true)
            metadata = try store.metadata()
            schema = try store.schema()
        } catch {
            throw fail(error)
        }
        defer { try? store.close() }
        guard let hashes = metadata?.entityHashes, !hashes.isEmpty else {
            printError("\(path): no Core Data metadata (Z_METADATA) with entity hashes\n  hint: give a store SwiftData wrote")
            throw InstarExit.invalidInput
        }
        let scored = plan.versions.map { model -> (Model, [String]) in
            let mine = VersionHashes(model: model).entityHashes
            let differing = Set(mine.keys).union(hashes.keys).filter { mine[$0] != hashes[$0] }.sorted()
            return (model, differing)
        }
        if let exact = scored.first(where: { $0.1.isEmpty }) {
            storeSchema = exact.0.name
            return
        }
        guard let (closest, differing) = scored.min(by: { $0.1.count < $1.1.count }) else { return }
        var details: [String] = []
        let map = try? CoreDataLayout().storageMap(for: closest)
        for entity in differing {
            guard closest.entity(named: entity) != nil else {
                details.append("\(entity): in the store, not in \(closest.name)")
                continue
            }
            guard hashes[entity] != nil else {
                details.append("\(entity): in \(closest.name), not in the store")
                continue
            }
            var line = "\(entity): its version hash differs"
            if let table = map?.entities[entity]?.table, let expected = map?.schema.table(named: table), let real = schema.table(named: table) {
                let (want, have) = (Set(expected.columns.map(\.name)), Set(real.columns.map(\.name)))
                let columnOf = Dictionary(map!.entities[entity]!.columns.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
                let missing = want.subtracting(have).sorted().map { columnOf[$0] ?? $0 }
                let extra = have.subtracting(want).sorted()
                if !missing.isEmpty { line += "; \(closest.name) has \(missing.joined(separator: ", ")) the store lacks" }
                if !extra.isEmpty { line += "; the store has columns \(extra.joined(separator: ", ")) \(closest.name) lacks" }
                if missing.isEmpty && extra.isEmpty { line += " (same columns: an attribute's type, optionality or a constraint changed)" }
            }
            details.append(line)
        }
        findings.append(Finding(
            kind: "unknown-model-version",
            message: "the store \(path) matches no schema of \(migrationPlan.name) (SwiftData: \"Cannot use staged migration with an unknown model version\", 134504); closest is \(closest.name), edited after it shipped:\n    " + details.joined(separator: "\n    "),
            hint: "restore \(closest.name) as it shipped and put the edit in a new VersionedSchema with a stage to it",
            location: nil))
    }

    var summary: [String] {
        var lines = ["SwiftData plan \(migrationPlan.name): \(plan.versions.count) schema(s), \(migrationPlan.stages.count) stage(s)"]
        for stage in migrationPlan.stages {
            var line = "  \(stage.kind.rawValue) \(stage.fromVersion) → \(stage.toVersion)"
            if stage.kind == .custom {
                let hooks = plan.stages.first { $0.from == stage.fromVersion && $0.to == stage.toVersion }?.hooks ?? []
                line += hooks.isEmpty ? " (no closures)" : " hooks: " + hooks.map { name in
                    if case .sql? = plan.hooks[name] { return "\(name) (SQL)" }
                    return "\(name) (missing: give it as SQL with --hooks, or register it in Swift)"
                }.joined(separator: ", ")
            }
            lines.append(line)
        }
        if let storeSchema { lines.append("store: written by \(storeSchema)") }
        // Only the sources are checked here: the store's rows may still block a step (the risks below,
        // and `instar check`), so this line never says "passed" above them.
        lines.append(
            findings.isEmpty
                ? "SwiftData's launch checks on the sources: none fails (checksums distinct, lightweight stages inferable, every schema reachable); the store's data is judged under risks"
                : "SwiftData's launch checks on the sources: \(findings.count) problem(s)")
        return lines
    }
}

/// `instar plan --swiftdata --format json` when SwiftData would refuse the plan.
struct SwiftDataProblemsJSON: Codable, Sendable, Equatable {
    var plan: String
    var passed: Bool
    var problems: [Problem]

    /// One refusal, with the fix.
    struct Problem: Codable, Sendable, Equatable {
        /// `duplicate-checksum`, `not-inferable`, `unreachable`, `unknown-schema`, `unknown-model-version`,
        /// `refused-plan` (the sources' SchemaMigrationPlan could not be read, e.g. a stage goes backwards).
        var kind: String
        var message: String
        var hint: String
        /// file:line:column, when the problem has a place in the sources.
        var location: String?
        /// The schemas it is about, in order, when it is about schemas.
        var versions: [String]?
        /// The entity a change that cannot be inferred is about.
        var entity: String?
        /// The property a change that cannot be inferred is about.
        var property: String?
    }
}
