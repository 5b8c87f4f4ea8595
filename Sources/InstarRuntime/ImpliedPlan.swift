import Foundation
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarPlanner
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore

/// The plan an app's models imply when it has no plan file: what a Core Data app does at launch.
///
/// An app at launch and `instar migrate --model` build it the same way, so the chain a user checked
/// with `instar plan --model` is the chain the app runs:
/// - A bundle (`.xcdatamodeld` or a compiled `.momd`) stands for all its versions, with no order but
///   its current version (`Plan.versionsAreOrdered` false): any of them is a starting point.
///   Several references are versions in the order given (a bundle among them gives its versions in
///   name order).
/// - Mapping models found beside a bundle (`.xcmappingmodel`, Instar's `.mapping.yaml`) fix their
///   steps, and a chain walks them as apps that ship one per release do (``StepChoice``).
/// - When the store's version is none of the given versions, the store's own cached model
///   (`Z_MODELCACHE`) is the source, as Core Data migrates a store whose version has left the bundle;
///   only a cache whose hashes equal the store's recorded ones is taken.
///
/// ```swift
/// let models = Bundle.main.url(forResource: "App", withExtension: "momd")!
/// let implied = try ImpliedPlan(models: [models], store: storeURL, reading: .neededByStore)
/// let result = try await Migrator(plan: implied.plan).migrate(store: storeURL)
/// ```
///
/// ## Topics
/// ### Making one
/// - ``init(models:store:target:reading:)``
/// - ``init(exported:store:)``
/// ### What it found
/// - ``plan``
/// - ``notes``
/// - ``Note``
public struct ImpliedPlan: Sendable {
    /// The plan: the versions, their mapping models, the target and the store's layout.
    public var plan: Plan
    /// What was found on the way that a user should know (the store's cached model taken as its version, or
    /// refused); nothing here stops the plan.
    public var notes: [Note]

    /// Something found while making the plan.
    public enum Note: Sendable, Hashable, CustomStringConvertible {
        /// The store's version is not among the given versions; its own cached model is the source.
        case cachedModelIsTheSource(version: String, entities: Int)
        /// The store's cached model hashes otherwise than the store's metadata records, so it is not the
        /// model that wrote the store, and was not used (each difference in words).
        case cachedModelIsNotTheWriter(differences: [String])
        /// The store's cached model could not be read (why).
        case cachedModelUnreadable(String)

        public var description: String {
            switch self {
            case .cachedModelIsTheSource(let version, let entities):
                "the store's version is not in the bundle; its own cached model is the source "
                    + "(version '\(version)', \(entities) entities, from Z_MODELCACHE)"
            case .cachedModelIsNotTheWriter(let differences):
                "the store's version is not in the bundle, and its cached model is not the one that wrote it:\n"
                    + differences.map { "  - \($0)" }.joined(separator: "\n")
            case .cachedModelUnreadable(let reason):
                reason
            }
        }
    }

    /// The plan `models` imply for the store at `store` (nil for a plan without one, as for a dry run).
    ///
    /// - Parameters:
    ///   - models: one bundle (`.xcdatamodeld`, `.momd`), or model files and bundles whose versions are
    ///     taken in the order given; a model inside a bundle is named `App.xcdatamodeld#Version`.
    ///   - store: the store, whose own bookkeeping tells the layout and whose cached model may be the
    ///     source.
    ///   - target: the version to migrate to; by default the bundle's current version (the last
    ///     reference's, for several).
    ///   - reading: ``VersionReading/neededByStore`` to decode, from a compiled `.momd`, only the versions
    ///     the store's chain needs (an app at launch, `instar migrate`); by default every version.
    /// - Throws: ``ModelError`` for a model that cannot be read, ``ImpliedPlanError`` for versions given
    ///   twice or an unknown target.
    public init(models: [URL], store: URL? = nil, target: String? = nil, reading: VersionReading = .every) throws {
        if reading == .neededByStore, let needed = try Self.readingNeeded(models: models, store: store, target: target) {
            self = needed
            return
        }
        var versions: [Model] = []
        var current: String?
        for reference in models {
            if Self.isBundle(reference) {
                let bundle = try ModelBundle.read(xcdatamodeld: reference)
                versions += bundle.versions
                current = bundle.currentVersionName ?? bundle.versions.last?.name
            } else {
                let model = try ModelLoader.load(reference.path)
                versions.append(model)
                current = model.name
            }
        }
        var notes: [Note] = []
        if let store, let cached = Self.cachedSourceVersion(store: store, versions: versions, notes: &notes) {
            // Right before the target: Core Data migrates from the cache straight to the app's model. At
            // the front, the cache would pass as older than every version, and the cheapest chain could
            // run through an old version that lacks entities the store has (their rows deleted).
            let goal = target ?? current
            versions.insert(cached, at: versions.firstIndex { $0.name == goal } ?? versions.endIndex)
        }
        var seen = Set<String>()
        for version in versions where !seen.insert(version.name).inserted {
            throw ImpliedPlanError(.versionGivenTwice(version.name))
        }
        if let target, !versions.contains(where: { $0.name == target }) {
            throw ImpliedPlanError(
                .unknownTarget(target, suggestion: Spelling.suggestion(for: target, among: versions.map(\.name))))
        }
        let name = models.count == 1 ? models[0].deletingPathExtension().lastPathComponent : "models"
        var plan = Plan(
            name: name, file: models.map(\.path).joined(separator: " "), layout: Self.layout(of: store, models: models),
            versions: versions, target: target ?? current)
        // One bundle: its versions have no order but the current one (several references are
        // versions in the order given).
        plan.versionsAreOrdered = !(models.count == 1 && Self.isBundle(models[0]))
        // The app's mapping models beside its bundle fix their steps, also when the bundle's versions are
        // given one by one (a release's history, oldest first).
        var bundles: [URL] = []
        for reference in models {
            let url = reference.standardizedFileURL
            let bundle = Self.isBundle(url) ? url : url.deletingLastPathComponent()
            if Self.isBundle(bundle), !bundles.contains(bundle) { bundles.append(bundle) }
        }
        for bundle in bundles {
            let near = bundle.deletingLastPathComponent()
            let matched = PlanMappings.match(PlanMappings.discover(near: near), versions: versions)
            plan.mappings += matched.mappings
            plan.unmatchedMappings += matched.unmatched.map(\.description) + matched.unreadable.map(\.description)
        }
        self.plan = plan
        self.notes = notes
    }

