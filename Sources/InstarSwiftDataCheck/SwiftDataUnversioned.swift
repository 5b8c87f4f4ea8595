import Foundation
import InstarInference
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore
import InstarSwiftData

/// Sources without a `SchemaMigrationPlan` (an unversioned app: `ModelContainer(for: Trip.self)`,
/// `Schema([...])`): SwiftData migrates the store at launch in one inferred step, from the model the store
/// keeps of itself (`Z_MODELCACHE`) to the app's current schema. This builds that step as a plan, so that
/// it is checked and run as SwiftData's automatic migration would be.
extension SwiftDataPlanCheck {
    /// The version name of the app's current schema in an inferred plan.
    public static let currentSchemaName = "Schema"
    /// The version name of the earlier sources' schema in an inferred plan.
    public static let earlierSchemaName = "shipped"

    /// The plan of one inferred step to the sources' schema (`classes` when given, else the sources' one
    /// `Schema([...])`, else the newest VersionedSchema, else every `@Model` class) from the store at
    /// `storePath` (its cached model) or from an earlier version of the sources (`earlier`, checked against
    /// the store when one is given). Without either, `currentOnly` gives a plan of the current schema alone
    /// (what `lint` checks).
    package static func makeUnversioned(
        _ read: SwiftDataSources, sources: [String], storePath: String?, classes: [String]?, hooks: () throws -> [String: HookDefinition],
        earlier: [String] = [], currentOnly: Bool = false, report: (Message) -> Void
    ) throws -> SwiftDataPlanCheck {
        let schema = try currentSchema(read, sources: sources, classes: classes, report: report)
        if storePath == nil, earlier.isEmpty, currentOnly {
            report(.note(
                "note: an unversioned app (\(schema.modelClasses.count) model class(es), \(schema.location)): its current schema is checked alone;"
                    + " for the step SwiftData infers at launch, give the store the app shipped (--store) or that release's sources (--from-swiftdata)"))
            return inferredPlan(from: nil, to: try renamed(schema.model, to: currentSchemaName), at: schema.location, hooks: try hooks())
        }
        guard storePath != nil || !earlier.isEmpty else {
            throw SwiftDataPlanCheckError(.invalidInput, [
                "no SchemaMigrationPlan in \(sources.joined(separator: ", ")): an unversioned app (\(schema.modelClasses.count) model class(es)); SwiftData migrates its store in one inferred step from the model the store keeps"
                    + "\n  hint: give the store the app shipped (--store, or --fixtures for 'instar test'): its own model is the source of that step; or the sources it shipped with (--from-swiftdata)"
            ])
        }
        // The app's launch-time defaults (`= UUID()`, `= .now`) are one value, as SwiftData gives them.
        let evaluated = (try? LaunchDefaults.evaluated(schema.model)) ?? schema.model
        let target = try renamed(evaluated, to: currentSchemaName)
        var source: Model?
        if !earlier.isEmpty {
            source = try earlierModel(earlier, storePath: storePath, target: target, report: report)
        } else if let storePath {
            source = try storeModel(storePath, target: target)
        }
        let result = inferredPlan(from: source, to: target, at: schema.location, hooks: try hooks())
        if let source {
            let origin = earlier.isEmpty ? "the store's own model (\(source.name), Z_MODELCACHE)" : "the earlier sources (\(source.name))"
            report(.note("note: no SchemaMigrationPlan: one inferred step from \(origin) to the sources' schema, as SwiftData migrates an unversioned app"))
        }
        return result
    }

    /// The plan of the inferred step `source` → `target`, checked as SwiftData would infer it; just
    /// `target` when there is no step (the store is at it already, or lint).
    package static func inferredPlan(from source: Model?, to target: Model, at location: SourceLocation, hooks: [String: HookDefinition])
        -> SwiftDataPlanCheck
    {
        let versions = [source, target].compactMap { $0 }
        let stages = source.map { [SwiftDataMigrationStage.inferred(from: $0.name, to: target.name, at: location)] } ?? []
        let inferred = SwiftDataMigrationPlan.inferred(schemas: versions.map(\.name), stages: stages, at: location)
        let plan = Plan(
            name: inferred.name, file: location.file, layout: LayoutName.coreData(frameworkVersion: nil).description,
            versions: versions, pinned: versions.map(\.name), hooks: hooks)
        var result = SwiftDataPlanCheck(migrationPlan: inferred, plan: plan)
        result.isInferred = true
        result.checkStages()
        return result
    }

