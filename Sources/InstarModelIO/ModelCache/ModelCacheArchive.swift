import Foundation
@_spi(Layouts) import InstarModel

/// The model a Core Data or SwiftData store keeps in its `Z_MODELCACHE`, written from an Instar model: the
/// keyed archive (`NSKeyedArchiver`, binary plist) of the `NSManagedObjectModel`, the compiled `.mom`
/// format, before compression (raw DEFLATE, which the store layer adds).
///
/// Two styles share one writer, and write the same bytes for every model both accept:
/// - ``Style/swiftDataCorpus`` writes only the shapes the corpus's SwiftData caches show (16 stores,
///   framework 1327–1526; see docs/swiftdata.md): each object's class and keys, the `_P` flags (241, 243
///   when optional; 177/179 for an enum composite), the value classes per attribute type, and the defaults
///   SwiftData evaluates (a literal, a concrete UUID or date, `Decimal(0)`, `T()` of a struct whose members
///   are all optional and uninitialised). Anything else — an attribute type, a delete rule, a default or an
///   option no cache shows — is refused with its reason. Each corpus cache is reproduced in this style.
/// - ``Style/coreData`` also writes what a Core Data model has and SwiftData caches do not show
///   (inheritance, abstract and transient flags, ordered relationships and counts, every delete rule,
///   hash modifiers, renaming identifiers, storage flags, the app's user info, the integer, float and URI
///   types), with the keys and `_P` bits Core Data's own reader decodes them from (the ones
///   `CompiledModelInterpreter` reads). Still refused: a default whose archived form is unknown (a
///   non-zero decimal, binary data, a URI) and a composite nested in a composite. What Instar's model does
///   not hold at all (fetch requests, fetched properties, configurations other than `default`, entity class
///   names and user info) is not written: docs/modelcache-pairs.md lists those differences per real pair.
///
/// A caller that stores the archive decodes it back first and checks its version hashes: the writer's
/// answer is never trusted blindly.
package enum ModelCacheArchive {
    /// Which shapes the writer accepts (the bytes of a shape both accept are the same).
    package enum Style: Sendable, Hashable {
        /// Only what the corpus's SwiftData caches show.
        case swiftDataCorpus
        /// Everything Instar's model holds that the compiled-model reader decodes back.
        case coreData
    }

    /// Why a model cannot be archived as the framework would.
    package struct Unsupported: Error, CustomStringConvertible {
        /// One sentence per shape the writer cannot express, naming the entity and property.
        package let reasons: [String]
        package var description: String { reasons.joined(separator: "; ") }
    }

    /// `userInfo` key the reader sets on an attribute whose Swift type is a top-level `[String]`: the value
    /// class SwiftData records for it (`Array<String>`).
    package static let valueClassKey = SwiftDataUserInfo.valueClass
    /// `userInfo` key the reader sets on a composite initialised with `T()` where every member of `T` is
    /// optional and has no initial value: SwiftData's default is then an empty dictionary.
    package static let emptyCompositeDefaultKey = SwiftDataUserInfo.emptyCompositeDefault
    /// `userInfo` key of a transformable attribute's value transformer (written as `NSValueTransformerName`).
    package static let valueTransformerKey = "valueTransformerName"

    /// The model's `NSConfigurations`, which come from the app's `ModelConfiguration`, not from the schema.
    package enum Configurations: Sendable, Hashable {
        /// One configuration of every entity under this name: `default` for an unnamed `ModelConfiguration`
        /// (every corpus store from framework 1345 on), the name given to `ModelConfiguration("MyStereoviews", …)`
        /// otherwise (Retroview@4448712c).
        case named(String)
        /// No `NSConfigurations` key at all: the one framework-1327 store (ChefTime, unnamed configuration).
        case absent

        /// An unnamed configuration, as SwiftData writes it from framework 1345 on.
        package static let `default` = Configurations.named("default")
    }

    /// The inflated archive of `model` (its entities, `versionIdentifiers`), or the reasons it cannot be written.
    /// `elementsNameTheirEntity`: whether a composite's elements point back at their entity (`NSEntity`), as
    /// every cache from framework 1403 on has it; the framework-1327 one (ChefTime SDFolder.folderType) has null.
    package static func archive(
        _ model: Model, style: Style = .swiftDataCorpus, configurations: Configurations = .default,
        elementsNameTheirEntity: Bool = true
    ) throws(Unsupported) -> Data {
        var builder = Builder(style: style, configurations: configurations, elementsNameTheirEntity: elementsNameTheirEntity)
        try builder.build(model)
        return BinaryPlistWriter.data(.dictionary([
            .init(key: "$version", value: .integer(100_000)),
            .init(key: "$archiver", value: .string("NSKeyedArchiver")),
            .init(key: "$top", value: .dictionary([.init(key: "root", value: .uid(1))])),
            .init(key: "$objects", value: .array(builder.objects)),
        ]))
    }

    static let attributeChain = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
    static let compositeChain = ["NSCompositeAttributeDescription"] + attributeChain
    static let relationshipChain = ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"]

    /// Value class per attribute type, as the caches show them (SwiftData) and as Core Data sets them for
    /// the other types; a transformable's is its recorded class or none.
    static func valueClass(_ attribute: Attribute, style: Style) -> String? {
        switch attribute.type {
        case .string: return "NSString"
        case .integer64, .double, .float, .boolean: return "NSNumber"
        case .date: return "NSDate"
        case .binary: return "NSData"
        case .uuid: return "NSUUID"
        case .decimal: return "NSDecimalNumber"
        case .composite: return "NSDictionary"
        case .transformable:
            // `Array<String>`, `Array<Data>` (NSSecureUnarchiveFromData) or, with `.transformable(by:)`, the
            // property's class (PegaseUIData `NSColor`); none recorded → none written (refused in the SwiftData style).
            return attribute.userInfo[valueClassKey]
        case .integer16: return "NSNumber"
        case .integer32: return style == .coreData ? "NSNumber" : nil
        case .uri: return style == .coreData ? "NSURL" : nil
        case .objectID, .undefined: return nil
        }
    }

    /// Whether `attribute`'s type can be written in `style` (a transformable or an undefined type may have no
    /// value class in Core Data; in the SwiftData caches every attribute has one).
    static func writesType(_ attribute: Attribute, style: Style) -> Bool {
        if valueClass(attribute, style: style) != nil { return true }
        return style == .coreData && attribute.type != .composite
    }

    /// The `_P` bits of a property, as `CompiledPropertyFlags` (and Core Data) decode them. 0x31 is set on
    /// every property of every cache read so far; 0x40 says "no user info", 0x80 "no version hash modifier".
    static func packedFlags(
        optional: Bool, readOnly: Bool = false, transient: Bool = false, ordered: Bool = false, hasUserInfo: Bool,
        hasModifier: Bool
    ) -> Int {
        var flags = 0x31
        if optional { flags |= 0x2 }
        if readOnly { flags |= 0x4 }
        if transient { flags |= 0x8 }
        if !hasUserInfo { flags |= 0x40 }
        if !hasModifier { flags |= 0x80 }
        if ordered { flags |= 0x400 }
        return flags
    }

    /// The app's own user info of a property: Instar's notes (`instar.…`) and the transformer name (its own
    /// key) are not user info.
    static func appUserInfo(_ info: [String: String]) -> [(String, String)] {
        info.filter { !$0.key.hasPrefix(SwiftDataUserInfo.prefix) && $0.key != valueTransformerKey }
            .sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
