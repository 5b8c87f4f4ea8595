@_spi(Layouts) import InstarModel
import SwiftSyntax

/// What `@Attribute(...)` says about a property.
struct AttributeOptions {
    var isUnique = false
    var externalStorage = false
    /// The transformer named by `.transformable(by:)`: a type (`ColorTransformer.self`) or a registered name.
    var transformer: String?
    var preservesValueOnDeletion = false
    /// `.ephemeral`: SwiftData keeps the property in the model as a transient attribute (no column, not
    /// hashed), default included (PegaseUIData EntityRubric.total, EntityTransaction.solde).
    var isEphemeral = false
    var originalName: String?
    var hashModifier: String?
}

/// What `@Relationship(...)` says about a property.
struct RelationshipOptions {
    var isUnique = false
    var deleteRule: DeleteRule?
    /// `inverse: \Root.property`: the root as written (nil for `\.property`) and the property.
    var inverse: (root: String?, property: String)?
    var minimumCount: Int?
    var maximumCount: Int?
    var originalName: String?
    var hashModifier: String?
}

/// A stored property of a `@Model` class, as declared, before its type is resolved.
struct DeclaredProperty {
    let name: String
    var type: SwiftType
    let initializer: ExprSyntax?
    /// `var placement = Placement.standard`: the type is `Placement` only if the sources declare it with
    /// that case or a static member of its own type; checked where declarations are known
    /// (``Declarations/typeOfMember(_:)``), and an error there if not.
    var inferredFromMember: MemberAccessExprSyntax?
    var attribute = AttributeOptions()
    var relationship: RelationshipOptions?
    let location: SourceLocation
}

/// `#Unique` and `#Index` of a `@Model` class, and its stored properties.
struct DeclaredClass {
    var properties: [DeclaredProperty] = []
    var uniqueness: [[String]] = []
    var indexes: [[String]] = []
}

/// Reads the members of a `@Model` class: stored properties with their `@Attribute`/`@Relationship`
/// options, `#Unique` and `#Index`. Computed properties, `static` ones and `@Transient` ones are not
/// part of the schema SwiftData builds (no store shows them), so they are skipped.
struct ClassMemberReader {
    let file: ParsedFile
    let owner: String
    var diagnostics: [SwiftDataDiagnostic] = []

    init(file: ParsedFile, owner: String) {
        self.file = file
        self.owner = owner
    }

    mutating func read(_ members: MemberBlockSyntax) -> DeclaredClass {
        var declared = DeclaredClass()
        for member in members.members {
            if let variable = member.decl.as(VariableDeclSyntax.self) {
                declared.properties += properties(of: variable)
            } else if let macro = member.decl.as(MacroExpansionDeclSyntax.self) {
                let name = macro.macroName.text
                guard name == "Unique" || name == "Index" else { continue }
                let groups = keyPathGroups(macro.arguments, macro: name)
                if name == "Unique" { declared.uniqueness += groups } else { declared.indexes += groups }
            } else if let ifConfig = member.decl.as(IfConfigDeclSyntax.self) {
                error("`#if` inside a @Model class: which branch SwiftData sees depends on build settings; move the condition outside the schema", at: ifConfig)
            }
        }
        return declared
    }

    mutating func error(_ message: String, at node: some SyntaxProtocol) {
        diagnostics.append(SwiftDataDiagnostic(.error, message, at: file.location(of: node), subject: owner))
    }

    mutating func warn(_ message: String, at node: some SyntaxProtocol) {
        diagnostics.append(SwiftDataDiagnostic(.warning, message, at: file.location(of: node), subject: owner))
    }

    private mutating func properties(of variable: VariableDeclSyntax) -> [DeclaredProperty] {
        if variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) }) { return [] }
        if variable.attributes.hasAttribute(named: "Transient") { return [] }
        var result: [DeclaredProperty] = []
        let bindings = Array(variable.bindings)
        for (index, binding) in bindings.enumerated() {
            if let accessors = binding.accessorBlock, Self.isComputed(accessors) { continue }
            guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
                error("a tuple pattern declares several properties at once; declare each stored property on its own", at: binding)
                continue
            }
            let name = identifier.identifier.text.trimming("`")
            // `var a, b: Int`: a binding without type or value takes the type of the next binding that has one.
            let annotation = binding.typeAnnotation?.type
                ?? (binding.initializer == nil ? bindings[(index + 1)...].lazy.compactMap(\.typeAnnotation).first?.type : nil)
            let type: SwiftType
            var member: MemberAccessExprSyntax?
            if let annotation {
                type = SwiftType(annotation)
            } else if let value = binding.initializer?.value, let inferred = SwiftType(inferredFrom: value) {
                type = inferred
            } else if let access = binding.initializer?.value.as(MemberAccessExprSyntax.self), let base = access.base,
                let written = SwiftType(typeExpression: base)
            {
                type = written
                member = access
            } else {
                error("stored property '\(name)' has no type annotation and its initial value does not show its type; write the type (`var \(name): T = ...`)", at: binding)
                continue
            }
            var property = DeclaredProperty(
                name: name, type: type, initializer: binding.initializer?.value, inferredFromMember: member,
                location: file.location(of: binding))
            if let attribute = variable.attributes.attribute(named: "Attribute") {
                property.attribute = attributeOptions(attribute)
            }
            if let relationship = variable.attributes.attribute(named: "Relationship") {
                property.relationship = relationshipOptions(relationship)
            }
            result.append(property)
        }
        return result
    }

    /// A getter (`var x: T { ... }` or `get { ... }`) makes a property computed; `willSet`/`didSet` do not.
    static func isComputed(_ block: AccessorBlockSyntax) -> Bool {
        switch block.accessors {
        case .getter: true
        case .accessors(let list):
            list.contains { ["get", "_read", "unsafeAddress"].contains($0.accessorSpecifier.text) }
        }
    }
}

extension String {
    func trimming(_ characters: String) -> String {
        var s = Substring(self)
        while let first = s.first, characters.contains(first) { s.removeFirst() }
        while let last = s.last, characters.contains(last) { s.removeLast() }
        return String(s)
    }
}
