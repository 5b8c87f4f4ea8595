import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO
import Yams
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarLayouts

/// Reads plan files (YAML; JSON accepted). Paths in a plan resolve against the plan file's folder.
///
/// ```yaml
/// name: music
/// layout: instar
/// versions: [models/v1.yaml, models/v2.yaml, models/v3.yaml]
/// target: Music 3
/// pinned: [Music 2]
/// stages:
///   - from: Music 2
///     to: Music 3
///     before: [fillArtists]
/// hooks:
///   fillArtists:
///     sql: INSERT INTO "Artist" …
/// ```
public enum PlanFileReader {
    static let planKeys = [
        "name", "layout", "versions", "bundle", "order", "ordered", "target", "pinned", "stages", "hooks", "options",
        "mappings",
    ]
    static let stageKeys = ["from", "to", "before", "after"]
    static let hookKinds = ["sql", "batchedSQL", "command", "swift"]
    static let batchedKeys = ["table", "size", "sql"]
    static let optionKeys = ["secureDelete", "stepCost", "maxSkip"]

    /// Plan numbers feed the planner's cost sums and the executor's key ranges, where values out of
    /// these ranges would overflow (a trap) or make no sense; they are problems at their line instead.
    static let stepCostRange = 0...1_000_000_000_000
    static let maxSkipRange = 1...100_000
    static let maximumBatchSize = 1_000_000_000

    /// The whole number at `node` when it lies in `range`, else nil and a reported problem.
    static func bounded(_ node: Node, _ what: String, _ range: ClosedRange<Int>, _ walker: inout YAMLWalker) -> Int? {
        guard let value = walker.int(node, what: what) else { return nil }
        guard range.contains(value) else {
            walker.report(
                .invalidValue, "\(what) must be between \(range.lowerBound) and \(range.upperBound), not \(value)", at: node,
                key: what, value: String(value))
            return nil
        }
        return value
    }

    /// Reads a plan from a file URL, such as an app bundle's resource
    /// (`Bundle.main.url(forResource: "plan", withExtension: "yaml", subdirectory: "Migrations")`);
    /// versions, bundles and mapping models are found relative to it.
    public static func read(url: URL) throws(PlanError) -> Plan {
        try read(path: url.path)
    }

    /// Reads and validates the plan file at `path`, and every model and mapping model it names.
    ///
    /// - Throws: ``PlanError`` with every problem found, in the plan and in the models.
    public static func read(path: String) throws(PlanError) -> Plan {
        let source: YAMLSource
        do {
            source = try YAMLSource.load(path: path)
        } catch {
            throw PlanError(error.problems)
        }
        return try read(source)
    }

