import InstarModel
import SwiftSyntax

/// A parsed file and the converter that turns its syntax positions into `line:column`.
struct ParsedFile {
    let path: String
    let tree: SourceFileSyntax
    let converter: SourceLocationConverter

    func location(of node: some SyntaxProtocol) -> SourceLocation {
        let place = converter.location(for: node.positionAfterSkippingLeadingTrivia)
        return SourceLocation(file: path, line: place.line, column: place.column)
    }
}

/// A declaration with the names of the types it is nested in (`["AppSchemaV1"]` for a `@Model` class
/// inside a `VersionedSchema` enum or an extension of it): SwiftData's entity name is the bare type name,
/// but type references resolve from the innermost scope outwards, as the compiler resolves them.
struct Scoped<Node: SyntaxProtocol> {
    let name: String
    let scope: [String]
    let node: Node
    let file: ParsedFile

    var qualifiedName: String { (scope + [name]).joined(separator: ".") }
    var location: SourceLocation { file.location(of: node) }
}

/// Every declaration of the sources that a SwiftData schema can refer to, by qualified name.
struct Declarations {
    var modelClasses: [String: Scoped<ClassDeclSyntax>] = [:]
    var structs: [String: Scoped<StructDeclSyntax>] = [:]
    var enums: [String: Scoped<EnumDeclSyntax>] = [:]
    var typeAliases: [String: Scoped<TypeAliasDeclSyntax>] = [:]
    /// Enums and structs that conform to `VersionedSchema` (by qualified name), in source order.
    var versionedSchemas: [Scoped<DeclSyntax>] = []
    /// Types conforming to `SchemaMigrationPlan`, in source order.
    var migrationPlans: [Scoped<DeclSyntax>] = []
    /// `let`/`var` at file level or static members, by qualified name: stages declared apart from a plan.
    var constants: [String: Scoped<PatternBindingSyntax>] = [:]
    /// `Schema([...])` calls whose argument lists model types literally.
    var schemaCalls: [Scoped<FunctionCallExprSyntax>] = []
    /// Order in which `@Model` classes were met, for stable output.
    var modelClassOrder: [String] = []
    /// Types declared more than once under one qualified name (two targets' sources read together), with
    /// every place: a schema that needs one of them cannot tell which SwiftData saw.
    var conflicts: [String: [SourceLocation]] = [:]

    mutating func noteConflict<Node: SyntaxProtocol>(_ existing: Scoped<Node>?, _ new: Scoped<Node>) {
        guard let existing else { return }
        if conflicts[new.qualifiedName] == nil { conflicts[new.qualifiedName] = [existing.location] }
        conflicts[new.qualifiedName]!.append(new.location)
    }

    /// The qualified name a type reference written in `scope` denotes, following type aliases; nil when
    /// no declaration of the sources has that name (a type from another module, or a typo).
    func resolve(_ reference: String, from scope: [String], depth: Int = 0) -> String? {
        guard depth < 16 else { return nil }
        var prefix = scope
        while true {
            let candidate = (prefix + [reference]).joined(separator: ".")
            if modelClasses[candidate] != nil || structs[candidate] != nil || enums[candidate] != nil
                || versionedSchemas.contains(where: { $0.qualifiedName == candidate })
            {
                return candidate
            }
            if let alias = typeAliases[candidate] {
                let target = alias.node.initializer.value.trimmedDescription
                return resolve(target, from: alias.scope, depth: depth + 1)
            }
            if prefix.isEmpty { return nil }
            prefix.removeLast()
        }
    }
}

/// Walks one file and records the declarations SwiftData schemas are made of.
final class DeclarationCollector: SyntaxVisitor {
    private let file: ParsedFile
    private(set) var found: Declarations
    private var scope: [String] = []

    init(file: ParsedFile, into declarations: Declarations) {
        self.file = file
        self.found = declarations
        super.init(viewMode: .sourceAccurate)
    }

    private func conforms(_ clause: InheritanceClauseSyntax?, to names: Set<String>) -> Bool {
        clause?.inheritedTypes.contains { inherited in
            let text = inherited.type.trimmedDescription
            return names.contains(text) || names.contains(String(text.split(separator: ".").last ?? ""))
        } ?? false
    }

