import Foundation
import InstarInference
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore
@_exported import InstarSwiftData

/// An Instar plan made from an app's SwiftData sources, and what SwiftData would refuse in it.
///
/// SwiftData checks a migration plan only when the app launches on a device, and then fails with a
/// bare error code; these checks run on the sources alone (in a test, in CI) and say which schema, stage,
/// entity or attribute is at fault and what to change: duplicate version checksums, `.lightweight` stages
/// it cannot infer, schemas no stages reach, and a store that matches no schema of the plan (134504). Sources
/// without a `SchemaMigrationPlan` are an unversioned app: the plan is the one step SwiftData infers at
/// launch, from the store's own model (`Z_MODELCACHE`) or the earlier sources, to the current schema.
///
/// Call ``check(sources:migrationPlan:store:classes:earlier:)``; ``plan`` is what `Migrator` runs.
public struct SwiftDataPlanCheck: Sendable {
    /// A note on how the sources were read or the plan chosen (`--migration-plan`, warnings counted).
    package enum Message: Sendable {
        /// A reader's error at its position (the command line adds flags that help).
        case diagnostic(SwiftDataDiagnostic)
        /// A note, in words.
        case note(String)

        /// The message in words, without the command line's hints.
        package var text: String {
            switch self {
            case .diagnostic(let diagnostic): diagnostic.description
            case .note(let text): text
            }
        }
    }

    /// The `SchemaMigrationPlan` read (or, for an unversioned app, the one inferred step standing for it).
    package let migrationPlan: SwiftDataMigrationPlan
    /// The plan to migrate with: the schemas as versions (pinned: SwiftData never skips one), `.custom`
    /// stages' closures as hooks named after them, in Core Data's layout.
    public let plan: Plan
    /// What SwiftData would refuse, with the fix; empty when its launch checks pass on the sources.
    public package(set) var findings: [SwiftDataFinding] = []
    /// The schema the store was written by, when a store was given and its hashes match one.
    public package(set) var storeSchema: String?
    /// Whether the plan is the one step SwiftData infers for an unversioned app (no SchemaMigrationPlan in
    /// the sources), from the store's own model (or the earlier sources) to the sources' schema.
    public package(set) var isInferred = false
    /// Whether the sources' plan was refused by the reader: the plan is empty and the findings say why.
    public package(set) var isRefused = false
    /// Notes on how the sources were read and the plan chosen, in order (warnings counted, the plan picked).
    public package(set) var notes: [String] = []

    /// The `SchemaMigrationPlan`'s qualified name (`SwiftDataInferredPlan` for an unversioned app's step).
    public var migrationPlanName: String { migrationPlan.name }
    /// Whether SwiftData's launch checks pass on the sources (and the store, when one was given).
    public var passed: Bool { findings.isEmpty }

    /// ``plan`` as an app ships it (`PlanExport.write(_:to:)`): for an unversioned app, its current schema
    /// with no order among versions, so that at launch `ImpliedPlan(exported:store:)` takes the store's own
    /// cached model (`Z_MODELCACHE`) as the source of the one step SwiftData would infer.
    public var exportablePlan: Plan {
        var plan = plan
        if isInferred { plan.versionsAreOrdered = false }
        return plan
    }

    package init(migrationPlan: SwiftDataMigrationPlan, plan: Plan) {
        self.migrationPlan = migrationPlan
        self.plan = plan
    }