    static func read(_ source: YAMLSource) throws(PlanError) -> Plan {
        var walker = YAMLWalker(source: source)
        let folder = URL(fileURLWithPath: source.file).deletingLastPathComponent()
        let pairs = walker.pairs(source.root, what: "a plan file")
        walker.checkKeys(pairs, allowed: planKeys, what: "the plan")
        var plan = Plan(
            name: URL(fileURLWithPath: source.file).deletingPathExtension().lastPathComponent, file: source.file,
            versions: [])
        var locations: [String: SourceLocation] = [:]
        var versionPaths: [(String, Node)] = []
        var bundle: (String, Node)?
        var mappingPaths: [(String, Node)] = []
        var order: [String]?
        for pair in pairs {
            locations[pair.key] = source.location(of: pair.keyNode)
            let v = pair.value
            switch pair.key {
            case "name": plan.name = walker.string(v, what: "name") ?? plan.name
            case "layout":
                // Resolved where the plan meets the store's layout registry (the migrator, the dry run,
                // the `instar` command), which knows plug-in layouts too and refuses an unknown name at
                // this key's location (`locations["layout"]`); the planner never sees the registry.
                plan.layout = walker.string(v, what: "layout") ?? "instar"
            case "versions":
                guard let list = v.sequence else {
                    walker.report(.invalidValue, "versions must be a list of model files, oldest first", at: v)
                    continue
                }
                for item in list {
                    if let path = walker.string(item, what: "a version") {
                        locations["versions[\(versionPaths.count)]"] = source.location(of: item)
                        versionPaths.append((path, item))
                    }
                }
            case "bundle": bundle = walker.string(v, what: "bundle").map { ($0, v) }
            case "mappings": mappingPaths = walker.stringList(v, what: "mappings").map { ($0, v) }
            case "order": order = walker.stringList(v, what: "order")
            // `ordered: false`: the versions have no order but the target, as in an Xcode bundle (every
            // version a starting point, mapping models walked); what `instar export` writes for a bundle.
            case "ordered": plan.versionsAreOrdered = walker.bool(v, what: "ordered") ?? true
            case "target": plan.target = walker.string(v, what: "target")
            case "pinned": plan.pinned = walker.stringList(v, what: "pinned")
            case "stages":
                guard let list = v.sequence else {
                    walker.report(.invalidValue, "stages must be a list", at: v)
                    continue
                }
                for (i, item) in list.enumerated() {
                    if let stage = readStage(item, index: i, walker: &walker, locations: &locations) {
                        plan.stages.append(stage)
                    }
                }
            case "hooks":
                for entry in walker.pairs(v, what: "hooks") {
                    locations["hooks.\(entry.key)"] = source.location(of: entry.keyNode)
                    if let hook = readHook(entry.key, entry.value, walker: &walker) { plan.hooks[entry.key] = hook }
                }
            case "options":
                let options = walker.pairs(v, what: "options")
                walker.checkKeys(options, allowed: optionKeys, what: "options")
                for option in options {
                    switch option.key {
                    case "secureDelete":
                        let value = walker.string(option.value, what: "secureDelete")?.lowercased()
                        if let value, let mode = SecureDelete(rawValue: value) {
                            plan.options.secureDelete = mode
                        } else {
                            walker.report(.invalidValue, "secureDelete must be on, off or fast", at: option.value)
                        }
                    case "stepCost":
                        plan.options.stepCost = PlanFileReader.bounded(option.value, "stepCost", PlanFileReader.stepCostRange, &walker) ?? 1
                    case "maxSkip":
                        plan.options.maxSkip = PlanFileReader.bounded(option.value, "maxSkip", PlanFileReader.maxSkipRange, &walker) ?? 64
                    default: break
                    }
                }
            default: break
            }
        }
        // Versions: model files, or an Xcode bundle.
        var problems = walker.problems
        if !versionPaths.isEmpty && bundle != nil {
            problems.append(
                ModelProblem(
                    .invalidValue, "give either 'versions' or 'bundle', not both", location: locations["bundle"]))
        }
        let loaded = loadVersions(versionPaths.map { resolve($0.0, against: folder) })
        for ((path, node), result) in zip(versionPaths, loaded) {
            do {
                plan.versions.append(try result.get())
            } catch {
                problems.append(
                    contentsOf: error.problems.map { p in
                        var p = p
                        if p.kind == .unreadable {
                            p.message = "version '\(path)': " + p.message
                            p.location = source.location(of: node)
                            p.value = path
                        }
                        return p
                    })
            }
        }
        if let (path, node) = bundle {
            let resolved = resolve(path, against: folder)
            do {
                let models = try ModelBundle.read(xcdatamodeld: URL(fileURLWithPath: resolved))
                if let order {
                    for name in order {
                        if let model = models.version(named: name) {
                            plan.versions.append(model)
                        } else {
                            problems.append(
                                ModelProblem(
                                    .invalidValue, "the bundle has no version '\(name)'", location: locations["order"],
                                    hint: Spelling.suggestion(for: name, among: models.versions.map(\.name))))
                        }
                    }
                } else {
                    plan.versions = models.versions
                }
            } catch {
                problems += error.problems.isEmpty
                    ? [ModelProblem(.unreadable, "cannot read bundle '\(path)'", location: source.location(of: node))]
                    : error.problems
            }
        }
        if versionPaths.isEmpty && bundle == nil {
            problems.append(
                ModelProblem(
                    .missingKey, "the plan lists no versions", location: SourceLocation(file: source.file, line: 1),
                    hint: "add 'versions: [path/to/v1.yaml, …]' (oldest first) or 'bundle: Model.xcdatamodeld'"))
        }
        plan.locations = locations
        if problems.isEmpty {
            // Mapping models: those the plan lists must fit a pair; those beside a bundle may belong to
            // another bundle, so one that fits no pair is only noted.
            let listed = mappingPaths.map { URL(fileURLWithPath: resolve($0.0, against: folder)) }
            let listedMatch = PlanMappings.match(listed, versions: plan.versions)
            for error in listedMatch.unreadable {
                if case .invalidFile(let found) = error {
                    problems += found
                } else {
                    problems.append(ModelProblem(.unreadable, error.description, location: error.location))
                }
            }
            for error in listedMatch.unmatched {
                problems.append(
                    ModelProblem(
                        .invalidValue, error.description, location: locations["mappings"],
                        hint: "list a mapping model made between two of the plan's versions"))
            }
            plan.mappings = listedMatch.mappings
            if let (path, _) = bundle {
                let near = URL(fileURLWithPath: resolve(path, against: folder)).deletingLastPathComponent()
                let found = PlanMappings.discover(near: near).filter { url in !listed.contains { $0.path == url.path } }
                let matched = PlanMappings.match(found, versions: plan.versions)
                plan.mappings += matched.mappings.filter { m in !plan.mappings.contains { $0.from == m.from && $0.to == m.to } }
                plan.unmatchedMappings = matched.unmatched.map(\.description) + matched.unreadable.map(\.description)
            }
        }
        if problems.isEmpty { problems = PlanValidator.problems(in: plan) }
        if !problems.isEmpty { throw PlanError(problems) }
        return plan
    }

