@_spi(Layouts) import InstarModel

extension EntityBuilder {
    /// A relationship for a property whose type is a `@Model` class (to-one) or an array of one (to-many).
    ///
    /// SwiftData's defaults, from the stores: delete rule nullify; minimum count 0; maximum 1 for a to-one,
    /// 0 (unbounded) for a to-many; optional exactly when the Swift type is (`[Garnish]` is a non-optional
    /// to-many, MetaCocktails Cocktail.garnish; `Item?` an optional to-one, ResourcesManager Component.item).
    mutating func relationship(
        _ property: DeclaredProperty, scope: [String], entityNames: [String: String], owner: String
    ) -> PendingRelationship? {
        let (bare, isOptional) = property.type.unwrapped
        var isToMany = false
        var target = bare
        if case .array(let element) = bare {
            isToMany = true
            target = element.unwrapped.type
        }
        guard let destination = modelClass(target, scope: scope) else { return nil }
        let destinationName: String
        if let listed = entityNames[destination] {
            destinationName = listed
        } else if let bare = declarations.modelClasses[destination]?.name, entityNames.values.contains(bare) {
            // Another version's class of the same name (through a type alias): SwiftData links the
            // relationship by entity name, to the class this schema lists.
            destinationName = bare
            let listed = entityNames.first { $0.value == bare }!.key
            diagnostics.append(SwiftDataDiagnostic(
                .warning, "'\(property.name)' is declared with type \(destination), but this schema's entity '\(bare)' is \(listed): SwiftData links relationships by entity name, so it leads to \(listed)",
                at: property.location, subject: owner))
        } else {
            error("relationship '\(property.name)' leads to \(destination), which is not among this schema's models; add it to `models` (SwiftData would add it for you, but the schema's source should say so)", at: property.location, subject: owner)
            return nil
        }
        let options = property.relationship ?? RelationshipOptions()
        if let root = options.inverse?.root, let resolved = declarations.resolve(root, from: scope),
            declarations.modelClasses[resolved]?.name != destinationName
        {
            error("`inverse:` key path starts at \(root), but the relationship leads to \(destinationName)", at: property.location, subject: owner)
            return nil
        }
        let relationship = Relationship(
            name: property.name, destination: destinationName, isToMany: isToMany,
            minCount: options.minimumCount ?? 0, maxCount: isToMany ? (options.maximumCount ?? 0) : 1,
            deleteRule: options.deleteRule ?? .nullify, isOptional: isOptional,
            renamingIdentifier: options.originalName, versionHashModifier: options.hashModifier)
        return PendingRelationship(
            relationship: relationship, explicitInverse: options.inverse,
            declaredOneSided: property.relationship != nil && options.inverse == nil, location: property.location)
    }

    /// Explicit `inverse:` first, on both sides; then SwiftData's inference: a relationship from A to B
    /// and one from B to A, each the only one without an inverse between the two entities and neither
    /// written with `@Relationship`, are each other's inverse (ResourcesManager Component.craftingRecipe ↔
    /// CraftingRecipe.requiredComponents, both plain properties). A relationship written
    /// `@Relationship(...)` without `inverse:` is never paired (PegaseUIData: `@Relationship(deleteRule:
    /// .cascade) var categorie: [EntityCategory]` and EntityCategory's plain `var rubric: EntityRubric?` stay
    /// one-sided in the store); one whose counterpart is so declared gets a warning, since the two stores
    /// also differ in framework version (1345 and 1522), which could explain the difference as well. A
    /// relationship with no counterpart stays one-sided (Andrei Path.points, MetaCocktails Cocktail.spec).
    /// Ambiguous cases are errors: no store shows SwiftData's choice.
    mutating func settleInverses(_ pending: inout [String: [PendingRelationship]]) {
        let owners = pending.keys.sorted()
        for owner in owners {
            for index in pending[owner]!.indices {
                guard let explicit = pending[owner]![index].explicitInverse else { continue }
                let relationship = pending[owner]![index].relationship
                let destination = relationship.destination
                guard let other = pending[destination]?.firstIndex(where: { $0.relationship.name == explicit.property }),
                    pending[destination]![other].relationship.destination == owner
                else {
                    error("`inverse:` names \(destination).\(explicit.property), which is not a relationship back to \(owner)", at: pending[owner]![index].location, subject: owner)
                    continue
                }
                pending[owner]![index].relationship.inverse = explicit.property
                pending[destination]![other].relationship.inverse = relationship.name
            }
        }
        for owner in owners {
            for index in pending[owner]!.indices where pending[owner]![index].relationship.inverse == nil {
                inferInverse(owner: owner, index: index, &pending)
            }
        }
    }

    private mutating func inferInverse(owner: String, index: Int, _ pending: inout [String: [PendingRelationship]]) {
        let relationship = pending[owner]![index].relationship
        let destination = relationship.destination
        let outgoing = pending[owner]!.filter { $0.relationship.destination == destination && $0.relationship.inverse == nil }
        let reverse = (pending[destination] ?? []).indices.filter { candidate in
            let other = pending[destination]![candidate].relationship
            return other.destination == owner && other.inverse == nil && !(destination == owner && other.name == relationship.name)
        }
        let mine = pending[owner]![index]
        // Only between two entities: no store shows a self-relationship without `inverse:`, so those stay
        // refused below whatever their attributes say (godtools SwiftResource.variants, metatool, …).
        let selfRelated = destination == owner
        let candidates = reverse.filter { selfRelated || !pending[destination]![$0].declaredOneSided }
        if (mine.declaredOneSided && !selfRelated) || candidates.isEmpty {
            // A plain relationship whose only possible partner is declared one-sided: say it stays unpaired.
            let declared = mine.declaredOneSided ? [] : reverse.filter { pending[destination]![$0].declaredOneSided }
            if outgoing.count == 1, declared.count == 1 {
                let other = pending[destination]![declared[0]].relationship.name
                diagnostics.append(SwiftDataDiagnostic(
                    .warning, "'\(relationship.name)' and \(destination).\(other) are not paired as inverses: \(destination).\(other) is written `@Relationship(...)` without `inverse:`, and SwiftData left such a pair one-sided in the PegaseUIData store; declare `inverse:` to link them",
                    at: mine.location, subject: owner,
                    finding: .inverseNotInferred(relationship: relationship.name, destination: destination, declaredOneSided: other)))
            }
            return
        }
        guard destination != owner, candidates.count == 1, outgoing.count == 1 else {
            error("relationship '\(relationship.name)' to \(destination) has no `inverse:` and \(destination) has \(candidates.count) relationship(s) back (\(outgoing.count) this way): which pair SwiftData links is not verified by any store; declare `inverse:`", at: pending[owner]![index].location, subject: owner,
                finding: .ambiguousInverse(relationship: relationship.name, destination: destination, candidates: candidates.count))
            return
        }
        let other = candidates[0]
        pending[owner]![index].relationship.inverse = pending[destination]![other].relationship.name
        pending[destination]![other].relationship.inverse = relationship.name
    }
}