    /// Reads an app's SwiftData sources, builds the plan its `SchemaMigrationPlan` describes (or, without
    /// one, the step SwiftData infers) and checks it as SwiftData would at launch.
    ///
    /// - Parameters:
    ///   - sources: Swift files or folders declaring the app's `@Model` classes, `VersionedSchema`s and plan.
    ///   - migrationPlan: The plan to use when the sources declare several (its name, bare or qualified).
    ///   - store: A store the app shipped: matched to a schema of the plan by its entity hashes (a
    ///     ``SwiftDataFinding/Kind/unknownModelVersion`` when none matches); for an unversioned app, its
    ///     own model (`Z_MODELCACHE`) is the source of the inferred step.
    ///   - classes: For an unversioned app, its `@Model` classes as its `Schema([...])` lists them.
    ///   - earlier: For an unversioned app, the sources the store shipped with: the inferred step's source.
    /// - Returns: The plan and the findings; without a store or earlier sources an unversioned app's
    ///   current schema is checked alone.
    /// - Throws: ``SwiftDataPlanCheckError`` when the sources cannot be read or make no plan.
    public static func check(
        sources: [URL], migrationPlan: String? = nil, store: URL? = nil, classes: [String]? = nil, earlier: [URL] = []
    ) throws(SwiftDataPlanCheckError) -> SwiftDataPlanCheck {
        var notes: [String] = []
        var checked: SwiftDataPlanCheck
        do {
            checked = try make(
                sources: sources.map(\.path), planName: migrationPlan, store: store?.path, classes: classes,
                earlier: earlier.map(\.path), currentOnly: true, hooks: { [:] }, report: { notes.append($0.text) })
            if let store, !checked.isInferred, !checked.isRefused { try checked.match(store: store.path) }
        } catch let error as SwiftDataPlanCheckError {
            var noted = SwiftDataPlanCheckError(error.reason, notes + error.messages, store: error.storeError)
            noted.plans = error.plans
            throw noted
        } catch {
            throw SwiftDataPlanCheckError(.invalidInput, notes + ["\(error)"])
        }
        checked.notes = notes + checked.notes
        return checked
    }

    /// Reads the sources and picks the migration plan (`planName`, or the only one). Sources without any
    /// plan are an unversioned app: one inferred step from `store`'s own model to the sources' schema
    /// (`classes`, else the sources' `Schema([...])`), as SwiftData migrates it. Notes and the reader's errors
    /// go to `report` as they arise; a failure's own message is in the error thrown.
    package static func make(
        sources: [String], planName: String?, store: String? = nil, classes: [String]? = nil, earlier: [String] = [],
        currentOnly: Bool = false, hooks: () throws -> [String: HookDefinition], report: (Message) -> Void
    ) throws -> SwiftDataPlanCheck {
        let read: SwiftDataSources
        do {
            read = try SwiftDataReader().read(paths: sources)
        } catch {
            throw SwiftDataPlanCheckError(.unreadable, [error.description])
        }
        // Errors and assumed mappings (a migration writing one is refused) in full; other warnings
        // (app-evaluated defaults, …) only counted: they do not change the plan, and `instar model
        // swiftdata` lists each at its position.
        let assumed = read.diagnostics.filter { if case .assumedMapping? = $0.finding { true } else { false } }
        for diagnostic in read.errors + assumed { report(.diagnostic(diagnostic)) }
        let warnings = read.diagnostics.count - read.errors.count - assumed.count
        if warnings > 0 { report(.note("note: \(warnings) other warning(s) reading the sources; 'instar model swiftdata' lists them")) }
        var candidates = read.plans.filter { planName == nil || $0.name == planName || $0.name.hasSuffix(".\(planName!)") }
        // Apps often keep each release's plan (V01 … V05): the one whose schemas include every other
        // plan's is the one the current app runs.
        if planName == nil, candidates.count > 1,
            let widest = candidates.first(where: { plan in candidates.allSatisfy { Set($0.schemas).isSubset(of: plan.schemas) } })
        {
            report(.note("note: \(candidates.count) SchemaMigrationPlans; using \(widest.name), whose schemas include every other's (choose with --migration-plan)"))
            candidates = [widest]
        }
        if !earlier.isEmpty, !read.plans.isEmpty {
            throw SwiftDataPlanCheckError(
                .invalidInput, ["--from-swiftdata goes with sources that declare no SchemaMigrationPlan: the plan's schemas are the versions"])
        }
        // A plan the reader refused is never read as "no plan" (the unversioned inference, which is not
        // what the app runs): when no readable plan is left (or the one named is refused), that is the
        // refusal. A readable plan beside a refused one (an app's separate downgrade plan) is still planned,
        // the refused one's errors reported above.
        let refused = read.refusedPlans.filter { planName == nil || $0.name == planName || $0.name.hasSuffix(".\(planName!)") }
        if let first = refused.first, candidates.isEmpty {
            return refusal(first, others: Array(refused.dropFirst()), readable: read.plans.map(\.name))
        }
        if !refused.isEmpty {
            report(.note("note: left out \(refused.map(\.name).joined(separator: ", ")) (refused above); choose a plan with --migration-plan <name>"))
        }
        if read.plans.isEmpty, planName == nil {
            return try makeUnversioned(
                read, sources: sources, storePath: store, classes: classes, hooks: hooks, earlier: earlier, currentOnly: currentOnly,
                report: report)
        }
        if candidates.count > 1, let store {
            let naming = try plansNamingStore(candidates, schemas: read.schemas, store: store, report: report)
            guard !naming.isEmpty else {
                var error = SwiftDataPlanCheckError(
                    .invalidInput,
                    ["\(store): its entity hashes are those of no schema of the \(candidates.count) SchemaMigrationPlans (\(candidates.map(\.name).joined(separator: ", ")))\n  hint: choose the plan that migrates it with --migration-plan <name>: its check says which schema is closest and how the store differs"])
                error.plans = candidates.map(\.name)
                throw error
            }
            candidates = naming
        }
        guard candidates.count == 1, let migrationPlan = candidates.first else {
            let names = read.plans.map(\.name)
            guard !candidates.isEmpty else {
                throw SwiftDataPlanCheckError(
                    .invalidInput,
                    ["no SchemaMigrationPlan\(planName.map { " named '\($0)'" } ?? "") in \(sources.joined(separator: ", ")) (found: \(names.isEmpty ? "none" : names.joined(separator: ", ")))\n  hint: give the sources that declare the plan and its VersionedSchemas"])
            }
            var error = SwiftDataPlanCheckError(
                .invalidInput,
                ["several SchemaMigrationPlans: \(candidates.map(\.name).joined(separator: ", "))"
                    + (store == nil ? "" : ", and the store's schema is in each of them")
                    + "\n  hint: choose one with --migration-plan <name>\(store == nil ? ", or give the store it migrates with --store" : "")"])
            error.plans = candidates.map(\.name)
            throw error
        }
        return try make(migrationPlan, schemas: read.schemas, hooks: try hooks())
    }

