import InstarInference
@_spi(Layouts) import InstarModel

/// One problem `instar lint` found in a plan: how bad, what, where, and what to do about it.
package struct LintFinding: Sendable, Hashable, CustomStringConvertible {
    /// How bad a finding is: `instar lint` exits with status 1 when there is an error; warnings alone pass.
    package enum Severity: String, Sendable, Hashable {
        /// The plan cannot do what it says: a chain is missing, or a step fails at run time.
        case error
        /// The plan works but probably not as intended.
        case warning
    }

    /// Which check fired; stable identifiers for scripts (`--format json`).
    package enum Check: String, Sendable, Hashable, CaseIterable {
        /// The plan file itself is invalid (the reader's problems: unknown versions, undefined hooks,
        /// stages going backwards or nowhere, syntax).
        case invalidPlan
        /// Some version (at least the oldest) has no chain to the target.
        case unreachableTarget
        /// Two stages for the same pair of versions.
        case duplicateStage
        /// A stage that no chain can take, because a chain must stop at a version inside it.
        case unreachableStage
        /// A custom stage whose step, between its hooks, cannot be inferred.
        case customStageNotInferable
        /// Versions that Core Data cannot tell apart.
        case duplicateChecksum
        /// An attribute or entity removed and a similar one added, without a renaming identifier.
        case probableRename
        /// A hook no stage names.
        case unusedHook
        /// A hook that runs an external program.
        case commandHook
        /// Raw SQL of an adopted database (a view, trigger, raw table) that names a table or column
        /// the step renames or drops.
        case rawSQLReference
        // `--cloudkit` (``CloudKitLint``): what Core Data with CloudKit refuses or cannot sync.
        /// An entity with a uniqueness constraint.
        case cloudKitUniqueConstraint
        /// An attribute of type Undefined or Object ID.
        case cloudKitUnsupportedType
        /// A stored attribute that is required and has no default value.
        case cloudKitRequiredAttribute
        /// A relationship that is not optional.
        case cloudKitRequiredRelationship
        /// A relationship without an inverse.
        case cloudKitMissingInverse
        /// A relationship with the Deny delete rule.
        case cloudKitDenyDeleteRule
        /// An ordered to-many relationship.
        case cloudKitOrderedRelationship
        /// After release: an entity, attribute or relationship removed (or made transient).
        case cloudKitRemoved
        /// After release: an entity, attribute or relationship renamed.
        case cloudKitRenamed
        /// After release: an attribute's type, or a relationship's destination or cardinality, changed.
        case cloudKitTypeChanged
        /// After release: an entity moved to another hierarchy (its CloudKit record type changes).
        case cloudKitHierarchyChanged
    }

    /// How bad it is.
    package var severity: Severity
    /// Which check found it.
    package var check: Check
    /// What is wrong, in a sentence.
    package var message: String
    /// Where in the plan (or in a model) it is.
    package var location: SourceLocation
    /// What to do about it, when there is something to say.
    package var hint: String?
    /// The versions it is about, in the order the message names them: a stage's or a gap's ends, the
    /// versions sharing a checksum. Facts beside the message, so that tools and tests need not parse it.
    package var versions: [String] = []
    /// For a step rule: what the step does wrong, without the step and release it is seen on (the
    /// same removal seen from several released versions has one statement).
    package var statement: String?
    /// The changes that make a step not inferable (for an unreachable target or a custom stage).
    package var blocking: [Change] = []
    /// The entity concerned (by its newer name), when there is one.
    package var entity: String?
    /// The property concerned, when there is one.
    package var property: String?
    /// The hook concerned, when there is one.
    package var hook: String?
    /// For an unreachable target: the versions it strands (those with no chain to the target), in
    /// the plan's order.
    package var stranded: [String] = []
    /// For a stage declared twice: where the first declaration is.
    package var earlier: SourceLocation?
    /// For a stage no chain can take: the stops inside it that split it.
    package var stopsInside: [StageStop] = []
    /// For a probable rename: what the step drops, by the older version's names.
    package var dropped: Warning.DroppedData?
    /// For a CloudKit uniqueness-constraint finding: the constraint's properties.
    package var constraint: [String] = []
    /// For a CloudKit model rule that several versions break: how many versions older than the one it
    /// is reported at break it too.
    package var alsoInOlderVersions = 0
    /// For ``Check/invalidPlan``: the value the reader's problem is about (an unknown version or hook),
    /// when there is one.
    package var value: String?

    /// A place where every chain stops, inside a stage that therefore is never taken.
    package enum StageStop: Sendable, Hashable, CustomStringConvertible {
        /// A pinned version.
        case pinned(String)
        /// The end of another stage, from `from` to `to`.
        case stage(from: String, to: String)

        package var description: String {
            switch self {
            case .pinned(let version): "pinned version '\(version)'"
            case .stage(let from, let to): "stage \(from) → \(to)"
            }
        }
    }

    /// A finding.
    package init(_ severity: Severity, _ check: Check, _ message: String, location: SourceLocation, hint: String? = nil) {
        self.severity = severity
        self.check = check
        self.message = message
        self.location = location
        self.hint = hint
    }

    /// This finding with its facts set; the checks build the message and the facts side by side.
    func about(
        versions: [String] = [], blocking: [Change] = [], entity: String? = nil, property: String? = nil,
        hook: String? = nil
    ) -> LintFinding {
        var finding = self
        (finding.versions, finding.blocking, finding.hook) = (versions, blocking, hook)
        (finding.entity, finding.property) = (entity, property)
        return finding
    }

    /// `file:line:col: warning: message` and an indented `hint:` line, as compilers print them.
    package var description: String {
        "\(location): \(severity.rawValue): \(message)" + (hint.map { "\n  hint: \($0)" } ?? "")
    }
}