    /// The schema of the sources the store shipped with; nil when the store is at `target` already. A
    /// store that neither schema wrote is refused, with the entities whose hashes differ.
    package static func earlierModel(_ paths: [String], storePath: String?, target: Model, report: (Message) -> Void) throws -> Model? {
        let read: SwiftDataSources
        do {
            read = try SwiftDataReader().read(paths: paths)
        } catch {
            throw SwiftDataPlanCheckError(.unreadable, [error.description])
        }
        let schema = try currentSchema(read, sources: paths, classes: nil, report: report)
        let shipped = try renamed(schema.model, to: earlierSchemaName)
        guard let storePath else { return shipped }
        let recorded = try recordedHashes(storePath)
        if recorded == VersionHashes(model: target).entityHashes { return nil }
        let mine = VersionHashes(model: shipped).entityHashes
        guard recorded == mine else {
            let differing = Set(mine.keys).union(recorded.keys).filter { mine[$0] != recorded[$0] }.sorted()
            throw SwiftDataPlanCheckError(.invalidInput, [
                "\(storePath): the store was written by neither the sources nor the earlier sources (--from-swiftdata); entities whose version hash differs from the earlier sources': \(differing.joined(separator: ", "))"
                    + "\n  hint: give the sources of the release that wrote the store"
            ])
        }
        return shipped
    }

    /// The entity hashes the store's metadata records (empty without metadata).
    static func recordedHashes(_ path: String) throws(SwiftDataPlanCheckError) -> [String: Data] {
        do {
            let store = try SQLiteStore.open(at: path, readOnly: true)
            defer { try? store.close() }
            return try store.metadata()?.entityHashes ?? [:]
        } catch {
            throw SwiftDataPlanCheckError(.store, [], store: error)
        }
    }

    /// The app's current schema: the classes named, else the one `Schema([...])` of the sources, else the
    /// newest VersionedSchema, else every `@Model` class (what `ModelContainer(for:)` listing them all builds).
    package static func currentSchema(_ read: SwiftDataSources, sources: [String], classes: [String]?, report: (Message) -> Void) throws(SwiftDataPlanCheckError)
        -> SwiftDataSchema
    {
        if let classes {
            do {
                return try read.schema(ofModelClasses: classes)
            } catch {
                throw SwiftDataPlanCheckError(.invalidInput, error.diagnostics.map(\.description))
            }
        }
        let unversioned = read.schemas.filter { !$0.isVersioned }
        var distinct: [SwiftDataSchema] = []
        for schema in unversioned
        where !distinct.contains(where: { VersionHashes(model: $0.model) == VersionHashes(model: schema.model) }) {
            distinct.append(schema)
        }
        if distinct.count == 1 { return distinct[0] }
        if distinct.count > 1 {
            throw SwiftDataPlanCheckError(.invalidInput, [
                "the sources build \(distinct.count) different schemas: "
                    + distinct.map { "\($0.modelClasses.joined(separator: ", ")) at \($0.location)" }.joined(separator: "; ")
                    + "\n  hint: name the app's model classes with --classes A,B"
            ])
        }
        // VersionedSchemas without a plan (`Schema(versionedSchema: V2.self)`): SwiftData infers the step
        // to the newest one.
        let versioned = read.schemas.filter(\.isVersioned)
        if let newest = versioned.max(by: { versionOrder($0.versionIdentifier, $1.versionIdentifier) }) {
            // One VersionedSchema per model (`enum TitleSchemaV1`, `enum AuthorSchemaV1`, all 1.0.0): none is
            // the app's schema, which its `ModelContainer(for: …)` builds from their classes.
            let tied = versioned.filter { $0.versionIdentifier == newest.versionIdentifier }
            if tied.count > 1 {
                throw SwiftDataPlanCheckError(.invalidInput, [
                    "\(tied.count) VersionedSchemas share the newest version identifier \(newest.versionIdentifier) and no SchemaMigrationPlan orders them: "
                        + tied.map { "\($0.name) at \($0.location)" }.joined(separator: ", ")
                        + "; which classes the app's container holds is not in these sources"
                        + "\n  hint: add the file that creates the app's ModelContainer (`ModelContainer(for: A.self, B.self)`), or name its classes with --classes A,B"
                ])
            }
            report(.note("note: VersionedSchemas but no SchemaMigrationPlan: the current schema is the newest, \(newest.name) \(newest.versionIdentifier)"))
            return newest
        }
        guard !read.modelClasses.isEmpty else {
            throw SwiftDataPlanCheckError(.invalidInput, ["no @Model class in \(sources.joined(separator: ", "))\n  hint: give the sources that declare the app's models"])
        }
        report(.note("note: no Schema([...]) literal in the sources: the schema is every @Model class (\(read.modelClasses.count)); name the app's with --classes A,B"))
        do {
            return try read.schema(ofModelClasses: read.modelClasses)
        } catch {
            throw SwiftDataPlanCheckError(.invalidInput, error.diagnostics.map(\.description))
        }
    }

