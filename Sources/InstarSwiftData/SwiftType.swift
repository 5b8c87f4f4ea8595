@_spi(Layouts) import InstarModel
import SwiftSyntax

/// A property's Swift type, reduced to the shapes SwiftData distinguishes.
indirect enum SwiftType: Equatable, CustomStringConvertible {
    /// A nominal type as written (`String`, `Foundation.Date`, `Color.Resolved`, `AppSchemaV1.User`).
    case named(String)
    /// A type declared in these sources, by qualified name, already looked up (what a type alias leads
    /// to: it must not be looked up again from the scope that uses the alias).
    case declared(String)
    case optional(SwiftType)
    case array(SwiftType)
    case dictionary(SwiftType, SwiftType)
    case set(SwiftType)

    init(_ syntax: TypeSyntax) {
        if let optional = syntax.as(OptionalTypeSyntax.self) {
            self = .optional(SwiftType(optional.wrappedType))
        } else if let unwrapped = syntax.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            self = .optional(SwiftType(unwrapped.wrappedType))
        } else if let array = syntax.as(ArrayTypeSyntax.self) {
            self = .array(SwiftType(array.element))
        } else if let dictionary = syntax.as(DictionaryTypeSyntax.self) {
            self = .dictionary(SwiftType(dictionary.key), SwiftType(dictionary.value))
        } else if let identifier = syntax.as(IdentifierTypeSyntax.self),
            let arguments = identifier.genericArgumentClause?.arguments.compactMap(Self.typeArgument)
        {
            switch (identifier.name.text, arguments.count) {
            case ("Optional", 1): self = .optional(SwiftType(arguments[0]))
            case ("Array", 1): self = .array(SwiftType(arguments[0]))
            case ("Set", 1): self = .set(SwiftType(arguments[0]))
            case ("Dictionary", 2): self = .dictionary(SwiftType(arguments[0]), SwiftType(arguments[1]))
            default: self = .named(syntax.trimmedText)
            }
        } else if let attributed = syntax.as(AttributedTypeSyntax.self) {
            self = SwiftType(attributed.baseType)
        } else {
            self = .named(syntax.trimmedText)
        }
    }

    private static func typeArgument(_ argument: GenericArgumentSyntax) -> TypeSyntax? {
        if case .type(let type) = argument.argument { return type }
        return nil
    }

    /// The type an initializer gives a property declared without a type (`var count = 1`,
    /// `let id = UUID()`, `var tags = Tags()`); nil when the expression's type is not evident from its
    /// syntax alone.
    init?(inferredFrom expression: ExprSyntax) {
        if expression.is(StringLiteralExprSyntax.self) {
            self = .named("String")
        } else if expression.is(IntegerLiteralExprSyntax.self) {
            self = .named("Int")
        } else if expression.is(FloatLiteralExprSyntax.self) {
            self = .named("Double")
        } else if expression.is(BooleanLiteralExprSyntax.self) {
            self = .named("Bool")
        } else if let prefix = expression.as(PrefixOperatorExprSyntax.self),
            prefix.operator.text == "-", let inner = SwiftType(inferredFrom: prefix.expression)
        {
            self = inner
        } else if let call = expression.as(FunctionCallExprSyntax.self), call.arguments.isEmpty,
            let array = call.calledExpression.as(ArrayExprSyntax.self), array.elements.count == 1,
            let element = SwiftType(typeExpression: array.elements.first!.expression)
        {
            // `[PathPoint]()`: an empty array of the element type.
            self = .array(element)
        } else if let call = expression.as(FunctionCallExprSyntax.self),
            call.calledExpression.is(DeclReferenceExprSyntax.self) || call.calledExpression.is(MemberAccessExprSyntax.self),
            call.trailingClosure == nil
        {
            let callee = call.calledExpression.trimmedText
            // `UUID()`, `Date()`, `Tags()`, `Foundation.Date()`; not `.init()` or `Date.now.addingTimeInterval(1)`.
            guard let first = callee.first, first.isUppercase, !callee.hasPrefix(".") else { return nil }
            self = .named(callee.hasSuffix(".init") ? String(callee.dropLast(5)) : callee)
        } else if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base,
            base.trimmedText == "Date", member.declName.baseName.text == "now"
        {
            self = .named("Date")
        } else {
            return nil
        }
    }

    /// A type written in expression position (`PathPoint` in `[PathPoint]()`, `Schema.Version`).
    init?(typeExpression expression: ExprSyntax) {
        let text = expression.trimmedText
        guard let first = text.first, first.isUppercase,
            expression.is(DeclReferenceExprSyntax.self) || expression.is(MemberAccessExprSyntax.self)
        else { return nil }
        self = .named(text)
    }

    var description: String {
        switch self {
        case .named(let name), .declared(let name): name
        case .optional(let wrapped): "\(wrapped)?"
        case .array(let element): "[\(element)]"
        case .dictionary(let key, let value): "[\(key): \(value)]"
        case .set(let element): "Set<\(element)>"
        }
    }

    /// The type without one level of optionality, and whether there was one.
    var unwrapped: (type: SwiftType, isOptional: Bool) {
        if case .optional(let wrapped) = self {
            // `T??` is as optional as `T?` for the store.
            return (wrapped.unwrapped.type, true)
        }
        return (self, false)
    }
}

/// The Swift standard and Foundation types SwiftData stores as plain attributes, and how sure the mapping is.
enum ScalarTypes {
    /// Core Data attribute type of a scalar Swift type, or nil when the type is not a scalar SwiftData knows.
    static func attributeType(of name: String) -> AttributeType? {
        table[bareName(name)]?.type
    }

    /// Whether a real SwiftData store in the corpus shows this mapping for a top-level property
    /// (see docs/swiftdata.md for each store and property).
    static func isVerified(_ name: String) -> Bool {
        table[bareName(name)]?.verified ?? false
    }

    private static func bareName(_ name: String) -> String {
        for module in ["Swift.", "Foundation.", "CoreGraphics."] where name.hasPrefix(module) {
            return String(name.dropFirst(module.count))
        }
        return name
    }

    private static let table: [String: (type: AttributeType, verified: Bool)] = [
        "String": (.string, true),
        "Int": (.integer64, true),
        "Double": (.double, true),
        // Foundation's `typealias TimeInterval = Double`.
        "TimeInterval": (.double, true),
        "Bool": (.boolean, true),
        "Date": (.date, true),
        "Decimal": (.decimal, true),
        "UUID": (.uuid, true),
        // PegaseUIData EntitySchedule.frequence.
        "Int16": (.integer16, true),
        // ChefTime SDFolder.imageData (optional; PegaseUIData and Retroview with `.externalStorage`).
        "Data": (.binary, true),
        // Assumed: no store shows these at the top level. Each is the Core Data type that holds every value
        // of the Swift type with the least room: what SwiftData, built on Core Data, can use at all.
        "Float": (.float, false),
        "URL": (.uri, false),
        "Int64": (.integer64, false),
        "Int32": (.integer32, false),
        "Int8": (.integer16, false),
        "UInt8": (.integer16, false),
        "UInt16": (.integer32, false),
        "UInt32": (.integer64, false),
        // A UInt64 above Int64.max has no Core Data integer type; Integer 64 is the only one near it.
        "UInt64": (.integer64, false),
        "UInt": (.integer64, false),
        // CoreGraphics' CGFloat is a Double on every 64-bit platform SwiftData runs on.
        "CGFloat": (.double, false),
    ]
}