    /// Of several plans (an app with several containers), the ones with a schema whose entity hashes
    /// are the store's: the plan that migrates it (none when the store is at no schema of any).
    static func plansNamingStore(
        _ candidates: [SwiftDataMigrationPlan], schemas: [SwiftDataSchema], store: String, report: (Message) -> Void
    ) throws(SwiftDataPlanCheckError) -> [SwiftDataMigrationPlan] {
        let recorded = try recordedHashes(store)
        let byName = Dictionary(schemas.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let naming = candidates.filter { plan in
            plan.schemas.contains { byName[$0].map { $0.model.versionHashes.entityHashes == recorded } ?? false }
        }
        if naming.count == 1 {
            report(.note("note: \(candidates.count) SchemaMigrationPlans; using \(naming[0].name), whose schemas include the store's (choose with --migration-plan)"))
        }
        return naming
    }

    /// The plan of a `SchemaMigrationPlan` read from the sources, checked.
    package static func make(_ migrationPlan: SwiftDataMigrationPlan, schemas all: [SwiftDataSchema], hooks: [String: HookDefinition])
        throws(SwiftDataPlanCheckError) -> SwiftDataPlanCheck
    {
        var findings: [SwiftDataFinding] = []
        var versions: [Model] = []
        // The first schema of each name, as a scan finds it, without scanning the schemas for each one.
        let byName = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in migrationPlan.schemas {
            guard let schema = byName[name] else {
                findings.append(SwiftDataFinding(
                    kind: .unknownSchema, message: "the plan \(migrationPlan.name) lists \(name), which could not be read",
                    fix: "see the errors above; every schema of the plan must be readable", location: migrationPlan.location))
                continue
            }
            // A default the app computes at launch (`UUID()`, `Date()`) is one value for every row a
            // migration adds it to, as SwiftData gives it; evaluated once here.
            versions.append((try? LaunchDefaults.evaluated(schema.model)) ?? schema.model)
        }
        guard findings.isEmpty else {
            throw SwiftDataPlanCheckError(.invalidInput, findings.map(\.text))
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
        var result = SwiftDataPlanCheck(migrationPlan: migrationPlan, plan: plan)
        result.checkChecksums()
        result.checkStages()
        return result
    }

    /// The result for sources whose plan the reader refused: no versions, and one `refused-plan` finding
    /// per error (at the stage or declaration), so that `plan` and `lint` fail with them.
    package static func refusal(_ refused: RefusedMigrationPlan, others: [RefusedMigrationPlan], readable: [String]) -> SwiftDataPlanCheck {
        let stand = SwiftDataMigrationPlan(name: refused.name, schemas: [], stages: [], location: refused.location)
        var result = SwiftDataPlanCheck(
            migrationPlan: stand,
            plan: Plan(name: refused.name, file: refused.location.file, layout: LayoutName.coreData(frameworkVersion: nil).description, versions: []))
        result.isRefused = true
        let choose = readable.isEmpty ? "" : "; or choose a readable plan (\(readable.joined(separator: ", "))) with --migration-plan <name>"
        for plan in [refused] + others {
            let errors = plan.errors.isEmpty
                ? [SwiftDataDiagnostic(.error, "the plan could not be read", at: plan.location, subject: plan.name)] : plan.errors
            for error in errors {
                result.findings.append(SwiftDataFinding(
                    kind: .refusedPlan, message: "the SchemaMigrationPlan \(plan.name) is refused: \(error.message)",
                    fix: "fix the plan's `schemas` and `stages` as the message says\(choose); Instar does not fall back to inferring one step when the sources declare a plan",
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
    package static func hookName(_ closure: String, stage: SwiftDataMigrationStage, closure label: String) -> String {
        closure == "inline" ? "\(stage.fromVersion)→\(stage.toVersion).\(label)" : closure
    }

    /// SwiftData refuses a plan whose schemas share a version checksum ("Duplicate version checksums").
    package mutating func checkChecksums() {
        let checksums = plan.versions.map { VersionHashes(model: $0).versionChecksum }
        // The earlier schemas of each checksum, in order: the same pairs as comparing every two, in linear time.
        var earlier: [String: [Int]] = [:]
        for j in checksums.indices {
            defer { earlier[checksums[j], default: []].append(j) }
            for i in earlier[checksums[j]] ?? [] {
                findings.append(SwiftDataFinding(
                    kind: .duplicateChecksum,
                    message: "Duplicate version checksums: \(plan.versions[i].name) and \(plan.versions[j].name) have the same entities and hashes (\(checksums[j]))",
                    fix: "SwiftData refuses this plan at launch; change the schema (an attribute, or `hashModifier:`) or remove one of them and its stages",
                    location: migrationPlan.location))
            }
        }
    }

    /// Each `.lightweight` stage inferable; every schema reachable from every earlier one.
    package mutating func checkStages() {
        let names = plan.versions.map(\.name)
        let byName = Dictionary(plan.versions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var next: [String: Set<String>] = [:]
        for stage in migrationPlan.stages {
            guard let from = byName[stage.fromVersion], let to = byName[stage.toVersion] else {
                findings.append(SwiftDataFinding(
                    kind: .unknownSchema, message: "the stage \(stage.fromVersion) → \(stage.toVersion) names a schema the plan's `schemas` does not list",
                    fix: "add the schema to `schemas`, in order", location: stage.location))
                continue
            }
            next[from.name, default: []].insert(to.name)
            guard stage.kind == .lightweight else { continue }
            let diff = ModelDiff(from: from, to: to)
            for change in diff.blockingChanges {
                // Inferred: at the property (or entity) in the sources, since there is no stage to point at.
                let at = to.locations["\(change.entity).\(change.property ?? "")"] ?? to.locations[change.entity] ?? stage.location
                if isInferred {
                    findings.append(SwiftDataFinding(
                        kind: .notInferable,
                        message: "SwiftData cannot migrate the store to the current sources in one inferred step: \(change.subject): \(change.verdict.reason)",
                        fix: "introduce VersionedSchemas: the shipped schema (the store's) as V1, the current one as V2, and a SchemaMigrationPlan with `.custom(fromVersion: V1.self, toVersion: V2.self, willMigrate:didMigrate:)` that moves the data (or an intermediate schema so each stage makes one inferable change); `instar plan --swiftdata <sources> --store <shipped store> --scaffold <dir>` (or `--from-swiftdata <its sources>` for the store) writes them to start from",
                        location: at, versions: [from.name, to.name], entity: change.entity, property: change.property))
                    continue
                }
                findings.append(SwiftDataFinding(
                    kind: .notInferable,
                    message: "the lightweight stage \(from.name) → \(to.name) cannot be inferred: \(change.subject): \(change.verdict.reason)",
                    fix: "make it `.custom(fromVersion:toVersion:willMigrate:didMigrate:)` and move the data in willMigrate/didMigrate, or add an intermediate schema so each stage makes one inferable change",
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
                findings.append(SwiftDataFinding(
                    kind: .unreachable, message: "no stages lead from \(start) to \(later): a store at \(start) cannot be migrated",
                    fix: "add a stage from \(start) (or a schema it reaches) to the next schema, e.g. `.lightweight(fromVersion: \(start).self, toVersion: \(names[i + 1]).self)`",
                    location: migrationPlan.location, versions: [start, later]))
                break
            }
        }
    }

    /// Matches the store to a schema by its entity hashes; when none matches, names the closest schema
    /// and what differs (SwiftData's "Cannot use staged migration with an unknown model version", 134504).
    package mutating func match(store path: String) throws(SwiftDataPlanCheckError) {
        let store: SQLiteStore
        let metadata: StoreMetadata?
        let schema: StoreSchema
        do {
            store = try SQLiteStore.open(at: path, readOnly: true)
            metadata = try store.metadata()
            schema = try store.schema()
        } catch {
            throw SwiftDataPlanCheckError(.store, [], store: error)
        }
        defer { try? store.close() }
        guard let hashes = metadata?.entityHashes, !hashes.isEmpty else {
            throw SwiftDataPlanCheckError(.invalidInput, ["\(path): no Core Data metadata (Z_METADATA) with entity hashes\n  hint: give a store SwiftData wrote"])
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
            if let map, let table = map.entities[entity]?.table, let expected = map.schema.table(named: table), let real = schema.table(named: table) {
                let (want, have) = (Set(expected.columns.map(\.name)), Set(real.columns.map(\.name)))
                let columnOf = Dictionary(map.entities[entity]!.columns.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
                let missing = want.subtracting(have).sorted().map { columnOf[$0] ?? $0 }
                let extra = have.subtracting(want).sorted()
                if !missing.isEmpty { line += "; \(closest.name) has \(missing.joined(separator: ", ")) the store lacks" }
                if !extra.isEmpty { line += "; the store has columns \(extra.joined(separator: ", ")) \(closest.name) lacks" }
                if missing.isEmpty && extra.isEmpty { line += " (same columns: an attribute's type, optionality or a constraint changed)" }
            }
            details.append(line)
        }
        findings.append(SwiftDataFinding(
            kind: .unknownModelVersion,
            message: "the store \(path) matches no schema of \(migrationPlan.name) (SwiftData: \"Cannot use staged migration with an unknown model version\", 134504); closest is \(closest.name), edited after it shipped:\n    " + details.joined(separator: "\n    "),
            fix: "restore \(closest.name) as it shipped and put the edit in a new VersionedSchema with a stage to it",
            location: nil))
    }
}

extension SwiftDataFinding {
    /// `file:line:column: error: message` and the fix on a `hint:` line, as compilers print them.
    public var text: String {
        (location.map { "\($0): " } ?? "") + "error: \(message)\n  hint: \(fix)"
    }
}