    static func resolve(_ path: String, against folder: URL) -> String {
        // Keep a bundle's "#version" suffix out of path resolution.
        if path.hasPrefix("/") { return path }
        return folder.appendingPathComponent(path).path
    }

    /// Versions read in batches that run on all cores (long histories have thousands of model files),
    /// each version sharing the entities it repeats unchanged from the versions before it
    /// (``EntityInterner``). Sharing batch by batch, not after reading them all, keeps the peak of a
    /// 3,000-version plan near what the shared models take, not what every file's own copy would.
    static func loadVersions(_ paths: [String]) -> [Result<Model, ModelError>] {
        let interner = EntityInterner()
        var loaded: [Result<Model, ModelError>] = []
        loaded.reserveCapacity(paths.count)
        for start in stride(from: 0, to: paths.count, by: versionBatch) {
            let batch = Array(paths[start..<min(start + versionBatch, paths.count)])
            let read = ParallelMap.map(batch) { path in
                Result { () throws(ModelError) -> Model in try ModelLoader.load(path) }
            }
            loaded += read.map { result in result.map { $0.sharingEntities(interner.intern) } }
        }
        return loaded
    }

    /// Model files read at once: enough to keep every core busy, few enough that their unshared
    /// copies stay a small part of the plan's memory.
    static let versionBatch = 32

    static func readStage(_ node: Node, index: Int, walker: inout YAMLWalker, locations: inout [String: SourceLocation])
        -> CustomStage?
    {
        let pairs = walker.pairs(node, what: "a stage")
        walker.checkKeys(pairs, allowed: stageKeys, what: "a stage")
        var stage = CustomStage(from: "", to: "")
        locations["stages[\(index)]"] = walker.source.location(of: node)
        for pair in pairs {
            locations["stages[\(index)].\(pair.key)"] = walker.source.location(of: pair.value)
            switch pair.key {
            case "from": stage.from = walker.string(pair.value, what: "from") ?? ""
            case "to": stage.to = walker.string(pair.value, what: "to") ?? ""
            case "before": stage.before = walker.stringList(pair.value, what: "before")
            case "after": stage.after = walker.stringList(pair.value, what: "after")
            default: break
            }
        }
        if stage.from.isEmpty || stage.to.isEmpty {
            walker.report(.missingKey, "a stage needs 'from' and 'to' versions", at: node)
            return nil
        }
        return stage
    }

