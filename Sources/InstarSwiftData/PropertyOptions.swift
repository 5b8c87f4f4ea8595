@_spi(Layouts) import InstarModel
import SwiftSyntax

extension ClassMemberReader {
    /// `@Attribute(.unique, .externalStorage, .transformable(by: T.self), originalName: "x", hashModifier: "y")`.
    mutating func attributeOptions(_ attribute: AttributeSyntax) -> AttributeOptions {
        var options = AttributeOptions()
        guard case .argumentList(let arguments) = attribute.arguments else { return options }
        for argument in arguments {
            switch argument.label?.text {
            case "originalName": options.originalName = stringLiteral(argument.expression, for: "originalName")
            case "hashModifier": options.hashModifier = stringLiteral(argument.expression, for: "hashModifier")
            case nil: option(argument.expression, into: &options)
            case let label?: error("unknown @Attribute argument '\(label):'", at: argument)
            }
        }
        return options
    }

    private mutating func option(_ expression: ExprSyntax, into options: inout AttributeOptions) {
        let (name, call) = Self.optionName(expression)
        switch name {
        case "unique": options.isUnique = true
        case "externalStorage": options.externalStorage = true
        case "preserveValueOnDeletion": options.preservesValueOnDeletion = true
        case "transformable":
            guard let argument = call?.arguments.first else {
                error("`.transformable` needs `by:` (a ValueTransformer type or its registered name)", at: expression)
                return
            }
            let text = argument.expression.trimmedText
            options.transformer = text.hasSuffix(".self") ? String(text.dropLast(5)) : text.trimming("\"")
        case "spotlight", "allowsCloudEncryption":
            // Core Data keeps these outside the version hash (FORMAT.md §2.3 lists what enters).
            warn("`.\(name)` is not read: it changes no column and no version hash, but no store in the corpus shows it", at: expression)
        case "ephemeral":
            // PegaseUIData's store keeps both `.ephemeral` properties as transient attributes (`_P` 249/251,
            // NSIsTransient, default kept) with no column: docs/swiftdata.md.
            options.isEphemeral = true
        default:
            error("unknown @Attribute option `\(expression.trimmedText)`", at: expression)
        }
    }

    /// `.unique` → ("unique", nil); `.transformable(by: X.self)` → ("transformable", the call);
    /// `Schema.Attribute.Option.unique` → ("unique", nil).
    static func optionName(_ expression: ExprSyntax) -> (String, FunctionCallExprSyntax?) {
        if let call = expression.as(FunctionCallExprSyntax.self),
            let member = call.calledExpression.as(MemberAccessExprSyntax.self)
        {
            return (member.declName.baseName.text, call)
        }
        if let member = expression.as(MemberAccessExprSyntax.self) {
            return (member.declName.baseName.text, nil)
        }
        return (expression.trimmedText, nil)
    }

    /// `@Relationship(deleteRule: .cascade, inverse: \T.p, minimumModelCount: 1, maximumModelCount: 5, ...)`.
    mutating func relationshipOptions(_ attribute: AttributeSyntax) -> RelationshipOptions {
        var options = RelationshipOptions()
        guard case .argumentList(let arguments) = attribute.arguments else { return options }
        for argument in arguments {
            let expression = argument.expression
            switch argument.label?.text {
            case "deleteRule":
                let (name, _) = Self.optionName(expression)
                if let rule = DeleteRule(rawValue: name) {
                    options.deleteRule = rule
                } else {
                    error("unknown delete rule `\(expression.trimmedText)`; expected .nullify, .cascade, .deny or .noAction", at: expression)
                }
            case "inverse":
                guard let path = Self.propertyKeyPath(expression) else {
                    error("`inverse:` must be a key path to one property (`\\Destination.property`)", at: expression)
                    continue
                }
                options.inverse = path
            case "minimumModelCount": options.minimumCount = integerLiteral(expression, for: "minimumModelCount")
            case "maximumModelCount": options.maximumCount = integerLiteral(expression, for: "maximumModelCount")
            case "originalName": options.originalName = stringLiteral(expression, for: "originalName")
            case "hashModifier": options.hashModifier = stringLiteral(expression, for: "hashModifier")
            case nil:
                if Self.optionName(expression).0 == "unique" {
                    options.isUnique = true
                } else {
                    error("unknown @Relationship option `\(expression.trimmedText)`", at: expression)
                }
            case let label?:
                error("unknown @Relationship argument '\(label):'", at: argument)
            }
        }
        return options
    }

    /// `#Unique<T>([\.a, \.b], [\.c])` / `#Index([\T.a])`: one group of property names per array.
    mutating func keyPathGroups(_ arguments: LabeledExprListSyntax, macro: String) -> [[String]] {
        var groups: [[String]] = []
        for argument in arguments {
            guard let array = argument.expression.as(ArrayExprSyntax.self) else {
                error("#\(macro) takes array literals of key paths (`[\\.a, \\.b]`)", at: argument)
                continue
            }
            var group: [String] = []
            for element in array.elements {
                guard let path = Self.propertyKeyPath(element.expression) else {
                    error("#\(macro) key path must name one stored property (`\\.name`)", at: element)
                    continue
                }
                group.append(path.property)
            }
            if !group.isEmpty { groups.append(group) }
        }
        return groups
    }

    /// A key path to one property: `\.name` → (nil, name); `\Trip.name` → (Trip, name). The parser
    /// cannot tell a qualified root from property components, so `\TitleSchemaV1.Title.cards` comes as
    /// root `TitleSchemaV1` with components `Title`, `cards`: capitalised leading components are taken as
    /// part of the root type.
    static func propertyKeyPath(_ expression: ExprSyntax) -> (root: String?, property: String)? {
        guard let path = keyPath(expression), let property = path.components.last else { return nil }
        let typeParts = path.components.dropLast()
        guard typeParts.allSatisfy({ $0.first?.isUppercase == true }) else { return nil }
        let root = ([path.root].compactMap { $0 } + typeParts).joined(separator: ".")
        return (root.isEmpty ? nil : root, property)
    }

    /// `\Root.a.b` → (Root, [a, b]); `\.a` → (nil, [a]).
    static func keyPath(_ expression: ExprSyntax) -> (root: String?, components: [String])? {
        guard let path = expression.as(KeyPathExprSyntax.self) else { return nil }
        var names: [String] = []
        for component in path.components {
            guard case .property(let property) = component.component else { return nil }
            names.append(property.declName.baseName.text)
        }
        return (path.root?.trimmedText, names)
    }

    private mutating func stringLiteral(_ expression: ExprSyntax, for label: String) -> String? {
        if let literal = expression.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
            case .stringSegment(let segment) = literal.segments.first
        {
            return segment.content.text
        }
        error("`\(label):` must be a plain string literal for the reader to know its value", at: expression)
        return nil
    }

    private mutating func integerLiteral(_ expression: ExprSyntax, for label: String) -> Int? {
        if let literal = expression.as(IntegerLiteralExprSyntax.self), let value = Int(literal.literal.text) {
            return value
        }
        error("`\(label):` must be an integer literal for the reader to know its value", at: expression)
        return nil
    }
}
