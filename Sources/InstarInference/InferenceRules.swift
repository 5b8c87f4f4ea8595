@_spi(Layouts) import InstarModel

/// Core Data's lightweight-inference rules, one function per kind of change.
///
/// Each rule follows `shared/coredata/FORMAT.md` §4 (Apple's documentation of what can be inferred,
/// and what `_NSMappingModelBuilder` actually does) and returns a ``Verdict`` whose reason a user can act on.
package enum InferenceRules {
    /// The user-info key with which Core Data lets Binary and Transformable convert into each other.
    package static let allowTypeTransformationKey = "NSMigrationAllowTypeTransformation"

    // MARK: Attribute type conversion

    /// Whether Core Data converts values of `from` into `to` in place.
    package static func typeConversion(from: AttributeType, to: AttributeType, destination: Attribute, source: Attribute)
        -> Verdict
    {
        let numericOrBoolean = { (t: AttributeType) in t.isNumeric || t == .boolean }
        if from == .undefined || to == .undefined {
            return .notInferable("an Undefined attribute type can never be converted")
        }
        if numericOrBoolean(from) && numericOrBoolean(to) {
            var reason = "Core Data converts numbers and Booleans into each other"
            if to.isInteger && !from.isInteger && from != .boolean {
                reason += "; fractions are truncated"
            } else if to == .boolean {
                reason += "; zero becomes NO and any other value YES"
            } else if to.isInteger, from.isInteger, to.coreDataCode < from.coreDataCode {
                reason += "; values outside the \(to.xcodeName) range do not fit"
            }
            return .inferable(reason)
        }
        let binaryPair: Set<AttributeType> = [.binary, .transformable]
        if binaryPair.contains(from) && binaryPair.contains(to) {
            let allowed =
                destination.userInfo[allowTypeTransformationKey].flatMap(DefaultValue.parseBoolean) == true
                || source.userInfo[allowTypeTransformationKey].flatMap(DefaultValue.parseBoolean) == true
            if !allowed {
                return .notInferable(
                    "Binary and Transformable convert only when the attribute's user info sets \(allowTypeTransformationKey) = YES"
                )
            }
            if source.allowsExternalBinaryDataStorage || destination.allowsExternalBinaryDataStorage {
                return .notInferable("Binary ↔ Transformable cannot convert while external storage is on")
            }
            return .inferable("bytes are kept as they are (\(allowTypeTransformationKey) is set)")
        }
        return .notInferable(
            "Core Data cannot convert \(from.xcodeName) to \(to.xcodeName) in place. Migrate in stages: add a temporary \(to.xcodeName) attribute, fill it in a hook, then remove '\(source.name)' and rename the new attribute into place"
        )
    }

    // MARK: Attributes

    static func attributeChanges(from a: Attribute, to b: Attribute, entity: String, sourceEntity: String) -> [Change] {
        var changes: [Change] = []
        func add(_ kind: Change.Kind, _ before: String?, _ after: String?, _ verdict: Verdict) {
            changes.append(
                Change(kind, entity: entity, property: b.name, oldName: a.name, before: before, after: after, verdict: verdict))
        }
        if a.name != b.name {
            add(
                .attributeRenamed, a.name, b.name,
                .inferable("renamed through the renaming identifier '\(b.renamingIdentifier ?? a.name)'; values are kept"))
        }
        if a.isTransient != b.isTransient {
            if b.isTransient {
                add(.attributeTransientChanged, "stored", "transient", .inferable("becomes transient: stored values are dropped"))
            } else {
                add(.attributeTransientChanged, "transient", "stored", addedAttribute(b, sourceEntity: sourceEntity))
            }
        }
        guard !a.isTransient || !b.isTransient else { return changes }
        if a.type != b.type {
            add(.attributeTypeChanged, a.type.xcodeName, b.type.xcodeName, typeConversion(from: a.type, to: b.type, destination: b, source: a))
        }
        if a.isOptional != b.isOptional {
            if b.isOptional {
                add(.attributeOptionalityChanged, "required", "optional", .inferable("becomes optional: existing values stay valid"))
            } else if let value = b.defaultValue {
                add(
                    .attributeOptionalityChanged, "optional", "required",
                    .inferable("becomes required with default '\(value)': NULLs are replaced by the default"))
            } else {
                add(
                    .attributeOptionalityChanged, "optional", "required",
                    .conditional(
                        "becomes required without a default: Core Data infers the step, but it fails validation if any row holds NULL. Give the attribute a default, or fill NULLs in a hook first",
                        .noNulls(entity: sourceEntity, property: a.name)))
            }
        }
        if a.defaultValue != b.defaultValue {
            add(
                .attributeDefaultChanged, a.defaultValue ?? "(none)", b.defaultValue ?? "(none)",
                .inferable("the default applies to new rows; existing values are kept"))
        }
        if a.allowsExternalBinaryDataStorage != b.allowsExternalBinaryDataStorage {
            if b.allowsExternalBinaryDataStorage {
                add(
                    .attributeExternalStorageChanged, "in store", "external allowed",
                    .inferable("external storage is turned on: existing values stay in the store, tagged as inline"))
            } else {
                add(
                    .attributeExternalStorageChanged, "external allowed", "in store",
                    .notInferable(
                        "Core Data cannot move externally stored values back into the store by inference. Migrate in stages: add a temporary Binary attribute, copy the bytes in a hook (reading external files), then remove '\(a.name)' and rename the new attribute into place"
                    ))
            }
        }
        if a.versionHashModifier != b.versionHashModifier {
            add(
                .propertyHashModifierChanged, a.versionHashModifier ?? "(none)", b.versionHashModifier ?? "(none)",
                .inferable(
                    "the version hash modifier changes, Core Data's sign that the values mean something new (a unit, an encoding): values are kept as they are; if their meaning changed, convert them in a hook or a mapping model"
                ))
        }
        if a.isReadOnly != b.isReadOnly || a.preservesValueInHistoryOnDeletion != b.preservesValueInHistoryOnDeletion
            || a.isIndexed != b.isIndexed
        {
            add(.attributeFlagsChanged, flags(a), flags(b), .inferable("flags only; values are kept"))
        }
        return changes
    }

    private static func flags(_ a: Attribute) -> String {
        var list: [String] = []
        if a.isReadOnly { list.append("read-only") }
        if a.preservesValueInHistoryOnDeletion { list.append("preserved in history") }
        if a.isIndexed { list.append("indexed") }
        return list.isEmpty ? "(none)" : list.joined(separator: ", ")
    }

    /// A new attribute: existing rows get NULL, or the default.
    package static func addedAttribute(_ a: Attribute, sourceEntity: String) -> Verdict {
        if a.isTransient { return .inferable("a transient attribute: nothing is stored") }
        if let value = a.defaultValue { return .inferable("a new attribute: existing rows get the default '\(value)'") }
        if a.isOptional { return .inferable("a new optional attribute: existing rows get NULL") }
        return .conditional(
            "a new required attribute without a default: existing rows would hold NULL, so the step fails if any '\(sourceEntity)' row exists. Give it a default, or make it optional and fill it in a hook",
            .noRows(entity: sourceEntity))
    }

    // MARK: Relationships

    struct RelationshipContext {
        let entity: String
        let sourceEntity: String
        /// The new name of the old destination entity, if it survives.
        let mappedOldDestination: String?
        /// True when every old destination object is also an instance of the new destination.
        let newDestinationIsSupertypeOfOld: Bool
    }

    static func relationshipChanges(from a: Relationship, to b: Relationship, context: RelationshipContext) -> [Change] {
        var changes: [Change] = []
        func add(_ kind: Change.Kind, _ before: String?, _ after: String?, _ verdict: Verdict) {
            changes.append(
                Change(
                    kind, entity: context.entity, property: b.name, oldName: a.name, before: before, after: after,
                    verdict: verdict))
        }
        if a.name != b.name {
            add(
                .relationshipRenamed, a.name, b.name,
                .inferable("renamed through the renaming identifier '\(b.renamingIdentifier ?? a.name)'; links are kept"))
        }
        if a.isTransient != b.isTransient {
            add(
                .relationshipTransientChanged, a.isTransient ? "transient" : "stored", b.isTransient ? "transient" : "stored",
                b.isTransient
                    ? .inferable("becomes transient: stored links are dropped")
                    : addedRelationship(b, sourceEntity: context.sourceEntity))
        }
        if context.mappedOldDestination != b.destination {
            let verdict: Verdict =
                context.newDestinationIsSupertypeOfOld
                ? .inferable(
                    "destination changes from '\(a.destination)' to its ancestor '\(b.destination)': every linked object still qualifies, links are kept")
                : .inferable(
                    "destination changes from '\(a.destination)' to '\(b.destination)', which is not its counterpart: Core Data treats this as remove plus add, so existing links are dropped"
                )
            add(.relationshipDestinationChanged, a.destination, b.destination, verdict)
        }
        if a.isToMany != b.isToMany {
            if b.isToMany {
                add(
                    .relationshipCardinalityChanged, "to-one", "to-many",
                    .inferable("to-one becomes to-many: each existing link becomes a one-element set"))
            } else {
                add(
                    .relationshipCardinalityChanged, "to-many", "to-one",
                    .notInferable(
                        "Core Data cannot map a to-many relationship to a to-one. Migrate in stages: add the to-one relationship, pick one object per row in a hook, then remove '\(a.name)'"
                    ))
            }
        }
        if a.isToMany && b.isToMany && a.isOrdered != b.isOrdered {
            add(
                .relationshipOrderingChanged, a.isOrdered ? "ordered" : "unordered", b.isOrdered ? "ordered" : "unordered",
                b.isOrdered
                    ? .inferable("becomes ordered: existing links get positions in their current stored order")
                    : .inferable("becomes unordered: positions are dropped, links are kept"))
        }
        if a.inverse != b.inverse {
            add(
                .relationshipInverseChanged, a.inverse ?? "(none)", b.inverse ?? "(none)",
                .inferable("the inverse changes; links are kept"))
        }
        if a.isOptional != b.isOptional {
            if b.isOptional {
                add(.relationshipOptionalityChanged, "required", "optional", .inferable("becomes optional"))
            } else {
                add(
                    .relationshipOptionalityChanged, "optional", "required",
                    b.isToMany
                        ? .inferable("a required to-many relationship; validated on save only")
                        : .conditional(
                            "becomes required: the step fails validation if any row has no link",
                            .noNulls(entity: context.sourceEntity, property: a.name)))
            }
        }
        if (a.minCount != b.minCount || a.maxCount != b.maxCount) && a.isToMany == b.isToMany {
            add(
                .relationshipCountChanged, "\(a.minCount)…\(a.maxCount)", "\(b.minCount)…\(b.maxCount)",
                .inferable("count limits change; Core Data validates them when objects are saved"))
        }
        if a.deleteRule != b.deleteRule {
            add(
                .relationshipDeleteRuleChanged, a.deleteRule.xcodeName, b.deleteRule.xcodeName,
                .inferable("the delete rule applies to future deletes; no stored data changes"))
        }
        if a.versionHashModifier != b.versionHashModifier {
            add(
                .propertyHashModifierChanged, a.versionHashModifier ?? "(none)", b.versionHashModifier ?? "(none)",
                .inferable("only the version hash changes; links are kept"))
        }
        return changes
    }

    /// `linkedBy`: the older to-many without an inverse whose links the new relationship takes over.
    package static func addedRelationship(
        _ r: Relationship, sourceEntity: String, linkedBy older: (entity: String, relationship: String)? = nil
    ) -> Verdict {
        if r.isTransient { return .inferable("a transient relationship: nothing is stored") }
        if let older {
            let takes = "the inverse of '\(older.entity).\(older.relationship)', which had none: it takes over that relationship's links"
            if r.isToMany || r.isOptional { return .inferable(takes) }
            return .conditional(
                "a new required to-one, \(takes), so the step fails if a '\(sourceEntity)' row has no link. Link those rows (or delete them) in a hook first, or make it optional",
                .linked(entity: sourceEntity, by: older.entity, relationship: older.relationship))
        }
        if r.isToMany || r.isOptional {
            return .inferable("a new relationship: existing rows start with no links")
        }
        return .conditional(
            "a new required to-one relationship: existing rows would have no link, so the step fails if any '\(sourceEntity)' row exists. Make it optional and link rows in a hook",
            .noRows(entity: sourceEntity))
    }

    // MARK: Hierarchy

    static func parentChange(from old: String?, to new: String?, entity: String) -> Verdict {
        switch (old, new) {
        case (_, nil):
            return .inferable("moves out of its hierarchy: its rows move to a table of their own")
        case (nil, let parent?):
            return .inferable("gets the parent '\(parent)': its rows move into the hierarchy's table")
        case (_, let parent?):
            return .inferable("moves under '\(parent)' within the hierarchy; rows and shared properties are kept")
        }
    }

    // MARK: Rendering

    package static func describe(_ a: Attribute) -> String {
        var text = a.type.xcodeName + (a.isOptional ? " optional" : " required")
        if let value = a.defaultValue { text += " default=\(value)" }
        if a.isTransient { text += " transient" }
        return text
    }

    package static func describe(_ r: Relationship) -> String {
        var text = (r.isToMany ? (r.isOrdered ? "ordered to-many " : "to-many ") : "to-one ") + r.destination
        if let inverse = r.inverse { text += " inverse \(inverse)" }
        if !r.isOptional { text += " required" }
        return text
    }
}