    /// The model that wrote the store, from its `Z_MODELCACHE`, checked against its recorded hashes; nil
    /// when the store is at `target` already.
    package static func storeModel(_ path: String, target: Model) throws(SwiftDataPlanCheckError) -> Model? {
        let store: SQLiteStore
        let recorded: [String: Data]
        do {
            store = try SQLiteStore.open(at: path, readOnly: true)
        } catch {
            throw SwiftDataPlanCheckError(.store, [], store: error)
        }
        defer { try? store.close() }
        do {
            recorded = try store.metadata()?.entityHashes ?? [:]
        } catch {
            throw SwiftDataPlanCheckError(.store, [], store: error)
        }
        guard !recorded.isEmpty else {
            throw SwiftDataPlanCheckError(.invalidInput, ["\(path): no Core Data metadata (Z_METADATA) with entity hashes\n  hint: give a store SwiftData wrote"])
        }
        if recorded == VersionHashes(model: target).entityHashes { return nil }
        let cached: CachedStoreModel
        do {
            cached = try store.cachedModel()
        } catch {
            throw SwiftDataPlanCheckError(.invalidInput, [
                "\(error.description)\n  hint: without the store's own model the step's source is unknown; give the sources of the schema that wrote the store as a VersionedSchema with a SchemaMigrationPlan"
            ])
        }
        let conflicts = cached.hashConflicts(with: recorded)
        guard conflicts.isEmpty else {
            throw SwiftDataPlanCheckError(.invalidInput, [
                "\(path): the store's cached model (Z_MODELCACHE) is not the model that wrote it:\n"
                    + conflicts.map { "  - \($0)" }.joined(separator: "\n")
                    + "\n  hint: give the sources of the schema that wrote the store as a VersionedSchema with a SchemaMigrationPlan"
            ])
        }
        return cached.model
    }

    /// Whether version identifier `a` (`1.2.0`) is older than `b`, number by number.
    package static func versionOrder(_ a: String, _ b: String) -> Bool {
        let (x, y) = (a.split(separator: ".").map { Int($0) ?? 0 }, b.split(separator: ".").map { Int($0) ?? 0 })
        return x.lexicographicallyPrecedes(y)
    }

    /// `model` under another version name, everything else kept.
    package static func renamed(_ model: Model, to name: String) throws(SwiftDataPlanCheckError) -> Model {
        do {
            return try Model(
                name: name, versionIdentifier: model.versionIdentifier, entities: model.entities, locations: model.locations.all,
                source: model.source, validatesDefaultValues: false, versionIdentifiers: model.versionIdentifiers,
                rawSQL: model.rawSQL)
        } catch {
            throw SwiftDataPlanCheckError(.invalidInput, [error.description])
        }
    }
}
