extension Model {
    /// One model made of the entities of several, as `NSManagedObjectModel(byMerging:)` makes it.
    ///
    /// Apps often open one store through a model merged from several `.xcdatamodeld` bundles (an app's
    /// own and its frameworks'). Such a store records the entity hashes of all of them and one version
    /// identifier per part (as a set), so it matches none of the parts alone. Core Data refuses to merge
    /// models that declare the same entity name, and so does this.
    ///
    /// - Parameter name: the merged version's name; by default the parts' names joined with ` + `.
    /// - Throws: ``ModelError`` naming every entity declared by more than one part.
    package static func merging(_ parts: [Model], name: String? = nil) throws(ModelError) -> Model {
        guard parts.count > 1 else {
            if let only = parts.first { return only }
            throw ModelError(ModelProblem(.invalidValue, "there is no model to merge"))
        }
        var owner: [String: String] = [:]
        var problems: [ModelProblem] = []
        var entities: [Entity] = []
        var locations: [String: SourceLocation] = [:]
        for part in parts {
            for entity in part.entities {
                if let first = owner[entity.name] {
                    problems.append(
                        ModelProblem(
                            .duplicateEntity, "entity '\(entity.name)' is declared by both \(first) and \(part.name)",
                            location: part.location(ofEntity: entity.name), entity: entity.name,
                            hint: "Core Data cannot merge models that declare the same entity; merge other versions"))
                    continue
                }
                owner[entity.name] = part.name
                entities.append(entity)
            }
            locations.merge(part.locations.all) { first, _ in first }
        }
        if !problems.isEmpty { throw ModelError(problems) }
        var identifiers: [String] = []
        for identifier in parts.flatMap(\.versionIdentifiers) where !identifiers.contains(identifier) {
            identifiers.append(identifier)
        }
        // The parts were each valid on their own and share no entity, so the union is valid; warnings
        // were the parts' and stay with them.
        return try Model(
            name: name ?? parts.map(\.name).joined(separator: " + "), versionIdentifier: parts.first?.versionIdentifier,
            entities: entities, locations: locations, source: parts.compactMap(\.source).joined(separator: " + "),
            validatesDefaultValues: false, validation: .xcode, versionIdentifiers: identifiers)
    }
}