    /// A plan read from a file (an app's export, ``PlanExport``) for the store at `store`: when the plan's
    /// versions have no order (a bundle's) and the store's version is none of them, the store's own
    /// cached model is added as the source, as ``init(models:store:target:reading:)`` adds it. Other plans are
    /// kept as they are.
    public init(exported plan: Plan, store: URL) {
        var plan = plan
        var notes: [Note] = []
        if !plan.versionsAreOrdered, let cached = Self.cachedSourceVersion(store: store, versions: plan.versions, notes: &notes),
            !plan.versions.contains(where: { $0.name == cached.name })
        {
            let goal = plan.targetVersion
            plan.versions.insert(cached, at: plan.versions.firstIndex { $0.name == goal } ?? plan.versions.endIndex)
        }
        self.plan = plan
        self.notes = notes
    }

    /// Whether a reference names a whole bundle (not one version of it).
    package static func isBundle(_ reference: URL) -> Bool {
        let path = reference.path
        return [".xcdatamodeld", ".xcdatamodeld/", ".momd", ".momd/"].contains { path.hasSuffix($0) }
    }

    /// The store's own cached model (`Z_MODELCACHE`) as the chain's source, when the store's version is
    /// none of the given versions. Only a cache whose computed hashes equal the store's
    /// `NSStoreModelVersionHashes` is taken: anything else is not the model that wrote the store.
    static func cachedSourceVersion(store url: URL, versions: [Model], notes: inout [Note]) -> Model? {
        guard FileManager.default.fileExists(atPath: url.path), let store = try? SQLiteStore.open(at: url.path, readOnly: true)
        else { return nil }
        defer { try? store.close() }
        guard let recorded = (try? store.metadata())?.entityHashes, !recorded.isEmpty,
            !versions.contains(where: { VersionHashes(model: $0).entityHashes == recorded })
        else { return nil }
        let cached: CachedStoreModel
        do {
            cached = try store.cachedModel()
        } catch {
            // Without a usable cache the store stays unknown, and the migration says so as before.
            if error.kind != .noCache { notes.append(.cachedModelUnreadable(error.description)) }
            return nil
        }
        let conflicts = cached.hashConflicts(with: recorded)
        guard conflicts.isEmpty else {
            notes.append(.cachedModelIsNotTheWriter(differences: conflicts))
            return nil
        }
        notes.append(.cachedModelIsTheSource(version: cached.model.name, entities: cached.model.entities.count))
        return cached.model
    }

    /// The store's own layout when it has bookkeeping; else Core Data's for Xcode models, Instar's otherwise.
    static func layout(of store: URL?, models: [URL]) -> String {
        if let store, FileManager.default.fileExists(atPath: store.path),
            let opened = try? SQLiteStore.open(at: store.path, readOnly: true)
        {
            defer { try? opened.close() }
            let recognised = (try? opened.withDatabase { db in try opened.layout.recognizes(db) }) ?? false
            if recognised { return opened.layout.name }
        }
        let xcode = models.map(\.path).contains {
            $0.hasSuffix(".xcdatamodel") || $0.contains(".xcdatamodeld#") || $0.contains(".momd#") || $0.hasSuffix(".mom")
        } || models.contains(where: isBundle)
        return (xcode ? LayoutName.coreData(frameworkVersion: nil) : LayoutName.instar).description
    }
}

/// Why the models given cannot make a plan.
public struct ImpliedPlanError: InstarError, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Sendable, Hashable {
        /// Two of the versions have this name (a bundle given together with one of its own versions).
        case versionGivenTwice(String)
        /// The target is none of the versions; a close spelling, if any.
        case unknownTarget(String, suggestion: String?)
        /// The store was not written through a merge of one version of each group of models.
        case notAMerge(store: String)
        /// The target is a version of none of the groups of models.
        case targetInNoGroup(String)
    }

    /// What is wrong.
    public var kind: Kind

    /// An error of this kind.
    package init(_ kind: Kind) { self.kind = kind }

    public var description: String {
        switch kind {
        case .versionGivenTwice(let name):
            "version '\(name)' is given twice: give each version once; a bundle stands for all of its versions"
        case .unknownTarget(let target, let suggestion):
            "the target '\(target)' is not one of the given versions; nothing was changed"
                + (suggestion.map { " (\($0))" } ?? "")
        case .notAMerge(let store):
            "\(store): the store was not written through a merge of one version of each group of models"
        case .targetInNoGroup(let target):
            "the target '\(target)' is not a version of any of the models; nothing was changed"
        }
    }
}
