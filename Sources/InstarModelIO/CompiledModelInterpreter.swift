import Foundation
@_spi(Layouts) import InstarModel

/// Turns archived `NSEntityDescription`s and their properties into model values.
///
/// Two kinds of trouble are kept apart: a broken archive (a reference out of range, a name that is not a
/// string) is thrown at once as a ``KeyedArchiveError``, because nothing after it can be trusted; a
/// well-formed archive describing something Instar does not know (an attribute type added by a newer
/// SDK, an unknown delete rule) is collected as a ``ModelProblem`` so that one run reports all of them,
/// as the XML reader does.
struct CompiledModelInterpreter {
    let file: String
    var problems: [ModelProblem] = []

    init(file: String) {
        self.file = file
    }

    mutating func entity(from object: ArchivedObject) throws(KeyedArchiveError) -> Entity {
        let name = try object.requiredString("NSEntityName")
        var entity = Entity(
            name: name,
            parent: try object.object("NSSuperentity")?.requiredString("NSEntityName"),
            isAbstract: try object.bool("NSIsAbstract"),
            // The compiler writes the name itself when there is no renaming identifier.
            renamingIdentifier: try object.string("NSRenamingIdentifier").flatMap { $0 == name ? nil : $0 },
            versionHashModifier: try object.string("NSVersionHashModifier"))
        guard let properties = try object.object("NSProperties") else { return entity }
        let inherited = try inheritedNames(of: object)
        for (_, value) in try properties.entries() {
            guard case .object(let property) = value else {
                throw properties.malformed("a property of entity '\(name)' is \(value.kindName)")
            }
            // A store's cached model repeats every inherited property in each sub-entity (a copy, or a
            // proxy); the ancestor declares it, as in the source model.
            if !inherited.isEmpty, let propertyName = try property.string("NSPropertyName"), inherited.contains(propertyName) {
                continue
            }
            if property.isKind(of: "NSRelationshipDescription") {
                entity.relationships.append(try relationship(from: property, entity: name))
            } else if property.isKind(of: "NSAttributeDescription") {
                if let attribute = try attribute(from: property, entity: name) { entity.attributes.append(attribute) }
            } else if !property.isKind(of: "NSFetchedPropertyDescription"),
                !property.isKind(of: "_NSPropertyDescriptionProxy")
            {
                // Fetched properties have no storage; the XML reader skips them too. A proxy stands for an
                // inherited property in a store's cached model (`Z_MODELCACHE`); the parent declares it.
                report(.unknownKey, "\(property.label) is not a kind of property Instar knows", entity: name)
            }
        }
        entity.attributes.sort { XcodeOrder.precedes($0.name, $1.name) }
        entity.relationships.sort { XcodeOrder.precedes($0.name, $1.name) }
        var extras = CompiledEntityExtras(entity: name, object: object)
        entity.uniquenessConstraints = try extras.uniquenessConstraints()
        entity.indexes = try extras.indexes()
        // A compiled model also marks a property indexed (`NSIsIndexed`) when a one-property fetch index
        // covers it, as SwiftData's `#Index` does (`SwiftDataIndexOnBinary<name>`): a copy of that index,
        // as NSCompoundIndexes is of the compound ones. Kept, it would become a second SQL index
        // `Z_<Entity>_<name>` that Core Data never creates (MetaCocktails' stores). Not hashed.
        let covered = Set(entity.indexes.filter { $0.elements.count == 1 }.map { $0.elements[0].property })
        for i in entity.attributes.indices where entity.attributes[i].isIndexed && covered.contains(entity.attributes[i].name) {
            entity.attributes[i].isIndexed = false
        }
        problems += extras.problems.map { ModelProblem($0.kind, $0.message, location: location, entity: name) }
        return entity
    }

    /// The property names of the entity's ancestors (`NSSuperentity`, up to the root). A `.mom` lists
    /// only an entity's own properties, so this is empty there or disjoint from them; a cached model
    /// lists the inherited ones again. A cycle is left to the model's validation: the walk stops at the
    /// first entity seen twice.
    private func inheritedNames(of object: ArchivedObject) throws(KeyedArchiveError) -> Set<String> {
        var names = Set<String>()
        var current = try object.object("NSSuperentity")
        var visited = Set<Int>()
        while let ancestor = current, visited.insert(ancestor.index).inserted {
            if let properties = try ancestor.object("NSProperties") {
                for (key, _) in try properties.entries() {
                    if case .string(let name) = key { names.insert(name) }
                }
            }
            current = try ancestor.object("NSSuperentity")
        }
        return names
    }

    private mutating func attribute(from object: ArchivedObject, entity: String) throws(KeyedArchiveError)
        -> Attribute?
    {
        let name = try object.requiredString("NSPropertyName")
        guard let code = try object.integer("NSAttributeType") else { throw object.missing("NSAttributeType") }
        guard let type = AttributeType.allCases.first(where: { Int($0.coreDataCode) == code }) else {
            report(
                .unknownType, "unknown NSAttributeType \(code) in \(object.label)", entity: entity, property: name,
                hint: "known types: " + AttributeType.allCases.map { "\($0.coreDataCode) \($0.xcodeName)" }
                    .joined(separator: ", "))
            return nil
        }
        let flags = try CompiledPropertyFlags(object)
        let storage = try CompiledAttributeFlags(object)
        let modifier = try flags.hasVersionHashModifier ? object.string("NSVersionHashModifier") : nil
        let info = try flags.hasUserInfo ? userInfo(of: object) : [:]
        var attribute = Attribute(
            name: name,
            type: type,
            isOptional: flags.isOptional,
            isTransient: flags.isTransient,
            isReadOnly: flags.isReadOnly,
            defaultValue: try CompiledDefaultValue.text(of: object.value("NSDefaultValue"), for: type),
            renamingIdentifier: try object.string("NSRenamingIdentifier").flatMap { $0 == name ? nil : $0 },
            versionHashModifier: modifier,
            allowsExternalBinaryDataStorage: storage.allowsExternalBinaryDataStorage,
            preservesValueInHistoryOnDeletion: storage.preservesValueInHistoryOnDeletion,
            isIndexed: try object.bool("NSIsIndexed"),
            userInfo: info)
        if type == .composite { attribute.elements = try compositeElements(of: object, entity: entity, name: name) }
        return attribute
    }