/// The checks behind `instar lint`: everything that can be known about a plan without a store.
///
/// Pure: reads the plan's versions and computes diffs, never touches a file. The plan reader already
/// rejects unknown versions, undefined hooks and stages that go backwards or nowhere; `check` reports
/// those too (for plans built in code), then looks for what the reader cannot see:
///
/// - a target that some version cannot reach (each blocking pair, with the changes that block it);
/// - custom stages whose own step is not inferable, declared twice, or that no chain can take;
/// - versions with identical version checksums;
/// - attributes or entities removed and re-added without a renaming identifier;
/// - hooks that no stage uses, and command hooks (which need `--allow-commands`).
package enum PlanLint {
    /// Runs every check on the plan; findings come in the order of the checks, not sorted by severity.
    package static func check(_ plan: Plan) -> [LintFinding] {
        check(plan, graph: VersionGraph(plan: plan, costModel: NominalCostModel()))
    }

    /// ``check(_:)`` on a graph of the plan the caller made (tests count the diffs it infers).
    package static func check(_ plan: Plan, graph: VersionGraph) -> [LintFinding] {
        var findings = PlanValidator.problems(in: plan).map(finding(from:))
        guard !plan.versions.isEmpty else {
            findings.append(
                LintFinding(
                    .error, .invalidPlan, "the plan lists no versions", location: plan.location("versions"),
                    hint: "add 'versions: [path/to/v1.yaml, …]' (oldest first) or 'bundle: Model.xcdatamodeld'"))
            return sorted(findings)
        }
        findings += stageFindings(plan, graph)
        findings += reachability(plan, graph)
        findings += duplicateChecksums(plan, graph)
        findings += probableRenames(plan, graph)
        findings += hookFindings(plan)
        findings += rawSQLReferences(plan, graph)
        return sorted(findings)
    }

    /// A plan file that could not be read, as findings (so `lint` prints them in its own format).
    package static func findings(for error: PlanError) -> [LintFinding] {
        error.problems.map(finding(from:))
    }

    static func finding(from problem: ModelProblem) -> LintFinding {
        var subject: [String] = []
        if let entity = problem.entity { subject.append("entity '\(entity)'") }
        if let property = problem.property { subject.append("property '\(property)'") }
        let prefix = subject.isEmpty ? "" : subject.joined(separator: ", ") + ": "
        var finding = LintFinding(
            .error, .invalidPlan, prefix + problem.message, location: problem.location ?? SourceLocation(file: ""),
            hint: problem.hint
        ).about(versions: problem.versions)
        finding.value = problem.value
        return finding
    }

    /// Errors first within a line; otherwise in file order, then in the order the checks ran.
    package static func sorted(_ findings: [LintFinding]) -> [LintFinding] {
        findings.enumerated().sorted { a, b in
            let ka = (a.element.location.file, a.element.location.line ?? 0, a.element.location.column ?? 0, a.offset)
            let kb = (b.element.location.file, b.element.location.line ?? 0, b.element.location.column ?? 0, b.offset)
            return ka < kb
        }.map(\.element)
    }

    // MARK: - Locations

    /// Where version `i` is listed: its entry under `versions:`, else the `versions`/`bundle` key.
    static func versionLocation(_ plan: Plan, _ i: Int) -> SourceLocation {
        plan.locations["versions[\(i)]"] ?? plan.locations["versions"] ?? plan.locations["bundle"]
            ?? plan.versions[i].source.map { SourceLocation(file: $0) } ?? plan.location("versions")
    }

    static func stageLocation(_ plan: Plan, _ i: Int) -> SourceLocation {
        plan.locations["stages[\(i)]"] ?? plan.location("stages")
    }

    static func line(_ location: SourceLocation) -> String {
        location.line.map { "line \($0)" } ?? location.file
    }

    /// `Entity.property: reason` for the first blocking changes, and how many more there are.
    static func blockingSummary(_ changes: [Change], limit: Int = 3) -> String {
        let shown = changes.prefix(limit).map { "\($0.subject): \($0.verdict.reason)" }
        let more = changes.count > limit ? "; and \(changes.count - limit) more" : ""
        return shown.joined(separator: "; ") + more
    }

    // MARK: - Stages

    static func stageFindings(_ plan: Plan, _ graph: VersionGraph) -> [LintFinding] {
        var findings: [LintFinding] = []
        var firstStage: [String: Int] = [:]
        let targetIndex = plan.targetVersion.flatMap(graph.index(of:)) ?? plan.versions.count - 1
        let stops = StopsInside(plan, graph, targetIndex: targetIndex)
        for (i, stage) in plan.stages.enumerated() {
            guard let a = graph.index(of: stage.from), let b = graph.index(of: stage.to), a < b else { continue }
            let arrow = "\(stage.from) → \(stage.to)"
            // Declared twice: the graph takes the first, so the second one's hooks never run.
            let key = "\(a)→\(b)"
            if let first = firstStage[key] {
                var finding = LintFinding(
                    .error, .duplicateStage,
                    "stage \(arrow) is declared twice (first at \(line(stageLocation(plan, first)))); only the first one's hooks run",
                    location: stageLocation(plan, i),
                    hint: "merge the two stages into one: list every hook under its 'before:' or 'after:'"
                ).about(versions: [stage.from, stage.to])
                finding.earlier = stageLocation(plan, first)
                findings.append(finding)
                continue
            }
            firstStage[key] = i
            // The step between the hooks is still an inferred migration.
            let diff = graph.diff(a, b)
            if !diff.isInferable {
                let blocking = diff.blockingChanges
                findings.append(
                    LintFinding(
                        .error, .customStageNotInferable,
                        "custom stage \(arrow) cannot run: its schema change is not inferable (\(blocking.count) blocking change(s): \(blockingSummary(blocking)))",
                        location: stageLocation(plan, i),
                        hint:
                            "hooks run before and after an inferred migration and cannot replace it: split it into \(stage.from) → \(stage.from)′ → \(stage.from)″: in \(stage.from)′ add the new shape beside the old one (for example a temporary attribute), fill it in this stage's 'after' hook, and in \(stage.from)″ drop the old one (a renaming identifier carries the new one to its final name)"
                    ).about(versions: [stage.from, stage.to], blocking: blocking))
            }
            // A chain must stop at pinned versions and at the ends of other stages: one inside this
            // stage splits it, and the stage is never taken.
            guard b <= targetIndex, stops.any(inside: a, b) else { continue }
            var inside: [LintFinding.StageStop] = []
            for pinned in plan.pinned {
                if let p = graph.index(of: pinned), p > a, p < b { inside.append(.pinned(pinned)) }
            }
            for (j, other) in plan.stages.enumerated() where j != i {
                guard let c = graph.index(of: other.from), let d = graph.index(of: other.to), c < d, d <= targetIndex,
                    (c > a && c < b) || (d > a && d < b)
                else { continue }
                inside.append(.stage(from: other.from, to: other.to))
            }
            if !inside.isEmpty {
                var finding = LintFinding(
                    .error, .unreachableStage,
                    "stage \(arrow) is never taken: chains stop at \(inside.map(\.description).joined(separator: " and ")), which lies inside it, so its hooks never run",
                    location: stageLocation(plan, i),
                    hint: "stages must not overlap and must not span a pinned version: end the stage there, or split it in two"
                ).about(versions: [stage.from, stage.to])
                finding.stopsInside = inside
                findings.append(finding)
            }
        }
        return findings
    }

    /// Whether a pinned version or another stage's end lies strictly inside a stage, answered from sorted
    /// positions: the scan that names them, over every pinned version and stage, runs only when one does
    /// (a SwiftData plan pins every version, and scanning them for each stage was quadratic).
    struct StopsInside {
        private let sorted: [Int]

        init(_ plan: Plan, _ graph: VersionGraph, targetIndex: Int) {
            var positions = plan.pinned.compactMap(graph.index(of:))
            for stage in plan.stages {
                guard let c = graph.index(of: stage.from), let d = graph.index(of: stage.to), c < d, d <= targetIndex else { continue }
                positions += [c, d]
            }
            sorted = positions.sorted()
        }

        func any(inside a: Int, _ b: Int) -> Bool {
            // The first position above a, by binary search.
            var (low, high) = (0, sorted.count)
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] <= a { low = middle + 1 } else { high = middle }
            }
            return low < sorted.count && sorted[low] < b
        }
    }

    // MARK: - Reachability

    /// Every version older than the target (every other version of a bundle, which has no order) must
    /// have a chain to it: a store in the field may be at any of them. One finding per blocking pair, naming the versions it strands.
    static func reachability(_ plan: Plan, _ graph: VersionGraph) -> [LintFinding] {
        guard let target = plan.targetVersion, plan.index(of: target) != nil else { return [] }
        let finder = ChainFinder(graph: graph)
        var stranded: [String: (gap: NoChain.Gap, starts: [String])] = [:]
        var order: [String] = []
        var other: [LintFinding] = []
        let starts = plan.startingVersions(for: target)
        // An ordered plan's starts share their chains' tails: all of them at once, in linear time.
        let shared: [[NoChain.Gap]]? =
            plan.versionsAreOrdered
            ? graph.index(of: target).map { end in
                ChainFinder(graph: graph).gapsToTarget(from: starts.compactMap { graph.index(of: $0.name) }, to: end)
            } : nil
        for (n, version) in starts.enumerated() {
            let start = version.name
            // Typed: a bare `throw` would make the catch's error `any Error`, without gaps or message.
            do throws(NoChain) {
                if let shared {
                    if !shared[n].isEmpty { throw NoChain(from: start, to: target, gaps: shared[n], reason: .noInferableChain) }
                } else {
                    _ = try finder.cheapestChain(from: start, to: target)
                }
            } catch {
                if error.gaps.isEmpty {
                    other.append(
                        LintFinding(
                            .error, .unreachableTarget, "no chain leads from \(start) to the target \(target): \(error.message)",
                            location: plan.location("target")))
                }
                for gap in error.gaps {
                    let key = "\(gap.from)\u{0}\(gap.to)"
                    if stranded[key] == nil {
                        stranded[key] = (gap, [])
                        order.append(key)
                    }
                    stranded[key]?.starts.append(start)
                }
            }
        }
        let findings = order.compactMap { key -> LintFinding? in
            guard let (gap, starts) = stranded[key] else { return nil }
            let affected =
                starts.count == 1 && starts[0] == plan.versions[0].name
                ? "from the oldest version, \(starts[0])"
                : "from \(starts.joined(separator: ", "))"
            let location = graph.index(of: gap.to).map { versionLocation(plan, $0) } ?? plan.location("versions")
            var finding = LintFinding(
                .error, .unreachableTarget,
                "the target \(target) cannot be reached \(affected): \(gap.from) → \(gap.to) is not inferable (\(blockingSummary(gap.blocking, limit: 5)))",
                location: location,
                hint:
                    "a custom stage alone does not help, its schema change is still inferred: insert versions between \(gap.from) and \(gap.to) that make the change in inferable parts (add the new shape beside the old, fill it in a stage's hook, then drop the old); the diff of the two versions shows every change"
            ).about(versions: [gap.from, gap.to], blocking: gap.blocking)
            finding.stranded = starts
            return finding
        }
        return other + findings
    }

    // MARK: - Versions

    static func duplicateChecksums(_ plan: Plan, _ graph: VersionGraph) -> [LintFinding] {
        var groups: [String: [Int]] = [:]
        var order: [String] = []
        for (i, hashes) in graph.hashes.enumerated() {
            if groups[hashes.versionChecksum] == nil { order.append(hashes.versionChecksum) }
            groups[hashes.versionChecksum, default: []].append(i)
        }
        return order.compactMap { checksum -> LintFinding? in
            guard let members = groups[checksum], members.count > 1 else { return nil }
            let names = members.map { "'\(plan.versions[$0].name)'" }.joined(separator: ", ")
            return LintFinding(
                .warning, .duplicateChecksum,
                "versions \(names) have identical version checksums (\(checksum.prefix(8))…): Core Data cannot tell them apart",
                location: versionLocation(plan, members[1]),
                hint:
                    "Core Data's staged migration (NSStagedMigrationManager) identifies each stage's model by its version checksum and fails when two are identical; a store's metadata cannot say which of them it is at either. If the schema really changed in a way hashes ignore, give an entity or property of the newer version a 'hashModifier'; if nothing changed, drop the duplicate version"
            ).about(versions: members.map { plan.versions[$0].name })
        }
    }

    /// The steps whose diffs lint reads, as version indexes: consecutive versions of a plan, or each
    /// version of a bundle (which has no order) to the target, the step a store of it takes.
    static func lintedSteps(_ plan: Plan) -> [(Int, Int)] {
        guard plan.versions.count > 1 else { return [] }
        guard !plan.versionsAreOrdered, let target = plan.targetVersion.flatMap(plan.index(of:)) else {
            return (0..<(plan.versions.count - 1)).map { ($0, $0 + 1) }
        }
        return plan.versions.indices.filter { $0 != target }.map { ($0, target) }
    }

    static func probableRenames(_ plan: Plan, _ graph: VersionGraph) -> [LintFinding] {
        var findings: [LintFinding] = []
        for (k, n) in lintedSteps(plan) {
            let newer = plan.versions[n]
            for warning in graph.diff(k, n).warnings {
                guard warning.kind == .probableRename || warning.kind == .probableEntityRename else { continue }
                let location =
                    warning.entity.flatMap { newer.location(ofEntity: $0, property: warning.property) }
                    ?? versionLocation(plan, n)
                var finding = LintFinding(
                    .warning, .probableRename, "\(plan.versions[k].name) → \(newer.name): \(warning.message)",
                    location: location,
                    hint:
                        "without a renaming identifier ('renamedFrom:' in Instar model files, the Renaming ID in Xcode) Core Data and Instar treat it as a removal plus an addition, and the old values are dropped"
                ).about(versions: [plan.versions[k].name, newer.name], entity: warning.entity, property: warning.property)
                finding.dropped = warning.dropped
                findings.append(finding)
            }
        }
        return findings
    }

    // MARK: - Raw SQL

    /// Raw SQL naming what a step between consecutive versions renames or drops (``RawSQLReference``),
    /// at the newer version's `raw:` list, naming the object and the step.
    static func rawSQLReferences(_ plan: Plan, _ graph: VersionGraph) -> [LintFinding] {
        var findings: [LintFinding] = []
        for (k, n) in lintedSteps(plan) {
            let (older, newer) = (plan.versions[k], plan.versions[n])
            for reference in RawSQLReference.find(from: older, to: newer, diff: graph.diff(k, n)) {
                findings.append(
                    LintFinding(
                        .error, .rawSQLReference, "\(older.name) → \(newer.name): \(reference.message)",
                        location: newer.locations["raw"] ?? versionLocation(plan, n), hint: reference.hint))
            }
        }
        return findings
    }

    // MARK: - Hooks

    static func hookFindings(_ plan: Plan) -> [LintFinding] {
        let used = Set(plan.stages.flatMap(\.hooks))
        var findings: [LintFinding] = []
        for name in plan.hooks.keys.sorted() {
            guard let hook = plan.hooks[name] else { continue }
            let location = plan.location("hooks.\(name)")
            if !used.contains(name) {
                findings.append(
                    LintFinding(
                        .warning, .unusedHook, "hook '\(name)' is defined but no stage runs it", location: location,
                        hint: "name it in a stage's 'before:' or 'after:' list, or remove it"
                    ).about(hook: name))
            }
            if case .command(let arguments) = hook {
                let program = arguments.first.map { "'\($0)'" } ?? "an empty command"
                findings.append(
                    LintFinding(
                        .warning, .commandHook,
                        "hook '\(name)' runs an external program (\(program)): a migration runs it only when commands are allowed for the run",
                        location: location,
                        hint:
                            "a command runs outside the step's transaction, so a failed step cannot undo it: make it idempotent and allow commands for the run, or use an 'sql' or 'batchedSQL' hook, which commits or rolls back with the step"
                    ).about(hook: name))
            }
        }
        return findings
    }
}
