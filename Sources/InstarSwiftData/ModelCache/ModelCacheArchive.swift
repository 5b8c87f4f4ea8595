import Foundation
import InstarModel

/// The model SwiftData keeps in a store's `Z_MODELCACHE`, written from an Instar model: the keyed archive
/// (`NSKeyedArchiver`, binary plist) of the `NSManagedObjectModel` SwiftData builds from the schema, before
/// compression (raw DEFLATE, which the store layer adds).
///
/// Written only in the shapes the corpus's SwiftData caches show (13 stores, framework 1345–1526; see
/// docs/swiftdata.md): each object's class and keys, the `_P` flags (241, 243 when optional; 177/179 for
/// an enum composite), the value classes per attribute type, and the defaults SwiftData evaluates (a
/// literal, a concrete UUID or date, `Decimal(0)`, `T()` of a struct whose members are all optional and
/// uninitialised). Anything else — an attribute type, a delete rule, a default or an option no cache shows —
/// is refused with its reason, and the caller leaves the cache empty rather than write a guess.
package enum ModelCacheArchive {
    /// Why a model cannot be archived as SwiftData would.
    package struct Unsupported: Error, CustomStringConvertible {
        package let reasons: [String]
        package var description: String { reasons.joined(separator: "; ") }
    }

    /// `userInfo` key the reader sets on an attribute whose Swift type is a top-level `[String]`: the value
    /// class SwiftData records for it (`Array<String>`).
    package static let valueClassKey = "instar.swiftdata.valueClass"
    /// `userInfo` key the reader sets on a composite initialised with `T()` where every member of `T` is
    /// optional and has no initial value: SwiftData's default is then an empty dictionary.
    package static let emptyCompositeDefaultKey = "instar.swiftdata.emptyCompositeDefault"

    /// The inflated archive of `model` (its entities, `versionIdentifiers`), or the reasons it cannot be written.
    package static func archive(_ model: Model) throws(Unsupported) -> Data {
        var builder = Builder()
        try builder.build(model)
        return BinaryPlistWriter.data(.dictionary([
            .init(key: "$version", value: .integer(100_000)),
            .init(key: "$archiver", value: .string("NSKeyedArchiver")),
            .init(key: "$top", value: .dictionary([.init(key: "root", value: .uid(1))])),
            .init(key: "$objects", value: .array(builder.objects)),
        ]))
    }

    private static let attributeChain = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
    private static let compositeChain = ["NSCompositeAttributeDescription"] + attributeChain
    private static let relationshipChain = ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"]

    /// Value class per attribute type, as the caches show them.
    private static func valueClass(_ attribute: Attribute) -> String? {
        switch attribute.type {
        case .string: "NSString"
        case .integer64, .double, .float, .boolean: "NSNumber"
        case .date: "NSDate"
        case .binary: "NSData"
        case .uuid: "NSUUID"
        case .decimal: "NSDecimalNumber"
        case .composite: "NSDictionary"
        case .transformable:
            attribute.userInfo["valueTransformerName"] == "NSSecureUnarchiveFromData" ? attribute.userInfo[valueClassKey] : nil
        default: nil
        }
    }

    private struct Builder {
        var objects: [PlistItem] = [.string("$null")]
        var reasons: [String] = []
        private var classes: [String: Int] = [:]
        private var strings: [String: Int] = [:]

        mutating func reserve() -> Int {
            objects.append(.string("$reserved"))
            return objects.count - 1
        }

        mutating func add(_ item: PlistItem) -> Int {
            if case .string(let text) = item {
                if let known = strings[text] { return known }
                objects.append(item)
                strings[text] = objects.count - 1
                return objects.count - 1
            }
            objects.append(item)
            return objects.count - 1
        }

        mutating func string(_ text: String?) -> PlistItem { text.map { .uid(add(.string($0))) } ?? .uid(0) }

        mutating func classRecord(_ chain: [String]) -> PlistItem {
            if let known = classes[chain[0]] { return .uid(known) }
            let index = add(.dictionary([
                .init(key: "$classes", value: .array(chain.map(PlistItem.string))),
                .init(key: "$classname", value: .string(chain[0])),
            ]))
            classes[chain[0]] = index
            return .uid(index)
        }

        /// An object of `chain[0]` at `index` (reserved) or appended.
        @discardableResult
        mutating func object(_ chain: [String], _ fields: [(String, PlistItem)], at index: Int? = nil) -> Int {
            let item = PlistItem.dictionary([.init(key: "$class", value: classRecord(chain))] + fields.map { .init(key: $0.0, value: $0.1) })
            if let index {
                objects[index] = item
                return index
            }
            return add(item)
        }

        mutating func collection(_ className: String, _ members: [PlistItem]) -> PlistItem {
            let chain: [String] = switch className {
            case "NSMutableArray": ["NSMutableArray", "NSArray", "NSObject"]
            case "NSArray": ["NSArray", "NSObject"]
            default: ["NSSet", "NSObject"]
            }
            return .uid(object(chain, [("NS.objects", .array(members))]))
        }

        private var sharedEmptyDictionary: PlistItem?

        mutating func emptyDictionary() -> PlistItem {
            if let sharedEmptyDictionary { return sharedEmptyDictionary }
            let made = dictionary("NSDictionary", [])
            sharedEmptyDictionary = made
            return made
        }

        mutating func dictionary(_ className: String, _ pairs: [(String, PlistItem)]) -> PlistItem {
            let chain = className == "NSDictionary"
                ? ["NSDictionary", "NSObject"] : ["NSMutableDictionary", "NSDictionary", "NSObject"]
            let keys = pairs.map { string($0.0) }
            return .uid(object(chain, [("NS.keys", .array(keys)), ("NS.objects", .array(pairs.map(\.1)))]))
        }

        mutating func build(_ model: Model) throws(Unsupported) {
            let root = reserve()
            precondition(root == 1)
            let entities = model.entities.sorted { $0.name.utf16.lexicographicallyPrecedes($1.name.utf16) }
            var entityIndex: [String: Int] = [:]
            for entity in entities { entityIndex[entity.name] = reserve() }
            var relationshipIndex: [String: Int] = [:]
            for entity in entities {
                for relationship in entity.relationships { relationshipIndex["\(entity.name).\(relationship.name)"] = reserve() }
            }
            for entity in entities {
                self.entity(entity, model: model, at: entityIndex[entity.name]!, entityIndex: entityIndex, relationshipIndex: relationshipIndex)
            }
            let keys = collection("NSArray", entities.map { string($0.name) })
            let mapping = object(
                ["NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject"],
                [("keys", keys), ("length", .integer(entities.count)), ("version", .integer(1))])
            let values = collection("NSArray", entities.map { .uid(entityIndex[$0.name]!) })
            let known = object(
                ["NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject"],
                [("values", values), ("searchMapping", .uid(mapping)),
                 ("emptyToken", string("__empty_slot_token_4c24_98dc_ac1e_b773__")), ("version", .integer(1))])
            let configurations = dictionary("NSMutableDictionary", [("default", collection("NSSet", entities.map { .uid(entityIndex[$0.name]!) }))])
            let identifiers = model.versionIdentifiers.isEmpty ? [model.versionIdentifier].compactMap { $0 } : model.versionIdentifiers
            let versionSet = collection("NSSet", identifiers.map { string($0) })
            object(
                ["NSManagedObjectModel", "NSObject"],
                [("NSEntities", .uid(known)), ("NSFetchRequestTemplates", .uid(0)), ("NSVersionIdentifiers", versionSet),
                 ("NSConfigurations", configurations)],
                at: root)
            if !reasons.isEmpty { throw Unsupported(reasons: reasons) }
        }

        mutating func entity(_ entity: Entity, model: Model, at index: Int, entityIndex: [String: Int], relationshipIndex: [String: Int]) {
            if entity.parent != nil || entity.isAbstract || model.entities.contains(where: { $0.parent == entity.name }) {
                reasons.append("\(entity.name): entity inheritance (no SwiftData cache in the corpus shows one)")
            }
            var properties: [(String, PlistItem)] = []
            let indexed = Set(entity.indexes.filter { $0.elements.count == 1 }.map { $0.elements[0].property })
            for attribute in entity.attributes {
                properties.append((attribute.name, .uid(self.attribute(attribute, entity: entity.name, owner: index, indexed: indexed.contains(attribute.name)))))
            }
            for relationship in entity.relationships {
                let me = relationshipIndex["\(entity.name).\(relationship.name)"]!
                self.relationship(relationship, entity: entity.name, owner: index, at: me, entityIndex: entityIndex, relationshipIndex: relationshipIndex)
                properties.append((relationship.name, .uid(me)))
            }
            if entity.versionHashModifier != nil {
                reasons.append("\(entity.name): an entity version hash modifier (SwiftData declares none)")
            }
            if entity.attributes.contains(where: { $0.isTransient }) || entity.relationships.contains(where: { $0.isTransient }) {
                reasons.append("\(entity.name): a transient property (no SwiftData cache in the corpus shows one)")
            }
            let tuples = entity.uniquenessConstraints.map { group in collection("NSMutableArray", group.map { string($0) }) }
            var fields: [(String, PlistItem)] = [
                ("NSEntityName", string(entity.name)), ("NSClassNameForEntity", .uid(0)),
                ("NSUniqueTuples", collection("NSMutableArray", tuples)),
                // One empty NSDictionary for every entity, as in each cache (Foundation's immutable empty singleton).
                ("NSUserInfo", emptyDictionary()),
                ("NSSubentities", dictionary("NSMutableDictionary", [])),
                ("NSVersionHashModifier", .uid(0)),
                ("NSProperties", dictionary("NSMutableDictionary", properties)),
                ("NSRenamingIdentifier", string(entity.renamingIdentifier ?? entity.name)),
                ("NSManagedObjectModel", .uid(1)), ("NSSuperentity", .uid(0)),
            ]
            if !entity.indexes.isEmpty {
                var descriptions: [PlistItem] = []
                for fetchIndex in entity.indexes {
                    if fetchIndex.elements.contains(where: { !$0.ascending }) {
                        reasons.append("\(entity.name): a descending fetch index element (no SwiftData cache in the corpus shows one)")
                    }
                    let description = reserve()
                    let elements = fetchIndex.elements.map { element in
                        PlistItem.uid(object(
                            ["NSFetchIndexElementDescription", "NSObject"],
                            [("NSPropertyName", string(element.property)), ("NSFetchIndexElementType", .integer(0)),
                             ("NSFetchIndexDescription", .uid(description)), ("NSAscending", .boolean(element.ascending))]))
                    }
                    object(
                        ["NSFetchIndexDescription", "NSObject"],
                        [("NSIndexName", string(fetchIndex.name)), ("NSPartialIndexPredicate", .uid(0)),
                         ("NSIndexElements", collection("NSArray", elements)), ("NSEntity", .uid(index))],
                        at: description)
                    descriptions.append(.uid(description))
                }
                let compound = entity.indexes.filter { $0.elements.count > 1 }.map { fetchIndex in
                    collection("NSMutableArray", fetchIndex.elements.map { string($0.property) })
                }
                fields += [("NSFetchIndexDescriptions", collection("NSMutableArray", descriptions)),
                           ("NSCompoundIndexes", collection("NSMutableArray", compound))]
            }
            object(["NSEntityDescription", "NSObject"], fields, at: index)
        }

        mutating func attribute(_ attribute: Attribute, entity: String, owner: Int, indexed: Bool) -> Int {
            let subject = "\(entity).\(attribute.name)"
            guard let valueClass = ModelCacheArchive.valueClass(attribute) else {
                reasons.append("\(subject): \(attribute.type.xcodeName)\(attribute.type == .transformable ? " other than a top-level [String]" : "") (no SwiftData cache in the corpus shows its value class)")
                return 0
            }
            if attribute.versionHashModifier != nil || (attribute.renamingIdentifier.map { $0 != attribute.name } ?? false)
                || attribute.allowsExternalBinaryDataStorage || attribute.preservesValueInHistoryOnDeletion
            {
                reasons.append("\(subject): an @Attribute option (hashModifier, originalName, .externalStorage, .preserveValueOnDeletion) no SwiftData cache in the corpus shows")
            }
            if indexed && attribute.isOptional {
                reasons.append("\(subject): an optional indexed attribute (the caches show indexed ones only required)")
            }
            let isEnum = attribute.type == .composite && attribute.userInfo["EnumType"] != nil
            var flags = attribute.isOptional ? 243 : 241
            if isEnum { flags -= 64 }
            var fields: [(String, PlistItem)] = [
                ("_P", .integer(flags)), ("NSAttributeValueClassName", string(valueClass)),
                ("NSAttributeType", .integer(Int(attribute.type.coreDataCode))),
            ]
            if attribute.isOptional { fields.append(("NSIsOptional", .boolean(true))) }
            fields += [
                ("NSEntity", .uid(owner)), ("NSDefaultValue", defaultValue(attribute, subject: subject)),
                ("NSPropertyName", string(attribute.name)),
                ("NSValueTransformerName", string(attribute.type == .transformable ? attribute.userInfo["valueTransformerName"] : nil)),
                ("NSFlagsKey", .integer(0)), ("NSRenamingIdentifier", string(attribute.name)),
            ]
            if indexed { fields.append(("NSIsIndexed", .boolean(true))) }
            guard attribute.type == .composite else { return object(ModelCacheArchive.attributeChain, fields) }
            if isEnum {
                var info: [(String, PlistItem)] = [("EnumType", .uid(add(.boolean(true))))]
                if let cases = attribute.userInfo["enum"] {
                    info.append(("enum", collection("NSArray", cases.split(separator: ",").map { string(String($0)) })))
                }
                fields.append(("NSUserInfo", dictionary("NSDictionary", info)))
            }
            var elements: [PlistItem] = []
            for element in attribute.elements {
                if element.type == .composite || element.type == .transformable {
                    reasons.append("\(subject).\(element.name): a \(element.type.xcodeName) inside a composite")
                    continue
                }
                var plain = element
                plain.defaultValue = nil
                plain.userInfo = [:]
                elements.append(.uid(self.attribute(plain, entity: entity, owner: owner, indexed: false)))
            }
            fields.append(("NSCompositeElements", collection("NSMutableArray", elements)))
            return object(ModelCacheArchive.compositeChain, fields)
        }

        /// The default as SwiftData's model holds it, in the forms the caches show.
        mutating func defaultValue(_ attribute: Attribute, subject: String) -> PlistItem {
            let evaluated = attribute.userInfo[SwiftDataSchema.appEvaluatedDefaultKey].map { $0.filter { !$0.isWhitespace } }
            if attribute.type == .composite {
                if attribute.userInfo[ModelCacheArchive.emptyCompositeDefaultKey] != nil { return dictionary("NSMutableDictionary", []) }
                if evaluated != nil { reasons.append("\(subject): a composite's default other than `T()` of all-optional members") }
                return .uid(0)
            }
            guard let value = attribute.defaultValue else {
                if attribute.type == .decimal, let evaluated, ["Decimal(0)", "0", ".zero", "Decimal.zero"].contains(evaluated) {
                    return zeroDecimal()
                }
                if evaluated != nil { reasons.append("\(subject): a default the app computes (`\(attribute.userInfo[SwiftDataSchema.appEvaluatedDefaultKey]!)`) that Instar does not evaluate") }
                return .uid(0)
            }
            switch attribute.type {
            case .string: return string(value)
            case .integer64:
                if let number = Int(value) { return .uid(add(.integer(number))) }
            case .boolean:
                if let flag = DefaultValue.parseBoolean(value) { return .uid(add(.boolean(flag))) }
            case .uuid:
                if let uuid = UUID(uuidString: value) {
                    let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
                    return .uid(object(["NSUUID", "NSObject"], [("NS.uuidbytes", .data(bytes))]))
                }
            case .date:
                if let seconds = Double(value) { return .uid(object(["NSDate", "NSObject"], [("NS.time", .real(seconds))])) }
            case .decimal:
                if let number = Double(value), number == 0 { return zeroDecimal() }
            default:
                break
            }
            reasons.append("\(subject): a \(attribute.type.xcodeName) default `\(value)` (no SwiftData cache in the corpus shows its form)")
            return .uid(0)
        }

        /// `Decimal(0)` as myhome's cache holds it (Expense.amount).
        mutating func zeroDecimal() -> PlistItem {
            .uid(object(
                ["NSDecimalNumberPlaceholder", "NSDecimalNumber", "NSNumber", "NSValue", "NSObject"],
                [("NS.mantissa", .data(Data(count: 16))), ("NS.negative", .boolean(false)), ("NS.exponent", .integer(0)),
                 ("NS.mantissa.bo", .integer(1)), ("NS.length", .integer(0)), ("NS.compact", .boolean(false))]))
        }

        mutating func relationship(
            _ relationship: Relationship, entity: String, owner: Int, at index: Int, entityIndex: [String: Int],
            relationshipIndex: [String: Int]
        ) {
            let subject = "\(entity).\(relationship.name)"
            guard let destination = entityIndex[relationship.destination] else {
                reasons.append("\(subject): leads to \(relationship.destination), not an entity of the model")
                return
            }
            let rule: Int
            switch relationship.deleteRule {
            case .nullify: rule = 1
            case .cascade: rule = 2
            default:
                reasons.append("\(subject): delete rule \(relationship.deleteRule.rawValue) (the caches show nullify and cascade only)")
                rule = 0
            }
            if relationship.isOrdered || relationship.minCount != 0 || relationship.maxCount != (relationship.isToMany ? 0 : 1)
                || relationship.versionHashModifier != nil || (relationship.renamingIdentifier.map { $0 != relationship.name } ?? false)
            {
                reasons.append("\(subject): an ordered relationship, a model count, hashModifier or originalName (no SwiftData cache in the corpus shows one)")
            }
            let inverse = relationship.inverse.flatMap { relationshipIndex["\(relationship.destination).\($0)"] }
            var fields: [(String, PlistItem)] = [
                ("_P", .integer(relationship.isOptional ? 243 : 241)), ("NSDestinationEntity", .uid(destination)),
                ("NSEntity", .uid(owner)), ("NSDeleteRule", .integer(rule)),
                ("NSInverseRelationship", .uid(inverse ?? 0)), ("_NSInverseRelationshipName", string(inverse == nil ? nil : relationship.inverse)),
            ]
            if relationship.isOptional { fields.append(("NSIsOptional", .boolean(true))) }
            fields += [
                ("NSMaxCount", .integer(relationship.maxCount)), ("NSMinCount", .integer(relationship.minCount)),
                ("NSPropertyName", string(relationship.name)), ("NSRenamingIdentifier", string(relationship.name)),
                ("_NSDestinationEntityName", string(relationship.destination)),
            ]
            object(ModelCacheArchive.relationshipChain, fields, at: index)
        }
    }
}
