import Foundation
@_spi(Layouts) import Instar

extension StoreInspection {
    /// `inspect`'s text: the layout, the version and how it was known (or the closest), drift, the cached
    /// model (in full when it is all the store was described from), and the row counts.
    func textLines(store: String) -> [String] {
        var lines: [String]
        if describedFromCache, let cache {
            lines = ["store \(store) (\(detection.layout) layout); no --model given: described from its own model"]
            lines += cache.lines
        } else {
            lines = ["store \(store) (\(detection.layout) layout)"] + versionLines
            if let cache { lines += cache.verdictLines }
        }
        lines.append("rows: " + rowCounts.keys.sorted().map { "\($0) \(rowCounts[$0]!)" }.joined(separator: ", "))
        return lines
    }

    /// The matched version and how it was known, or why none matched; then the drift.
    private var versionLines: [String] {
        var lines: [String] = []
        if let version = detection.version {
            let how: String
            switch detection.matchedBy {
            case .metadata?: how = "its metadata's entity hashes"
            case .metadataAndIdentifiers?: how = "its metadata's entity hashes and version identifiers"
            case .cache?: how = "the model it keeps of itself"
            case .schema?, nil: how = "its tables and columns"
            }
            lines.append("version \(version.name), known from \(how)")
            if !detection.mergedFrom.isEmpty {
                lines.append("  (written through a model merged from \(detection.mergedFrom.joined(separator: ", ")))")
            }
            if !detection.tiedVersions.isEmpty {
                lines.append(
                    "  (the same entity hashes as \(detection.tiedVersions.joined(separator: ", ")); "
                        + "nothing in the store tells them apart)")
            }
            if let conflict = detection.identifierConflict { lines.append("  warning: \(conflict)") }
        } else {
            lines.append(
                "version unknown"
                    + (detection.metadataVersionName.map { " (metadata says '\($0)', which no given model matches)" } ?? ""))
            if let closest = detection.closest { lines.append("closest version: \(closest)") }
        }
        if !detection.drift.isEmpty {
            lines.append("drift:")
            lines += detection.drift.map { "  - \($0)" }
        }
        return lines
    }
}

extension CachedModelInspection {
    /// The verdict, then each entity in one or two lines.
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
