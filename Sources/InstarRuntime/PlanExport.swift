import Foundation
import InstarCompiler
@_spi(Layouts) import InstarLayouts
import InstarMapping
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarPlanner
@_spi(Layouts) import InstarStore

/// Writes a plan as a folder an app adds to its resources and runs at launch with ``PlanFileReader``
/// and ``Migrator``: the plan file, each version as an Instar model file, each mapping model as an
/// Instar mapping file, and the hooks the app must register.
///
/// Why: an app ships compiled models (`.momd`) and compiled mapping models (`.cdm`), and a SwiftData
/// app's schemas exist only as Swift source; neither can be read at launch the way the command line
/// reads an Xcode bundle or Swift sources. The export is made where the sources are (in CI, or by
/// hand), checked by reading it back, and needs nothing else at launch: `.cdm` files are never read.
///
/// What is checked before anything is written: every model file reads back to the same version
/// hashes and the same tables, columns and indexes in the plan's layout; every mapping file reads
/// back to the same entity mappings and expressions. An export that would not run as its plan does is
/// refused (``PlanExportError``), and the folder is left as it was.
///
/// ## Topics
/// - ``write(_:to:)``
/// - ``Summary``
public enum PlanExport {
    /// What an export wrote.
    public struct Summary: Sendable {
        /// The plan file in the folder.
        public var planFile: URL
        /// The model files, one per version, in the plan's order.
        public var modelFiles: [URL]
        /// The mapping files, one per mapping model.
        public var mappingFiles: [URL]
        /// Swift hooks the plan's stages name (``Migrator/register(hook:_:)-(String,SwiftHook)``).
        public var swiftHooks: [String]
        /// Hooks the mapping models need (custom policies, expressions SQL cannot compute), to register
        /// with ``Migrator/register(mappingHook:_:)-(String,MappingSwiftHook)``.
        public var mappingHooks: [MappingHookRequirement]
    }