    private func noteTypes(_ node: some DeclSyntaxProtocol, name: String, inheritance: InheritanceClauseSyntax?) {
        let scoped = Scoped(name: name, scope: scope, node: DeclSyntax(node), file: file)
        if conforms(inheritance, to: ["VersionedSchema"]) { found.versionedSchemas.append(scoped) }
        if conforms(inheritance, to: ["SchemaMigrationPlan"]) { found.migrationPlans.append(scoped) }
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        let name = node.name.text
        if node.attributes.hasAttribute(named: "Model") {
            let scoped = Scoped(name: name, scope: scope, node: node, file: file)
            found.noteConflict(found.modelClasses[scoped.qualifiedName], scoped)
            if found.modelClasses[scoped.qualifiedName] == nil { found.modelClassOrder.append(scoped.qualifiedName) }
            found.modelClasses[scoped.qualifiedName] = scoped
        }
        noteTypes(node, name: name, inheritance: node.inheritanceClause)
        scope.append(name)
        return .visitChildren
    }
    override func visitPost(_ node: ClassDeclSyntax) { scope.removeLast() }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        let scoped = Scoped(name: node.name.text, scope: scope, node: node, file: file)
        found.noteConflict(found.structs[scoped.qualifiedName], scoped)
        found.structs[scoped.qualifiedName] = scoped
        noteTypes(node, name: node.name.text, inheritance: node.inheritanceClause)
        scope.append(node.name.text)
        return .visitChildren
    }
    override func visitPost(_ node: StructDeclSyntax) { scope.removeLast() }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        let scoped = Scoped(name: node.name.text, scope: scope, node: node, file: file)
        found.noteConflict(found.enums[scoped.qualifiedName], scoped)
        found.enums[scoped.qualifiedName] = scoped
        noteTypes(node, name: node.name.text, inheritance: node.inheritanceClause)
        scope.append(node.name.text)
        return .visitChildren
    }
    override func visitPost(_ node: EnumDeclSyntax) { scope.removeLast() }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        let extended = node.extendedType.trimmedDescription.split(separator: ".").map(String.init)
        if conforms(node.inheritanceClause, to: ["VersionedSchema", "SchemaMigrationPlan"]) {
            let scoped = Scoped(
                name: extended.last ?? "", scope: Array(extended.dropLast()), node: DeclSyntax(node), file: file)
            if conforms(node.inheritanceClause, to: ["VersionedSchema"]) { found.versionedSchemas.append(scoped) }
            if conforms(node.inheritanceClause, to: ["SchemaMigrationPlan"]) { found.migrationPlans.append(scoped) }
        }
        scope.append(contentsOf: extended)
        return .visitChildren
    }
    override func visitPost(_ node: ExtensionDeclSyntax) {
        scope.removeLast(node.extendedType.trimmedDescription.split(separator: ".").count)
    }

    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
        scope.append(node.name.text)
        return .visitChildren
    }
    override func visitPost(_ node: ActorDeclSyntax) { scope.removeLast() }

    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
        let scoped = Scoped(name: node.name.text, scope: scope, node: node, file: file)
        found.typeAliases[scoped.qualifiedName] = scoped
        return .skipChildren
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        // File-level constants and static members: a migration stage is often declared apart from the plan.
        let isStatic = node.modifiers.contains { $0.name.text == "static" }
        if scope.isEmpty || isStatic {
            for binding in node.bindings {
                guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
                let scoped = Scoped(name: identifier.identifier.text, scope: scope, node: binding, file: file)
                found.constants[scoped.qualifiedName] = scoped
            }
        }
        return .visitChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        if node.calledExpression.trimmedDescription == "Schema",
            let first = node.arguments.first, first.label == nil,
            first.expression.is(ArrayExprSyntax.self)
        {
            found.schemaCalls.append(Scoped(name: "Schema", scope: scope, node: node, file: file))
        }
        return .visitChildren
    }
}

extension AttributeListSyntax {
    /// The attribute spelled `@name` or `@Module.name`, if present.
    func attribute(named name: String) -> AttributeSyntax? {
        for element in self {
            guard case .attribute(let attribute) = element else { continue }
            let spelled = attribute.attributeName.trimmedDescription
            if spelled == name || spelled.hasSuffix(".\(name)") { return attribute }
        }
        return nil
    }

    func hasAttribute(named name: String) -> Bool { attribute(named: name) != nil }
}
