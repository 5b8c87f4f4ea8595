import Foundation
@_spi(Layouts) import InstarModel

extension ModelCacheArchive.Builder {
    mutating func attribute(_ attribute: Attribute, entity: String, owner: Int, indexed: Bool) -> Int {
        let subject = "\(entity).\(attribute.name)"
        guard ModelCacheArchive.writesType(attribute, style: style) else {
            reasons.append("\(subject): \(attribute.type.xcodeName)\(attribute.type == .transformable ? " other than a top-level [String] or [Data] or a `.transformable(by:)` property of a named type" : "") (no SwiftData cache in the corpus shows its value class)")
            return 0
        }
        let valueClass = ModelCacheArchive.valueClass(attribute, style: style)
        if strict, attribute.versionHashModifier != nil || (attribute.renamingIdentifier.map { $0 != attribute.name } ?? false)
            || attribute.preservesValueInHistoryOnDeletion
        {
            // `.externalStorage` is shown (NSFlagsKey 4: PegaseUIData, Retroview); these are not.
            reasons.append("\(subject): an @Attribute option (hashModifier, originalName, .preserveValueOnDeletion) no SwiftData cache in the corpus shows")
        }
        if strict && indexed && attribute.isOptional {
            reasons.append("\(subject): an optional indexed attribute (the caches show indexed ones only required)")
        }
        let isEnum = attribute.type == .composite && attribute.userInfo["EnumType"] != nil
        let info = isEnum ? [] : ModelCacheArchive.appUserInfo(attribute.userInfo)
        let flags = ModelCacheArchive.packedFlags(
            optional: attribute.isOptional, readOnly: attribute.isReadOnly, transient: attribute.isTransient,
            hasUserInfo: isEnum || !info.isEmpty, hasModifier: attribute.versionHashModifier != nil)
        var fields: [(String, PlistItem)] = [
            ("_P", .integer(flags)), ("NSAttributeValueClassName", string(valueClass)),
            ("NSAttributeType", .integer(Int(attribute.type.coreDataCode))),
        ]
        if attribute.isOptional { fields.append(("NSIsOptional", .boolean(true))) }
        var storage = 0
        if attribute.allowsExternalBinaryDataStorage { storage |= 0x4 }
        if attribute.preservesValueInHistoryOnDeletion { storage |= 0x10 }
        fields += [
            ("NSEntity", .uid(owner)), ("NSDefaultValue", defaultValue(attribute, subject: subject)),
            ("NSPropertyName", string(attribute.name)),
            ("NSValueTransformerName", string(attribute.type == .transformable ? attribute.userInfo[ModelCacheArchive.valueTransformerKey] : nil)),
            ("NSFlagsKey", .integer(storage)), ("NSRenamingIdentifier", string(attribute.renamingIdentifier ?? attribute.name)),
        ]
        if indexed { fields.append(("NSIsIndexed", .boolean(true))) }
        if attribute.isTransient { fields.append(("NSIsTransient", .boolean(true))) }
        if attribute.isReadOnly { fields.append(("NSIsReadOnly", .boolean(true))) }
        if let modifier = attribute.versionHashModifier { fields.append(("NSVersionHashModifier", string(modifier))) }
        if !info.isEmpty {
            let pairs = info.map { ($0.0, string($0.1)) }
            fields.append(("NSUserInfo", dictionary("NSDictionary", pairs)))
        }
        guard attribute.type == .composite else { return object(ModelCacheArchive.attributeChain, fields) }
        if isEnum {
            var enumInfo: [(String, PlistItem)] = [("EnumType", .uid(add(.boolean(true))))]
            if let cases = attribute.userInfo["enum"] {
                enumInfo.append(("enum", collection("NSArray", cases.split(separator: ",").map { string(String($0)) })))
            }
            fields.append(("NSUserInfo", dictionary("NSDictionary", enumInfo)))
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
            // Framework 1327 (ChefTime) leaves a composite element's NSEntity null; 1403 on name the entity.
            elements.append(.uid(self.attribute(plain, entity: entity, owner: elementsNameTheirEntity ? owner : 0, indexed: false)))
        }
        fields.append(("NSCompositeElements", collection("NSMutableArray", elements)))
        return object(ModelCacheArchive.compositeChain, fields)
    }

