import Foundation
@_spi(Layouts) import Instar

/// What `instar inspect` says about the model a store keeps of itself (`Z_MODELCACHE`): its version,
/// its entities, and whether its hashes agree with the store's metadata and with a given bundle.
struct CachedModelReport {
    let cached: CachedStoreModel
    /// Disagreements between the cache's computed hashes and the store's `NSStoreModelVersionHashes`.
    let metadataConflicts: [String]
    /// Whether the store records any hashes to compare with.
    let hasMetadataHashes: Bool
    /// Disagreements with the version a given bundle matched (empty without a bundle or a match).
    var bundleConflicts: [String] = []

    init(cached: CachedStoreModel, metadata: StoreMetadata?) {
        self.cached = cached
        let recorded = metadata?.entityHashes ?? [:]
        hasMetadataHashes = !recorded.isEmpty
        metadataConflicts = recorded.isEmpty ? [] : cached.hashConflicts(with: recorded)
    }

    /// The cache agrees with the store's metadata: it may stand for the store's version.
    var agreesWithMetadata: Bool { hasMetadataHashes && metadataConflicts.isEmpty }

    /// Text lines: the version, the sizes, the hash verdict and each entity in one or two lines.
    var lines: [String] {
        var lines = verdictLines
        for entity in cached.model.entities { lines += Self.lines(of: entity) }
        return lines
    }

    /// The cache's version, its sizes, and whether it agrees with the metadata and a given bundle.
    var verdictLines: [String] {
        let model = cached.model
        var lines = [
            "cached model '\(model.name)' (Z_MODELCACHE: \(cached.compressedSize) bytes DEFLATE, "
                + "\(cached.archiveSize) bytes inflated), identifier "
                + (model.versionIdentifier.map { "'\($0)'" } ?? "none") + ", \(model.entities.count) entities"
        ]
        if !hasMetadataHashes {
            lines.append("the store records no entity hashes to compare the cache with")
        } else if metadataConflicts.isEmpty {
            lines.append("its version hashes equal the store's NSStoreModelVersionHashes (\(model.entities.count) entities)")
        } else {
            lines.append("its version hashes differ from the store's NSStoreModelVersionHashes:")
            lines += metadataConflicts.map { "  - \($0)" }
        }
        if !bundleConflicts.isEmpty {
            lines.append("it differs from the given model's matching version:")
            lines += bundleConflicts.map { "  - \($0)" }
        }
        return lines
    }

    /// One entity: its name, parent and abstract flag, then its attributes, relationships and constraints.
    static func lines(of entity: Entity) -> [String] {
        var lines: [String] = []
        var head = "  \(entity.name)"
        if let parent = entity.parent { head += " : \(parent)" }
        if entity.isAbstract { head += " (abstract)" }
        lines.append(head)
        if !entity.attributes.isEmpty {
            lines.append("    attributes: " + entity.attributes.map(Self.text(of:)).joined(separator: ", "))
        }
        if !entity.relationships.isEmpty {
            lines.append(
                "    relationships: "
                    + entity.relationships.map { r in
                        "\(r.name) → \(r.destination)\(r.isToMany ? "[]" : (r.isOptional ? "?" : ""))"
                            + (r.inverse.map { " inverse \($0)" } ?? "")
                    }.joined(separator: ", "))
        }
        if !entity.uniquenessConstraints.isEmpty {
            lines.append(
                "    unique: " + entity.uniquenessConstraints.map { "(\($0.joined(separator: ", ")))" }
                    .joined(separator: ", "))
        }
        return lines
    }

    static func text(of attribute: Attribute) -> String {
        var text = "\(attribute.name): \(attribute.type.modelFileName)\(attribute.isOptional ? "?" : "")"
        if attribute.isTransient { text += " transient" }
        if !attribute.elements.isEmpty {
            text += " {" + attribute.elements.map(text(of:)).joined(separator: ", ") + "}"
        }
        return text
    }
}