    static func readHook(_ name: String, _ node: Node, walker: inout YAMLWalker) -> HookDefinition? {
        let pairs = walker.pairs(node, what: "hook '\(name)'")
        walker.checkKeys(pairs, allowed: hookKinds, what: "a hook")
        guard pairs.count == 1, let pair = pairs.first else {
            walker.report(
                .invalidValue, "hook '\(name)' must have exactly one kind", at: node,
                hint: "one of: \(hookKinds.joined(separator: ", "))")
            return nil
        }
        switch pair.key {
        case "sql":
            return .sql(walker.stringList(pair.value, what: "sql"))
        case "batchedSQL":
            let fields = walker.pairs(pair.value, what: "batchedSQL")
            walker.checkKeys(fields, allowed: batchedKeys, what: "batchedSQL")
            var table = "", sql = "", size = 1000
            for field in fields {
                switch field.key {
                case "table": table = walker.string(field.value, what: "table") ?? ""
                case "sql": sql = walker.string(field.value, what: "sql") ?? ""
                case "size": size = walker.int(field.value, what: "size") ?? 1000
                default: break
                }
            }
            if table.isEmpty || sql.isEmpty {
                walker.report(.missingKey, "batchedSQL needs 'table' and 'sql'", at: pair.value)
                return nil
            }
            if size <= 0 || size > Self.maximumBatchSize {
                walker.report(.invalidValue, "batch size must be between 1 and \(Self.maximumBatchSize)", at: pair.value)
                return nil
            }
            return .batchedSQL(table: table, sql: sql, batchSize: size)
        case "command":
            if let text = pair.value.scalar?.string {
                return .command(text.split(separator: " ").map(String.init))
            }
            return .command(walker.stringList(pair.value, what: "command"))
        case "swift":
            return walker.string(pair.value, what: "swift").map(HookDefinition.swift)
        default:
            return nil
        }
    }
}

/// Cross-checks of a plan's names: versions, stages, hooks, target.
enum PlanValidator {
    static func problems(in plan: Plan) -> [ModelProblem] {
        var problems: [ModelProblem] = []
        let names = plan.versions.map(\.name)
        var seen = Set<String>()
        for name in names where !seen.insert(name).inserted {
            var problem = ModelProblem(
                .duplicateEntity, "version '\(name)' is listed twice", location: plan.location("versions"),
                hint: "each version needs a distinct name (the model file's 'name', or its file name)")
            problem.value = name
            problems.append(problem)
        }
        func check(_ version: String, _ key: String) {
            if !names.contains(version) {
                var problem = ModelProblem(
                    .invalidValue, "unknown version '\(version)'", location: plan.location(key),
                    hint: (Spelling.suggestion(for: version, among: names).map { $0 + " " } ?? "")
                        + "versions: \(names.joined(separator: ", "))")
                problem.value = version
                problems.append(problem)
            }
        }
        // Names the journal records and the CLI prints, at their keys (NameRule: no control characters).
        func checkName(_ what: String, _ name: String, _ key: String) {
            guard let message = NameRule.violation(what, name) else { return }
            var problem = ModelProblem(.invalidName, message, location: plan.location(key), hint: NameRule.hint)
            problem.value = name
            problems.append(problem)
        }
        checkName("plan name", plan.name, "name")
        for hook in plan.hooks.keys.sorted() { checkName("hook name", hook, "hooks.\(hook)") }
        if let target = plan.target { check(target, "target") }
        for version in plan.pinned { check(version, "pinned") }
        for (i, stage) in plan.stages.enumerated() {
            check(stage.from, "stages[\(i)].from")
            check(stage.to, "stages[\(i)].to")
            if let a = plan.index(of: stage.from), let b = plan.index(of: stage.to), a == b {
                var problem = ModelProblem(
                    .invalidValue, "stage \(stage.from) → \(stage.to) goes nowhere: 'from' and 'to' are the same version",
                    location: plan.location("stages[\(i)]"),
                    hint: "a stage migrates from one version to a newer one; to run code without a schema change, add a version with a new hashModifier")
                problem.versions = [stage.from, stage.to]
                problems.append(problem)
            } else if let a = plan.index(of: stage.from), let b = plan.index(of: stage.to), a > b {
                var problem = ModelProblem(
                    .invalidValue, "stage \(stage.from) → \(stage.to) goes backwards",
                    location: plan.location("stages[\(i)]"), hint: "a stage goes from an older to a newer version")
                problem.versions = [stage.from, stage.to]
                problems.append(problem)
            }
            for hook in stage.hooks where plan.hooks[hook] == nil {
                var problem = ModelProblem(
                    .missingKey, "stage \(stage.from) → \(stage.to) names hook '\(hook)', which is not defined",
                    location: plan.location("stages[\(i)]"),
                    hint: (Spelling.suggestion(for: hook, among: Array(plan.hooks.keys)).map { $0 + " " } ?? "")
                        + "define it under 'hooks:'")
                problem.value = hook
                problems.append(problem)
            }
        }
        return problems
    }
}