    /// Writes `plan` into `folder`, which must not exist yet (it is created whole, or not at all).
    public static func write(_ plan: Plan, to folder: URL) throws(PlanExportError) -> Summary {
        if FileManager.default.fileExists(atPath: folder.path) || (try? folder.checkResourceIsReachable()) == true
            || isSymbolicLink(folder)
        {
            throw PlanExportError(.exists, path: folder.path)
        }
        if let unknown = plan.unknownLayout { throw PlanExportError(.unknownLayout(unknown), path: plan.file) }
        let files = try render(plan)
        let staging = folder.deletingLastPathComponent()
            .appendingPathComponent(".\(folder.lastPathComponent).instar-export-\(UUID().uuidString.prefix(8))")
        do {
            for (relative, text) in files.texts {
                let url = staging.appendingPathComponent(relative)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url, options: .withoutOverwriting)
            }
            try check(staging: staging, against: plan)
            try FileManager.default.moveItem(at: staging, to: folder)
        } catch let error as PlanExportError {
            try? FileManager.default.removeItem(at: staging)
            throw error
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw PlanExportError(.cannotWrite(error.localizedDescription), path: folder.path)
        }
        return Summary(
            planFile: folder.appendingPathComponent("plan.yaml"), modelFiles: files.models.map { folder.appendingPathComponent($0) },
            mappingFiles: files.mappings.map { folder.appendingPathComponent($0) }, swiftHooks: files.swiftHooks,
            mappingHooks: files.mappingHooks)
    }

    /// The folder's files as text, by relative path.
    struct Files {
        var texts: [(String, String)] = []
        var models: [String] = []
        var mappings: [String] = []
        var swiftHooks: [String] = []
        var mappingHooks: [MappingHookRequirement] = []
    }

    static func render(_ plan: Plan) throws(PlanExportError) -> Files {
        var files = Files()
        var taken = Set<String>()
        for version in plan.versions {
            let path = "models/" + uniqueFileName(version.name, extension: "yaml", taken: &taken)
            files.models.append(path)
            files.texts.append((path, ModelFileWriter.yaml(version, comment: "Version '\(version.name)' of plan '\(plan.name)', exported by Instar.")))
        }
        for mapping in plan.mappings {
            let path = "mappings/" + uniqueFileName(mapping.model.name, extension: "mapping.yaml", taken: &taken)
            guard let destination = plan.versions.first(where: { $0.name == mapping.to }) else { continue }
            do {
                let comment = "Mapping model '\(mapping.model.name)' (\(mapping.from) → \(mapping.to)), exported by Instar."
                files.texts.append(
                    (path, try MappingFileWriter.yaml(mapping.model, source: mapping.from, destination: destination, comment: comment)))
            } catch {
                throw PlanExportError(.mappingUnwritable(error.description), path: path)
            }
            files.mappings.append(path)
            files.mappingHooks += mappingHooks(mapping, plan: plan)
        }
        files.swiftHooks = plan.hooks.compactMap { _, hook in if case .swift(let name) = hook { name } else { nil } }.sorted()
        files.texts.append(
            ("plan.yaml", PlanFileWriter.yaml(plan, models: files.models, mappings: files.mappings, comment: header(plan, files))))
        return files
    }

    /// The plan file's opening comment: where it came from and what the app must register.
    static func header(_ plan: Plan, _ files: Files) -> [String] {
        var lines = [
            "Exported by Instar from \(plan.file). Add this folder to the app's resources and, at launch:",
            "  let exported = try PlanFileReader.read(url: <this file's URL>)",
            "  let migrator = Migrator(plan: ImpliedPlan(exported: exported, store: storeURL).plan)",
            "  // then register the hooks below, and call migrator.migrate(store: storeURL)",
        ]
        if files.swiftHooks.isEmpty && files.mappingHooks.isEmpty {
            lines.append("Hooks to register: none.")
        } else {
            lines.append("Hooks to register:")
            lines += files.swiftHooks.map { "  migrator.register(hook: \"\($0)\") { context in … }" }
            lines += files.mappingHooks.map { "  migrator.register(mappingHook: \"\($0.name)\") { context in … }   // \($0.reason)" }
        }
        return lines
    }

    /// The hooks a mapping model needs, as the migration will name them.
    package static func mappingHooks(_ mapping: PlannedMapping, plan: Plan) -> [MappingHookRequirement] {
        guard let layout = LayoutRegistry.named(plan.layout), let from = plan.versions.first(where: { $0.name == mapping.from }),
            let to = plan.versions.first(where: { $0.name == mapping.to }),
            var compiler = try? MappingCompiler(mapping: mapping.model, from: from, to: to, layout: layout),
            let program = try? compiler.compile()
        else { return [] }
        return program.hooks
    }

    /// Reads the staged folder back and compares it with the plan it was written from.
    static func check(staging: URL, against plan: Plan) throws(PlanExportError) {
        let read: Plan
        do {
            read = try PlanFileReader.read(url: staging.appendingPathComponent("plan.yaml"))
        } catch {
            throw PlanExportError(.doesNotReadBack(error.description), path: staging.path)
        }
        let layout = LayoutRegistry.named(plan.layout)
        for (original, reread) in zip(plan.versions, read.versions) {
            guard original.name == reread.name, VersionHashes(model: original) == VersionHashes(model: reread) else {
                throw PlanExportError(.doesNotReadBack("version '\(original.name)' hashes otherwise once written"), path: staging.path)
            }
            if let layout, (try? layout.storageMap(for: original).schema) != (try? layout.storageMap(for: reread).schema) {
                throw PlanExportError(
                    .doesNotReadBack("version '\(original.name)' has other tables, columns or indexes once written"), path: staging.path)
            }
        }
        guard read.versions.count == plan.versions.count, read.versionsAreOrdered == plan.versionsAreOrdered,
            read.targetVersion == plan.targetVersion, read.stages == plan.stages, read.hooks == plan.hooks
        else {
            throw PlanExportError(.doesNotReadBack("the plan's versions, target, stages or hooks differ once written"), path: staging.path)
        }
        // Mapping models in the plan's order (several may share a pair, as an app splits one step).
        guard read.mappings.map({ "\($0.from) → \($0.to)" }) == plan.mappings.map({ "\($0.from) → \($0.to)" }) else {
            throw PlanExportError(.doesNotReadBack("the mapping models' pairs differ once written"), path: staging.path)
        }
        for (mapping, reread) in zip(plan.mappings, read.mappings) {
            var unused: [String] = []
            var receivable = mapping.model
            if let destination = plan.versions.first(where: { $0.name == mapping.to }) {
                receivable.entityMappings = mapping.model.entityMappings.map {
                    MappingFileWriter.receivable($0, in: destination, notes: &unused)
                }
            }
            let expected = summary(receivable)
            let written = summary(reread.model)
            guard written != expected else { continue }
            let difference = zip(expected, written).first { $0 != $1 }.map { "\($0.0) became \($0.1)" }
                ?? "\(expected.count) lines became \(written.count)"
            throw PlanExportError(
                .doesNotReadBack(
                    "mapping model '\(mapping.model.name)' (\(mapping.from) → \(mapping.to)) maps otherwise once written: \(difference)"),
                path: staging.path)
        }
    }

    /// What a mapping model does, as comparable text: each entity mapping's entities, filter, policy
    /// and every property's expression.
    static func summary(_ model: MappingModel) -> [String] {
        var lines = ["mapping model \(model.name)"]
        for mapping in model.entityMappings.sorted(by: { $0.name < $1.name }) {
            let entities = "\(mapping.sourceEntity ?? "-") → \(mapping.destinationEntity ?? "-")"
            let rules = "filter=\(mapping.filterText ?? "-") policy=\(mapping.customPolicyClass ?? "-")"
            lines.append("\(mapping.name) \(entities) \(mapping.kind.name) \(rules)")
            // A property without an expression keeps its default whether it is listed or not.
            let properties = (mapping.attributeMappings + mapping.relationshipMappings).sorted { $0.name < $1.name }
            for property in properties {
                if let expression = property.valueExpressionText { lines.append("  \(property.name) = \(expression)") }
            }
        }
        return lines
    }

    /// A file name for `name`: characters a file system or a resource bundle may not keep become `_`.
    static func uniqueFileName(_ name: String, extension ext: String, taken: inout Set<String>) -> String {
        let safe = String(name.unicodeScalars.map { scalar -> Character in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || " ._-".unicodeScalars.contains(scalar) ? Character(scalar) : "_"
        })
        var base = safe.trimmingCharacters(in: CharacterSet(charactersIn: " .")).isEmpty ? "version" : safe
        if base.hasPrefix(".") { base = "_" + base.dropFirst() }
        var candidate = "\(base).\(ext)"
        var number = 2
        while !taken.insert(candidate.lowercased()).inserted {
            candidate = "\(base) \(number).\(ext)"
            number += 1
        }
        return candidate
    }

    static func isSymbolicLink(_ url: URL) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) != nil
    }
}

