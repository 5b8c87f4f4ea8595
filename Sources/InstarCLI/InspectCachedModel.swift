import Foundation
import Instar

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

    var json: [String: Any] {
        let model = cached.model
        var object: [String: Any] = [
            "name": model.name,
            "versionIdentifier": model.versionIdentifier ?? NSNull(),
            "compressedBytes": cached.compressedSize,
            "archiveBytes": cached.archiveSize,
            "entities": model.entities.map { Self.json(of: $0) },
            "versionChecksum": VersionHashes(model: model).versionChecksum,
            "hashesMatchMetadata": hasMetadataHashes ? metadataConflicts.isEmpty : NSNull(),
        ]
        if !metadataConflicts.isEmpty { object["metadataConflicts"] = metadataConflicts }
        if !bundleConflicts.isEmpty { object["bundleConflicts"] = bundleConflicts }
        return object
    }

    static func json(of entity: Entity) -> [String: Any] {
        var object: [String: Any] = [
            "name": entity.name,
            "attributes": entity.attributes.map { json(of: $0) },
            "relationships": entity.relationships.map { r -> [String: Any] in
                [
                    "name": r.name, "destination": r.destination, "inverse": r.inverse ?? NSNull(),
                    "toMany": r.isToMany, "ordered": r.isOrdered, "optional": r.isOptional,
                    "deleteRule": r.deleteRule.rawValue,
                ]
            },
        ]
        if let parent = entity.parent { object["parent"] = parent }
        if entity.isAbstract { object["abstract"] = true }
        if !entity.uniquenessConstraints.isEmpty { object["unique"] = entity.uniquenessConstraints }
        if !entity.indexes.isEmpty { object["indexes"] = entity.indexes.map(\.name) }
        return object
    }

    static func json(of attribute: Attribute) -> [String: Any] {
        var object: [String: Any] = [
            "name": attribute.name, "type": attribute.type.modelFileName, "optional": attribute.isOptional,
        ]
        if attribute.isTransient { object["transient"] = true }
        if !attribute.elements.isEmpty { object["elements"] = attribute.elements.map { json(of: $0) } }
        return object
    }

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
                jsonText([
                    "layout": opened.layout.name,
                    "version": matched ? report.cached.model.name : NSNull(),
                    "matchedBy": matched ? "cache" : NSNull(),
                    "drift": [String](),
                    "rowCounts": counts,
                    "cache": report.json,
                ] as [String: Any]))
        case .text:
            var lines = ["store \(store) (\(opened.layout.name) layout); no --model given: described from its own model"]
            lines += report.lines
            lines.append("rows: " + counts.keys.sorted().map { "\($0) \(counts[$0]!)" }.joined(separator: ", "))
            printOut(lines.joined(separator: "\n"))
        }
        if !matched { throw InstarExit.failure }
    }
}