extension InspectCommand {
    /// `inspect --store S` without `--model`: the store described from its own cached model. Exit 0 when
    /// the cache's hashes equal the store's metadata, 1 when they differ, 66 when there is no cache.
    func runFromCache(_ opened: SQLiteStore) throws {
        let report: CachedModelReport
        let counts: [String: Int]
        do {
            let metadata = try opened.metadata()
            report = CachedModelReport(cached: try opened.cachedModel(), metadata: metadata)
            counts = try opened.rowCounts()
        } catch let error as StoreError {
            throw fail(error)
        } catch let error as ModelCacheError {
            printError(ErrorHints.text(error))
            throw error.kind == .noCache ? InstarExit.unreadable : InstarExit.invalidInput
        }
        let matched = report.agreesWithMetadata
        switch format {
        case .json:
            printOut(
                jsonText(
                    InspectJSON(
                        layout: opened.layout.name, version: matched ? report.cached.model.name : nil,
                        matchedBy: matched ? "cache" : nil, drift: [], rowCounts: counts, cache: CachedModelJSON(report))))
        case .text:
            var lines = ["store \(store) (\(opened.layout.name) layout); no --model given: described from its own model"]
            lines += report.lines
            lines.append("rows: " + counts.keys.sorted().map { "\($0) \(counts[$0]!)" }.joined(separator: ", "))
            printOut(lines.joined(separator: "\n"))
        }
        if !matched { throw InstarExit.failure }
    }
}

/// The model a store keeps of itself (`Z_MODELCACHE`), in `inspect --format json`.
struct CachedModelJSON: Codable, Sendable, Equatable {
    var name: String
    @AlwaysPresent var versionIdentifier: String?
    var compressedBytes: Int
    var archiveBytes: Int
    var entities: [EntityJSON]
    var versionChecksum: String
    /// Whether its hashes equal the store's metadata's (null when the store records none).
    @AlwaysPresent var hashesMatchMetadata: Bool?
    var metadataConflicts: [String]?
    var bundleConflicts: [String]?

    init(_ report: CachedModelReport) {
        let model = report.cached.model
        name = model.name
        versionIdentifier = model.versionIdentifier
        compressedBytes = report.cached.compressedSize
        archiveBytes = report.cached.archiveSize
        entities = model.entities.map(EntityJSON.init)
        versionChecksum = VersionHashes(model: model).versionChecksum
        hashesMatchMetadata = report.hasMetadataHashes ? report.metadataConflicts.isEmpty : nil
        metadataConflicts = report.metadataConflicts.isEmpty ? nil : report.metadataConflicts
        bundleConflicts = report.bundleConflicts.isEmpty ? nil : report.bundleConflicts
    }
}

/// An entity of a cached model.
struct EntityJSON: Codable, Sendable, Equatable {
    var name: String
    var parent: String?
    /// Only when true.
    var abstract: Bool?
    var attributes: [AttributeJSON]
    var relationships: [RelationshipJSON]
    var unique: [[String]]?
    var indexes: [String]?

    init(_ entity: Entity) {
        name = entity.name
        parent = entity.parent
        abstract = entity.isAbstract ? true : nil
        attributes = entity.attributes.map(AttributeJSON.init)
        relationships = entity.relationships.map(RelationshipJSON.init)
        unique = entity.uniquenessConstraints.isEmpty ? nil : entity.uniquenessConstraints
        indexes = entity.indexes.isEmpty ? nil : entity.indexes.map(\.name)
    }
}

/// An attribute of a cached model (a composite's `elements` nested).
struct AttributeJSON: Codable, Sendable, Equatable {
    var name: String
    var type: String
    var optional: Bool
    /// Only when true.
    var transient: Bool?
    var elements: [AttributeJSON]?

    init(_ attribute: Attribute) {
        name = attribute.name
        type = attribute.type.modelFileName
        optional = attribute.isOptional
        transient = attribute.isTransient ? true : nil
        elements = attribute.elements.isEmpty ? nil : attribute.elements.map(AttributeJSON.init)
    }
}

/// A relationship of a cached model.
struct RelationshipJSON: Codable, Sendable, Equatable {
    var name: String
    var destination: String
    @AlwaysPresent var inverse: String?
    var toMany: Bool
    var ordered: Bool
    var optional: Bool
    var deleteRule: String

    init(_ r: Relationship) {
        name = r.name
        destination = r.destination
        inverse = r.inverse
        toMany = r.isToMany
        ordered = r.isOrdered
        optional = r.isOptional
        deleteRule = r.deleteRule.rawValue
    }
}
