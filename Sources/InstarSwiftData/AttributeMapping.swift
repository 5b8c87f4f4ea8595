@_spi(Layouts) import InstarModel
import SwiftSyntax

/// Swift value types → Core Data attributes, as SwiftData maps them. Every rule is taken from a real store
/// in the corpus; docs/swiftdata.md lists the evidence. Where no store shows a mapping, the reader either
/// warns (the Core Data type is the only plausible one, e.g. `Int16` → Integer 16) or refuses (the shape
/// itself is unknown, e.g. a dictionary, or an enum case with associated values).
struct AttributeMapper {
    let declarations: Declarations
    let owner: String
    var diagnostics: [SwiftDataDiagnostic] = []

    private mutating func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(SwiftDataDiagnostic(.error, message, at: location, subject: owner))
    }

    private mutating func warn(_ message: String, at location: SourceLocation) {
        diagnostics.append(SwiftDataDiagnostic(.warning, message, at: location, subject: owner))
    }

    /// The assumptions made while mapping the property being read (`CGFloat → Double`), set on its
    /// attribute as ``SwiftDataUserInfo/assumedMapping`` so that they travel with the model (into an
    /// export too) to the migration that must not write them unproven.
    var assumptions: [String] = []

    /// Says, at the declaration, that `swiftType` is mapped to `shape` although no store shows it.
    private mutating func assume(_ swiftType: String, _ shape: String, why: String, at location: SourceLocation) {
        let mapping = "\(swiftType) → \(shape)"
        assumptions.append(mapping)
        diagnostics.append(
            SwiftDataDiagnostic(
                .warning,
                "`\(swiftType)` → \(shape) is assumed: \(why); a migration that would write it is refused unless the store proves it (migrate --accept-assumed-types)",
                at: location, subject: owner, finding: .assumedMapping(mapping)))
    }

    /// The attribute for a stored property that is not a relationship; nil (with an error) when the
    /// reader cannot tell what SwiftData stores.
    mutating func attribute(for property: DeclaredProperty, scope: [String]) -> Attribute? {
        assumptions = []
        guard var attribute = mappedAttribute(for: property, scope: scope) else { return nil }
        if !assumptions.isEmpty { attribute.userInfo[SwiftDataUserInfo.assumedMapping] = assumptions.joined(separator: "; ") }
        return attribute
    }

    private mutating func mappedAttribute(for property: DeclaredProperty, scope: [String]) -> Attribute? {
        let (type, isOptional) = property.type.unwrapped
        let options = property.attribute
        var attribute: Attribute
        if let transformer = options.transformer {
            attribute = Attribute(name: property.name, type: .transformable, isOptional: isOptional)
            attribute.userInfo["valueTransformerName"] = transformer
            // `.transformable(by: ColorTransformer.self) var color: NSColor`: SwiftData records the property's
            // own type as the value class (PegaseUIData EntityPaymentMode.color: `NSColor`), not what the
            // transformer's `transformedValueClass()` returns (the same class there).
            if case .named(let valueType) = type { attribute.userInfo[SwiftDataUserInfo.valueClass] = valueType }
        } else {
            guard let mapped = valueAttribute(property.name, type, isOptional, scope, property.location) else { return nil }
            attribute = mapped
        }
        attribute.renamingIdentifier = options.originalName
        attribute.versionHashModifier = options.hashModifier
        attribute.allowsExternalBinaryDataStorage = options.externalStorage
        attribute.preservesValueInHistoryOnDeletion = options.preservesValueOnDeletion
        attribute.isTransient = options.isEphemeral
        if attribute.type == .composite, let initializer = property.initializer, !initializer.is(NilLiteralExprSyntax.self) {
            // `var tags: Tags = Tags()`: SwiftData's model keeps the encoded value as the default; for a struct
            // whose members are all optional and uninitialised that is an empty dictionary (MetaCocktails
            // Cocktail.compiledTags). Anything else is the app's to compute.
            if isEmptyStructValue(initializer, type: type, scope: scope) {
                attribute.userInfo[SwiftDataUserInfo.emptyCompositeDefault] = "true"
            } else {
                attribute.userInfo[SwiftDataSchema.appEvaluatedDefaultKey] = initializer.trimmedText
            }
        }
        if attribute.type == .transformable, options.transformer == nil, case .array(.named(let element)) = type,
            let verified = Self.verifiedArrayElements[element]
        {
            // `[String]` → `Array<String>` (MetaCocktails CocktailImage.garnishes), `[Data]` → `Array<Data>`
            // (ChefTime SDRecipe.imageData): the Swift spelling of the array type, module names dropped.
            attribute.userInfo[SwiftDataUserInfo.valueClass] = "Array<\(verified)>"
        }
        if attribute.type == .transformable, let array = property.initializer?.as(ArrayExprSyntax.self), array.elements.isEmpty {
            // `var imageData: [Data] = []`: the model's default is an empty array (ChefTime SDRecipe.imageData,
            // SDStep.imageData), the same one object for every such attribute.
            attribute.userInfo[SwiftDataUserInfo.emptyArrayDefault] = "true"
        } else if attribute.type != .composite, let initializer = property.initializer {
            attribute.defaultValue = defaultValue(initializer, for: attribute.type, at: property.location)
            // `= UUID()`, `= Date()`: the model has a default, one the app computes; kept apart (not
            // hashed) so that checks needing "some default" (CloudKit's) do not report it missing.
            if attribute.defaultValue == nil, !initializer.is(NilLiteralExprSyntax.self) {
                attribute.userInfo[SwiftDataSchema.appEvaluatedDefaultKey] = initializer.trimmedText
            }
        }
        return attribute
    }

    private mutating func valueAttribute(
        _ name: String, _ type: SwiftType, _ isOptional: Bool, _ scope: [String], _ location: SourceLocation
    ) -> Attribute? {
        switch type {
        case .declared(let qualified):
            guard let elements = compositeElements(qualified, name, isOptional, scope, location, resolved: qualified) else { return nil }
            var attribute = Attribute(name: name, type: .composite, isOptional: isOptional)
            attribute.elements = elements.elements
            attribute.userInfo = elements.userInfo
            return attribute
        case .named(let typeName):
            if let scalar = ScalarTypes.attributeType(of: typeName) {
                if !ScalarTypes.isVerified(typeName) {
                    assume(typeName, scalar.xcodeName, why: "no SwiftData store in the corpus has a top-level \(typeName) property", at: location)
                }
                return Attribute(name: name, type: scalar, isOptional: isOptional)
            }
            guard let elements = compositeElements(typeName, name, isOptional, scope, location) else { return nil }
            var attribute = Attribute(name: name, type: .composite, isOptional: isOptional)
            attribute.elements = elements.elements
            attribute.userInfo = elements.userInfo
            return attribute
        case .array(let element):
            // `[String]` → Transformable with NSSecureUnarchiveFromData (MetaCocktails CocktailImage.garnishes).
            if case .named(let name) = element, Self.verifiedArrayElements[name] != nil {
                // Shown by a store: no assumption.
            } else {
                assume("[\(element)]", "Transformable", why: "taken from `[String]` and `[Data]`; no store shows this element type", at: location)
            }
            var attribute = Attribute(name: name, type: .transformable, isOptional: isOptional)
            attribute.userInfo["valueTransformerName"] = "NSSecureUnarchiveFromData"
            return attribute
        case .set, .dictionary:
            // A Codable collection like `[String]`, which SwiftData archives whole.
            assume("\(type)", "Transformable", why: "taken from `[String]` and `[Data]`; no store shows a \(type)", at: location)
            var attribute = Attribute(name: name, type: .transformable, isOptional: isOptional)
            attribute.userInfo["valueTransformerName"] = "NSSecureUnarchiveFromData"
            return attribute
        case .optional:
            error("`\(type)` is not supported: no SwiftData store in the corpus shows how SwiftData stores it, so its version hash cannot be derived", at: location)
            return nil
        }
    }

    /// `T()` or `.init()` for a struct `T` of the sources whose stored members are all optional and have
    /// no initial value.
    private func isEmptyStructValue(_ expression: ExprSyntax, type: SwiftType, scope: [String]) -> Bool {
        guard let call = expression.as(FunctionCallExprSyntax.self), call.arguments.isEmpty, call.trailingClosure == nil else {
            return false
        }
        let resolved: String?
        switch type {
        case .declared(let qualified): resolved = qualified
        case .named(let name): resolved = declarations.resolve(name, from: scope)
        default: resolved = nil
        }
        guard let resolved, let decl = declarations.structs[resolved] else { return false }
        var callee = call.calledExpression.trimmedText
        if callee.hasSuffix(".init") { callee = String(callee.dropLast(5)) }
        guard callee.isEmpty || declarations.resolve(callee, from: scope) == resolved else { return false }
        var reader = ClassMemberReader(file: decl.file, owner: decl.qualifiedName)
        let members = reader.read(decl.node.memberBlock).properties
        return !members.isEmpty && members.allSatisfy { $0.initializer == nil && $0.type.unwrapped.isOptional }
    }

    typealias Composite = (elements: [Attribute], userInfo: [String: String])

    /// Element types of a top-level array whose value class a store shows, by the spellings the sources
    /// may use.
    static let verifiedArrayElements: [String: String] = [
        "String": "String", "Swift.String": "String", "Data": "Data", "Foundation.Data": "Data",
    ]

    /// Standard-library and CoreGraphics types the reader knows to exist but whose SwiftData storage
    /// no store shows: refused as such, not as types missing from the sources.
    static let unmappedStandardTypes: Set<String> = [
        "Float16", "Float80", "Character", "CGPoint", "CGSize", "CGRect", "CGVector", "Swift.Character",
    ]

    /// Elements of a composite attribute: a `RawRepresentable` enum, a payload-free enum, a Codable
    /// struct declared in the sources, or a known framework type.
    private mutating func compositeElements(
        _ typeName: String, _ property: String, _ isOptional: Bool, _ scope: [String], _ location: SourceLocation,
        resolved alreadyResolved: String? = nil
    ) -> Composite? {
        if alreadyResolved == nil, let known = KnownFrameworkTypes.composite(typeName) {
            // Color.Resolved (MetaCocktails CocktailImage.backgroundColor): elements as optional as the property.
            return (known.map { Attribute(name: $0.0, type: $0.1, isOptional: isOptional) }, [:])
        }
        guard let resolved = alreadyResolved ?? declarations.resolve(typeName, from: scope) else {
            if Self.unmappedStandardTypes.contains(typeName) {
                error(
                    "`\(typeName)` is a standard type, but no SwiftData store in the corpus shows how SwiftData stores it, so its version hash cannot be derived; declare it as one of the types docs/swiftdata.md lists (Int, Int64, Double, …) if the app can",
                    at: location)
                return nil
            }
            error("unknown type `\(typeName)`: it is not declared in these sources (another module, or a type alias the reader cannot follow); add the file that declares it", at: location)
            return nil
        }
        if let places = declarations.conflicts[resolved] {
            error("`\(resolved)` is declared \(places.count) times (\(places.map(\.description).joined(separator: ", "))): read one app target's sources at a time", at: location)
            return nil
        }
        if let enumDecl = declarations.enums[resolved] {
            return enumElements(enumDecl, property: property, location: location)
        }
        if let structDecl = declarations.structs[resolved] {
            return structElements(structDecl, isOptional: isOptional, location: location)
        }
        error("`\(typeName)` (\(resolved)) is not a value type SwiftData can store as an attribute; use a @Model class in the schema's models for a relationship", at: location)
        return nil
    }

    /// An enum with a raw value: one optional element named like the property, of the raw type
    /// (MetaCocktails Cocktail.glasswareType: String; Cocktail.collection: Int → Integer 64). A payload-free
    /// enum without raw values: one optional String element per case, in case order (Cocktail.historicSpec).
    private mutating func enumElements(_ decl: Scoped<EnumDeclSyntax>, property: String, location: SourceLocation) -> Composite? {
        let inherited = decl.node.inheritanceClause?.inheritedTypes.map { $0.type.trimmedText } ?? []
        if let raw = inherited.first, let rawType = ScalarTypes.attributeType(of: raw) {
            return ([Attribute(name: property, type: rawType, isOptional: true)], ["EnumType": "true"])
        }
        var cases: [(name: String, type: AttributeType)] = []
        var payloads: [String] = []
        for member in decl.node.memberBlock.members {
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in caseDecl.elements {
                guard let parameters = element.parameterClause?.parameters else {
                    cases.append((element.name.text, .string))
                    continue
                }
                // `case note(String)`: one element per case as for a payload-free enum (ChefTime
                // Folder.FolderType), typed by the one scalar payload. No store shows a payload.
                guard parameters.count == 1, let payload = ScalarTypes.attributeType(of: parameters.first!.type.trimmedText) else {
                    error("enum `\(decl.qualifiedName)` has a case with associated values the reader cannot map (`\(element.trimmedText)`, \(decl.file.location(of: element))): only one scalar value per case can be assumed", at: location)
                    return nil
                }
                cases.append((element.name.text, payload))
                payloads.append(element.trimmedText)
            }
        }
        guard !cases.isEmpty else {
            error("enum `\(decl.qualifiedName)` has no cases the reader can see", at: location)
            return nil
        }
        if !payloads.isEmpty {
            assume(
                decl.qualifiedName, "Composite of one optional element per case",
                why: "no store shows an enum with associated values (\(payloads.joined(separator: ", ")))", at: location)
        }
        return (cases.map { Attribute(name: $0.name, type: $0.type, isOptional: true) },
                ["EnumType": "true", "enum": cases.map(\.name).joined(separator: ",")])
    }

    /// A Codable struct: one element per stored property; arrays become Binary elements (MetaCocktails
    /// Tags.flavors, Build.instructions). An element is optional when the struct property is optional or
    /// the composite property is (every struct composite in the corpus fits that).
    private mutating func structElements(_ decl: Scoped<StructDeclSyntax>, isOptional: Bool, location: SourceLocation) -> Composite? {
        var reader = ClassMemberReader(file: decl.file, owner: decl.qualifiedName)
        let members = reader.read(decl.node.memberBlock)
        diagnostics += reader.diagnostics.filter { $0.severity == .error }
        if reader.diagnostics.contains(where: { $0.severity == .error }) { return nil }
        var elements: [Attribute] = []
        for var member in members.properties {
            if let problem = declarations.settle(&member, scope: decl.scope + [decl.name]) {
                error("struct `\(decl.qualifiedName)`: \(problem)", at: member.location)
                return nil
            }
            let (type, memberOptional) = member.type.unwrapped
            let elementType: AttributeType
            switch type {
            case .named(let name) where ScalarTypes.attributeType(of: name) != nil:
                elementType = ScalarTypes.attributeType(of: name)!
            case .array:
                elementType = .binary
            case .named(let name) where enumRawType(name, scope: decl.scope + [decl.name]) != nil:
                // `var unit: Unit` inside a Codable struct, `enum Unit: String`: its raw value, as a
                // top-level enum's one element is. No store shows an enum nested in a struct.
                elementType = enumRawType(name, scope: decl.scope + [decl.name])!
                assume("\(decl.name).\(member.name): \(name)", "\(elementType.xcodeName) element", why: "no store shows an enum inside a Codable struct", at: member.location)
            default:
                error("struct `\(decl.qualifiedName)` stores `\(member.name): \(member.type)` (\(member.location)): no store shows how SwiftData nests that inside a composite", at: location)
                return nil
            }
            elements.append(Attribute(name: member.name, type: elementType, isOptional: isOptional || memberOptional))
        }
        guard !elements.isEmpty else {
            error("struct `\(decl.qualifiedName)` has no stored properties the reader can see", at: location)
            return nil
        }
        return (elements, [:])
    }
}

extension AttributeMapper {
    /// The Core Data type of the raw value of the enum `name` (seen from `scope`), when it is an enum of
    /// the sources with a scalar raw type.
    fileprivate func enumRawType(_ name: String, scope: [String]) -> AttributeType? {
        guard let resolved = declarations.resolve(name, from: scope), let decl = declarations.enums[resolved],
            let raw = decl.node.inheritanceClause?.inheritedTypes.first?.type.trimmedText
        else { return nil }
        return ScalarTypes.attributeType(of: raw)
    }
}

/// Framework value types that SwiftData stores as composites, with their elements as a real store shows them.
enum KnownFrameworkTypes {
    static func composite(_ typeName: String) -> [(String, AttributeType)]? {
        switch typeName {
        case "Color.Resolved", "SwiftUI.Color.Resolved":
            [("linearRed", .float), ("linearGreen", .float), ("linearBlue", .float), ("opacity", .float)]
        default: nil
        }
    }
}