    /// `NSCompositeElements` of an `NSCompositeAttributeDescription`: an array of attribute descriptions
    /// (SwiftData's enums and Codable structs), sorted by name as Core Data sorts them for the hash.
    private mutating func compositeElements(of object: ArchivedObject, entity: String, name: String)
        throws(KeyedArchiveError) -> [Attribute]
    {
        guard let array = try object.object("NSCompositeElements") else {
            report(.missingKey, "composite attribute \(object.label) has no NSCompositeElements", entity: entity, property: name)
            return []
        }
        var elements: [Attribute] = []
        for value in try array.elements() {
            guard case .object(let element) = value, element.isKind(of: "NSAttributeDescription") else {
                throw array.malformed("an element of composite '\(entity).\(name)' is \(value.kindName)")
            }
            if let attribute = try attribute(from: element, entity: entity) { elements.append(attribute) }
        }
        return elements.sorted { XcodeOrder.precedes($0.name, $1.name) }
    }

    private mutating func relationship(from object: ArchivedObject, entity: String) throws(KeyedArchiveError)
        -> Relationship
    {
        let name = try object.requiredString("NSPropertyName")
        // The compiler writes both the names and the objects; the names survive a destination that is
        // missing from the archive, so they come first.
        var destination = try object.string("_NSDestinationEntityName")
        if destination == nil { destination = try object.object("NSDestinationEntity")?.requiredString("NSEntityName") }
        if destination == nil {
            report(.missingKey, "\(object.label) has no destination entity", entity: entity, property: name)
        }
        var inverse = try object.string("_NSInverseRelationshipName")
        if inverse == nil { inverse = try object.object("NSInverseRelationship")?.requiredString("NSPropertyName") }
        let minCount = try object.integer("NSMinCount") ?? 0
        let maxCount = try object.integer("NSMaxCount") ?? 0
        if minCount < 0 || maxCount < 0 {
            report(.invalidCount, "negative count in \(object.label)", entity: entity, property: name)
        }
        let flags = try CompiledPropertyFlags(object)
        let modifier = try flags.hasVersionHashModifier ? object.string("NSVersionHashModifier") : nil
        return Relationship(
            name: name,
            destination: destination ?? "",
            inverse: inverse,
            // Core Data has no to-many flag: a maximum of exactly 1 is to-one, 0 (unbounded) or more is to-many.
            isToMany: maxCount != 1,
            isOrdered: flags.isOrdered,
            minCount: max(0, minCount),
            maxCount: max(0, maxCount),
            deleteRule: try deleteRule(of: object, entity: entity, property: name),
            isOptional: flags.isOptional,
            isTransient: flags.isTransient,
            isReadOnly: flags.isReadOnly,
            renamingIdentifier: try object.string("NSRenamingIdentifier").flatMap { $0 == name ? nil : $0 },
            versionHashModifier: modifier)
    }

    /// `NSDeleteRule`: `NSDeleteRule` raw values 0 no action, 1 nullify, 2 cascade, 3 deny.
    private mutating func deleteRule(of object: ArchivedObject, entity: String, property: String)
        throws(KeyedArchiveError) -> DeleteRule
    {
        let code = try object.integer("NSDeleteRule") ?? 0
        let rules: [DeleteRule] = [.noAction, .nullify, .cascade, .deny]
        guard rules.indices.contains(code) else {
            report(.invalidValue, "unknown NSDeleteRule \(code) in \(object.label)", entity: entity, property: property)
            return .nullify
        }
        return rules[code]
    }

    /// `NSUserInfo` as text; Core Data reads `NSMigrationAllowTypeTransformation` and friends from it.
    private func userInfo(of object: ArchivedObject) throws(KeyedArchiveError) -> [String: String] {
        guard let dictionary = try object.object("NSUserInfo") else { return [:] }
        var result: [String: String] = [:]
        for (key, value) in try dictionary.entries() {
            guard case .string(let text) = key else { throw dictionary.malformed("a user-info key is \(key.kindName)") }
            switch value {
            case .string(let string): result[text] = string
            case .integer(let number): result[text] = String(number)
            case .real(let number), .date(let number): result[text] = String(number)
            case .boolean(let flag): result[text] = flag ? "YES" : "NO"
            default: result[text] = ""
            }
        }
        return result
    }

    private var location: SourceLocation { SourceLocation(file: file) }

    private mutating func report(
        _ kind: ModelProblem.Kind, _ message: String, entity: String, property: String? = nil, hint: String? = nil
    ) {
        problems.append(ModelProblem(kind, message, location: location, entity: entity, property: property, hint: hint))
    }
}

/// The order Xcode writes entities and properties in a model's XML: case-insensitive, then exact.
///
/// Compiled models keep entities and properties in dictionaries, so their declaration order is lost;
/// sorting as Xcode does gives the order the `.xcdatamodel` source almost always has.
enum XcodeOrder {
    static func precedes(_ a: String, _ b: String) -> Bool {
        let (x, y) = (a.lowercased(), b.lowercased())
        if x != y { return x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) }
        return a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
    }
}