/// Why an export was not written; the folder is left as it was.
public struct PlanExportError: InstarError, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// Something already exists at the folder's path (a folder, a file or a link).
        case exists
        /// A mapping model says something a mapping file cannot (why).
        case mappingUnwritable(String)
        /// The files, read back, would not be the plan (what differs): an Instar bug, reported rather
        /// than shipped.
        case doesNotReadBack(String)
        /// The file system refused (its reason).
        case cannotWrite(String)
        /// The plan names a layout that is neither built in nor registered: an export an app could not run.
        case unknownLayout(UnknownLayoutError)
    }

    /// What went wrong.
    public var kind: Kind
    /// The folder or file concerned.
    public var path: String

    /// An error of this kind about `path`.
    package init(_ kind: Kind, path: String) {
        self.kind = kind
        self.path = path
    }

    public var description: String {
        switch kind {
        case .exists: "\(path): something already exists here; the export writes a new folder"
        case .mappingUnwritable(let reason): "\(path): \(reason)"
        case .doesNotReadBack(let what): "\(path): the export does not read back as the plan (\(what)); nothing was written"
        case .cannotWrite(let reason): "\(path): cannot write the export: \(reason)"
        case .unknownLayout(let unknown): (unknown.location == nil ? "\(path): " : "") + "\(unknown); nothing was written"
        }
    }
}