    /// The default as the framework's model holds it, in the forms the caches show (and, in the Core Data
    /// style, the numbers an `NSNumber` archives inline).
    mutating func defaultValue(_ attribute: Attribute, subject: String) -> PlistItem {
        let evaluated = attribute.userInfo[SwiftDataUserInfo.appEvaluatedDefault].map { $0.filter { !$0.isWhitespace } }
        if attribute.type == .composite {
            if attribute.userInfo[ModelCacheArchive.emptyCompositeDefaultKey] != nil { return dictionary("NSMutableDictionary", []) }
            if evaluated != nil { reasons.append("\(subject): a composite's default other than `T()` of all-optional members") }
            return .uid(0)
        }
        if attribute.type == .transformable, attribute.userInfo[SwiftDataUserInfo.emptyArrayDefault] != nil {
            return emptyArray()
        }
        guard let value = attribute.defaultValue else {
            if attribute.type == .decimal, let evaluated, ["Decimal(0)", "0", ".zero", "Decimal.zero"].contains(evaluated) {
                return zeroDecimal()
            }
            if evaluated != nil { reasons.append("\(subject): a default the app computes (`\(attribute.userInfo[SwiftDataUserInfo.appEvaluatedDefault]!)`) that Instar does not evaluate") }
            return .uid(0)
        }
        switch attribute.type {
        case .string: return string(value)
        case .integer64:
            if let number = Int(value) { return .uid(add(.integer(number))) }
        case .integer16:
            // PegaseUIData EntitySchedule.frequence `= 0`.
            if let number = Int(value) { return .uid(add(.integer(number))) }
        case .integer32:
            if !strict, let number = Int(value) { return .uid(add(.integer(number))) }
        case .double:
            // PegaseUIData EntityCategory.objectif `= 0.0`: a real.
            if let number = Double(value) { return .uid(add(.real(number))) }
        case .float:
            if !strict, let number = Double(value) { return .uid(add(.real(number))) }
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
        let seen = strict ? "no SwiftData cache in the corpus shows its form" : "Instar does not archive that form yet"
        reasons.append("\(subject): a \(attribute.type.xcodeName) default `\(value)` (\(seen))")
        return .uid(0)
    }

    /// `Decimal(0)` as myhome's cache holds it (Expense.amount).
    mutating func zeroDecimal() -> PlistItem {
        .uid(object(
            ["NSDecimalNumberPlaceholder", "NSDecimalNumber", "NSNumber", "NSValue", "NSObject"],
            [("NS.mantissa", .data(Data(count: 16))), ("NS.negative", .boolean(false)), ("NS.exponent", .integer(0)),
             ("NS.mantissa.bo", .integer(1)), ("NS.length", .integer(0)), ("NS.compact", .boolean(false))]))
    }

    mutating func relationship(_ relationship: Relationship, entity: String, owner: Int, at index: Int, graph: EntityGraph) {
        let subject = "\(entity).\(relationship.name)"
        guard let destination = graph.entityIndex[relationship.destination] else {
            reasons.append("\(subject): leads to \(relationship.destination), not an entity of the model")
            return
        }
        let rule: Int
        switch relationship.deleteRule {
        case .nullify: rule = 1
        case .cascade: rule = 2
        case .noAction where !strict: rule = 0
        case .deny where !strict: rule = 3
        default:
            reasons.append("\(subject): delete rule \(relationship.deleteRule.rawValue) (the caches show nullify and cascade only)")
            rule = 0
        }
        if strict, relationship.isOrdered || relationship.minCount != 0 || relationship.maxCount != (relationship.isToMany ? 0 : 1)
            || relationship.versionHashModifier != nil || (relationship.renamingIdentifier.map { $0 != relationship.name } ?? false)
        {
            reasons.append("\(subject): an ordered relationship, a model count, hashModifier or originalName (no SwiftData cache in the corpus shows one)")
        }
        // A to-many whose model maximum is 1 would read back as a to-one: Core Data has no other to-many flag.
        if relationship.isToMany && relationship.maxCount == 1 {
            reasons.append("\(subject): a to-many relationship with a maximum count of 1 (it would read back as a to-one)")
        }
        let inverse = relationship.inverse.flatMap { graph.relationshipIndex["\(relationship.destination).\($0)"] }
        let flags = ModelCacheArchive.packedFlags(
            optional: relationship.isOptional, readOnly: relationship.isReadOnly, transient: relationship.isTransient,
            ordered: relationship.isOrdered, hasUserInfo: false, hasModifier: relationship.versionHashModifier != nil)
        var fields: [(String, PlistItem)] = [
            ("_P", .integer(flags)), ("NSDestinationEntity", .uid(destination)),
            ("NSEntity", .uid(owner)), ("NSDeleteRule", .integer(rule)),
            ("NSInverseRelationship", .uid(inverse ?? 0)), ("_NSInverseRelationshipName", string(inverse == nil ? nil : relationship.inverse)),
        ]
        if relationship.isOptional { fields.append(("NSIsOptional", .boolean(true))) }
        fields += [
            ("NSMaxCount", .integer(relationship.isToOne ? 1 : relationship.maxCount)), ("NSMinCount", .integer(relationship.minCount)),
            ("NSPropertyName", string(relationship.name)),
            ("NSRenamingIdentifier", string(relationship.renamingIdentifier ?? relationship.name)),
            ("_NSDestinationEntityName", string(relationship.destination)),
        ]
        if relationship.isOrdered { fields.append(("NSIsOrdered", .boolean(true))) }
        if relationship.isTransient { fields.append(("NSIsTransient", .boolean(true))) }
        if relationship.isReadOnly { fields.append(("NSIsReadOnly", .boolean(true))) }
        if let modifier = relationship.versionHashModifier { fields.append(("NSVersionHashModifier", string(modifier))) }
        object(ModelCacheArchive.relationshipChain, fields, at: index)
    }
}
