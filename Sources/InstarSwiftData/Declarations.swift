@_spi(Layouts) import InstarModel
import SwiftSyntax

/// A declaration with the names of the types it is nested in (`["AppSchemaV1"]` for a `@Model` class
/// inside a `VersionedSchema` enum or an extension of it): SwiftData's entity name is the bare type name,
/// but type references resolve from the innermost scope outwards, as the compiler resolves them.
///
/// It keeps a reference into its file rather than the node (``ParsedFile``): ``node`` finds it again.
struct Scoped<Node: SyntaxProtocol> {
    let name: String
    var scope: [String]
    let file: ParsedFile
    let location: SourceLocation
    private let reference: NodeReference<Node>

    init(name: String, scope: [String], node: Node, file: ParsedFile) {
        self.name = name
        self.scope = scope
        self.file = file
        self.location = file.location(of: node)
        self.reference = file.reference(to: node)
    }

    /// The same declaration under another name: where a type alias it was declared through leads.
    func renamed(_ name: String, scope: [String]) -> Scoped {
        var copy = Scoped(self, name: name)
        copy.scope = scope
        return copy
    }

    private init(_ other: Scoped, name: String) {
        self.name = name
        self.scope = other.scope
        self.file = other.file
        self.location = other.location
        self.reference = other.reference
    }

    var node: Node { file.node(reference) }
    /// The node's own kind, known without parsing again.
    var kind: SyntaxKind { reference.kind }
    var qualifiedName: String { (scope + [name]).joined(separator: ".") }
}

/// Every declaration of the sources that a SwiftData schema can refer to, by qualified name.
struct Declarations {
    var modelClasses: [String: Scoped<ClassDeclSyntax>] = [:]
    var structs: [String: Scoped<StructDeclSyntax>] = [:]
    var enums: [String: Scoped<EnumDeclSyntax>] = [:]
    var typeAliases: [String: Scoped<TypeAliasDeclSyntax>] = [:]
    /// Enums and structs that conform to `VersionedSchema` (by qualified name), in source order.
    var versionedSchemas: [Scoped<DeclSyntax>] = []
    /// Qualified names of the `VersionedSchema` types declared (not only extended) in the sources:
    /// ``indexSchemaNames()``.
    private(set) var schemaNames: Set<String> = []
    /// Types conforming to `SchemaMigrationPlan`, in source order.
    var migrationPlans: [Scoped<DeclSyntax>] = []
    /// `let`/`var` at file level or static members, by qualified name: stages declared apart from a plan.
    var constants: [String: Scoped<PatternBindingSyntax>] = [:]
    /// Calls that list an unversioned app's model types literally: `Schema([A.self, B.self])`,
    /// `ModelContainer(for: A.self, B.self)` and `.modelContainer(for: [A.self, B.self])`
    /// (``DeclarationCollector/listedModelTypes(_:)``; in-memory containers and previews are left out: they
    /// never open a shipped store).
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

    /// `extension Current { @Model final class Item }` with `typealias Current = SchemaV3`: the compiler
    /// puts `Item` in `SchemaV3`, so the reader records it there (and everything else declared in an
    /// extension of an alias). Run once, after every file is collected.
    mutating func placeExtensionsOfAliases() {
        indexSchemaNames()
        defer { indexSchemaNames() }
        func canonical(_ scope: [String]) -> [String] {
            guard let first = scope.first, !isDeclared(first), typeAliases[first] != nil,
                let target = resolve(first, from: [])
            else { return scope }
            return target.split(separator: ".").map(String.init) + scope.dropFirst()
        }
        func rekey<Node>(_ table: [String: Scoped<Node>]) -> [String: Scoped<Node>] {
            var result: [String: Scoped<Node>] = [:]
            for (_, var value) in table {
                value.scope = canonical(value.scope)
                result[value.qualifiedName] = value
            }
            return result
        }
        guard !typeAliases.isEmpty else { return }
        let order = modelClassOrder.map { name -> String in
            guard let decl = modelClasses[name] else { return name }
            return (canonical(decl.scope) + [decl.name]).joined(separator: ".")
        }
        modelClasses = rekey(modelClasses)
        structs = rekey(structs)
        enums = rekey(enums)
        constants = rekey(constants)
        modelClassOrder = order
        // `extension Current: VersionedSchema`: the schema is the type the alias names.
        func retarget(_ decl: Scoped<DeclSyntax>) -> Scoped<DeclSyntax> {
            let path = canonical(decl.scope + [decl.name])
            return decl.renamed(path.last ?? decl.name, scope: Array(path.dropLast()))
        }
        versionedSchemas = versionedSchemas.map(retarget)
        migrationPlans = migrationPlans.map(retarget)
        typeAliases = rekey(typeAliases)
    }

    /// The qualified name a type reference written in `scope` denotes, following type aliases; nil when
    /// no declaration of the sources has that name (a type from another module, a typo, or a cycle of
    /// type aliases, which ``expandingAliases(_:from:)`` reports).
    ///
    /// As the compiler looks names up: the innermost scope first, then each enclosing one, members of
    /// extensions included (they are recorded under the extended type); in a qualified name `A.B`, `A`
    /// is looked up that way (it may be a type alias) and `B` among its members.
    func resolve(_ reference: String, from scope: [String]) -> String? {
        var visiting: Set<String> = []
        return resolve(reference, from: scope, visiting: &visiting)
    }

    private func isDeclared(_ qualified: String) -> Bool {
        modelClasses[qualified] != nil || structs[qualified] != nil || enums[qualified] != nil
            || schemaNames.contains(qualified)
    }

    /// Rebuilds ``schemaNames`` after ``versionedSchemas`` changed: name lookup runs for every type
    /// reference of every schema, and scanning the list each time made 1,000 schemas take minutes.
    mutating func indexSchemaNames() {
        schemaNames = Set(versionedSchemas.filter { $0.kind != .extensionDecl }.map(\.qualifiedName))
    }

    private func resolve(_ reference: String, from scope: [String], visiting: inout Set<String>) -> String? {
        var prefix = scope
        while true {
            let candidate = (prefix + [reference]).joined(separator: ".")
            if isDeclared(candidate) { return candidate }
            if let alias = typeAliases[candidate] {
                guard visiting.insert(candidate).inserted else { return nil }
                let target = alias.node.initializer.value.trimmedText
                return resolve(target, from: alias.scope, visiting: &visiting)
            }
            if prefix.isEmpty { break }
            prefix.removeLast()
        }
        // `Current.Item` where `Current` is a type alias (or a type found only through one): the first
        // component by scope, the rest as members of what it denotes.
        let components = reference.split(separator: ".", maxSplits: 1).map(String.init)
        guard components.count == 2, let base = resolve(components[0], from: scope, visiting: &visiting),
            base != components[0]
        else { return nil }
        return resolve(components[1], from: [base], visiting: &visiting).flatMap { resolved in
            resolved.hasPrefix(base + ".") ? resolved : nil
        }
    }

    /// What a type alias in scope names, by its qualified name, when `reference` is one.
    private func alias(_ reference: String, from scope: [String]) -> Scoped<TypeAliasDeclSyntax>? {
        var prefix = scope
        while true {
            let candidate = (prefix + [reference]).joined(separator: ".")
            if isDeclared(candidate) { return nil }
            if let alias = typeAliases[candidate] { return alias }
            if prefix.isEmpty { return nil }
            prefix.removeLast()
        }
    }

    /// The declared type a property initialized with `Base.member` has: `Base` when it is an enum of
    /// the sources with that case (without associated values) or a type with a `static let`/`var member`
    /// of its own type (annotated `Base` or `Self`, or initialized with `Base(...)`, `Self(...)`,
    /// `.init(...)`); nil otherwise, since only the compiler could tell.
    func typeOfMember(_ access: MemberAccessExprSyntax, from scope: [String]) -> String? {
        guard let base = access.base?.trimmedText, let resolved = resolve(base, from: scope) else { return nil }
        let member = access.declName.baseName.text
        let block: MemberBlockSyntax
        let ownNames: Set<String> = [base, "Self", resolved, String(resolved.split(separator: ".").last ?? "")]
        if let enumDecl = enums[resolved] {
            block = enumDecl.node.memberBlock
            for item in block.members {
                guard let caseDecl = item.decl.as(EnumCaseDeclSyntax.self) else { continue }
                if caseDecl.elements.contains(where: { $0.name.text == member && $0.parameterClause == nil }) {
                    return resolved
                }
            }
        } else if let structDecl = structs[resolved] {
            block = structDecl.node.memberBlock
        } else {
            return nil
        }
        for item in block.members {
            guard let variable = item.decl.as(VariableDeclSyntax.self),
                variable.modifiers.contains(where: { $0.name.text == "static" })
            else { continue }
            for binding in variable.bindings where binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == member {
                if let annotation = binding.typeAnnotation?.type.trimmedText {
                    return ownNames.contains(annotation) ? resolved : nil
                }
                guard let call = binding.initializer?.value.as(FunctionCallExprSyntax.self) else { return nil }
                var callee = call.calledExpression.trimmedText
                if callee.hasSuffix(".init") { callee = String(callee.dropLast(5)) }
                return callee.isEmpty || ownNames.contains(callee) ? resolved : nil
            }
        }
        return nil
    }

    /// A declared property's type as the compiler sees it: type aliases followed, a `Base.member`
    /// initializer checked against `Base`'s declaration. Returns an error message when neither the
    /// reader nor anyone reading the source could be sure.
    func settle(_ property: inout DeclaredProperty, scope: [String]) -> String? {
        if let access = property.inferredFromMember {
            guard let resolved = typeOfMember(access, from: scope) else {
                return "stored property '\(property.name)' has no type annotation and `\(access.trimmedText)` is not a case or static member of a type declared in these sources (of that same type); write the type (`var \(property.name): T = ...`)"
            }
            property.type = .declared(resolved)
            return nil
        }
        do {
            property.type = try expandingAliases(property.type, from: scope)
        } catch {
            return error.message + " (\(error.location))"
        }
        return nil
    }

    /// A cycle of type aliases (`typealias A = B`, `typealias B = A`), at the alias where it closes.
    struct AliasCycle: Error {
        let names: [String]
        let location: SourceLocation

        var message: String {
            "type alias `\(names[0])` refers to itself (\(names.joined(separator: " → "))): the compiler rejects this; make one of them name a real type"
        }
    }

    /// `type` with every type alias replaced by the type it stands for (`ChannelID` → `String`,
    /// `Item` → the declared `SchemaV3.Item`), aliases declared in any scope and any file. A name an
    /// alias leads to is looked up from the alias's own scope, so what it reaches is recorded as
    /// ``SwiftType/declared(_:)``; names that are not aliases are left as written.
    func expandingAliases(_ type: SwiftType, from scope: [String]) throws(AliasCycle) -> SwiftType {
        var chain: [String] = []
        return try expand(type, from: scope, viaAlias: false, chain: &chain)
    }

    private func expand(_ type: SwiftType, from scope: [String], viaAlias: Bool, chain: inout [String]) throws(AliasCycle) -> SwiftType {
        switch type {
        case .named(let name):
            if let alias = alias(name, from: scope) {
                let qualified = alias.qualifiedName
                if let start = chain.firstIndex(of: qualified) {
                    throw AliasCycle(names: Array(chain[start...]) + [qualified], location: alias.location)
                }
                guard alias.node.genericParameterClause == nil else { return type }
                chain.append(qualified)
                defer { chain.removeLast() }
                return try expand(SwiftType(alias.node.initializer.value), from: alias.scope, viaAlias: true, chain: &chain)
            }
            if viaAlias, let resolved = resolve(name, from: scope) { return .declared(resolved) }
            return type
        case .declared: return type
        case .optional(let wrapped): return .optional(try expand(wrapped, from: scope, viaAlias: viaAlias, chain: &chain))
        case .array(let element): return .array(try expand(element, from: scope, viaAlias: viaAlias, chain: &chain))
        case .set(let element): return .set(try expand(element, from: scope, viaAlias: viaAlias, chain: &chain))
        case .dictionary(let key, let value):
            return .dictionary(
                try expand(key, from: scope, viaAlias: viaAlias, chain: &chain),
                try expand(value, from: scope, viaAlias: viaAlias, chain: &chain))
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
            let text = inherited.type.trimmedText
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
        let extended = node.extendedType.trimmedText.split(separator: ".").map(String.init)
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
        scope.removeLast(node.extendedType.trimmedText.split(separator: ".").count)
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
        if Self.listedModelTypes(node) != nil, !Self.isPreviewOrInMemory(node) {
            found.schemaCalls.append(Scoped(name: "Schema", scope: scope, node: node, file: file))
        }
        return .visitChildren
    }

    /// The model types a call lists literally, as the compiler passes them: `Schema([A.self, B.self])`;
    /// `ModelContainer(for: A.self, B.self, migrationPlan: …)` (a variadic list: `for:` and the unlabelled
    /// arguments after it); `.modelContainer(for: A.self)` / `.modelContainer(for: [A.self, B.self])`
    /// (SwiftUI's modifier). Nil for anything else (`ModelContainer(for: schema)` names a value).
    static func listedModelTypes(_ node: FunctionCallExprSyntax) -> [ExprSyntax]? {
        let callee = node.calledExpression.trimmedText
        let arguments = Array(node.arguments)
        guard let first = arguments.first else { return nil }
        func elements(_ array: ArrayExprSyntax) -> [ExprSyntax]? {
            let list = array.elements.map(\.expression)
            return list.allSatisfy { StaticMembers.metatype($0) != nil } ? list : nil
        }
        switch callee {
        case "Schema", "SwiftData.Schema":
            guard first.label == nil, let array = first.expression.as(ArrayExprSyntax.self) else { return nil }
            return elements(array)
        case "ModelContainer", "SwiftData.ModelContainer":
            guard first.label?.text == "for" else { return nil }
            if let array = first.expression.as(ArrayExprSyntax.self) { return elements(array) }
            var list: [ExprSyntax] = []
            for (index, argument) in arguments.enumerated() where index == 0 || argument.label == nil {
                guard StaticMembers.metatype(argument.expression) != nil else { return index == 0 ? nil : list }
                list.append(argument.expression)
            }
            return list
        default:
            guard let member = node.calledExpression.as(MemberAccessExprSyntax.self),
                member.declName.baseName.text == "modelContainer", first.label?.text == "for"
            else { return nil }
            if let array = first.expression.as(ArrayExprSyntax.self) { return elements(array) }
            return StaticMembers.metatype(first.expression) != nil ? [first.expression] : nil
        }
    }

    /// A container that never opens a shipped store: `inMemory: true`, or one made in a `#Preview` or a
    /// `PreviewProvider`.
    static func isPreviewOrInMemory(_ node: FunctionCallExprSyntax) -> Bool {
        if node.arguments.contains(where: { $0.label?.text == "inMemory" && $0.expression.trimmedText == "true" }) {
            return true
        }
        var parent = node.parent
        while let current = parent {
            if let macro = current.as(MacroExpansionExprSyntax.self), macro.macroName.text == "Preview" { return true }
            if let macro = current.as(MacroExpansionDeclSyntax.self), macro.macroName.text == "Preview" { return true }
            if let type = current.as(StructDeclSyntax.self),
                type.inheritanceClause?.inheritedTypes.contains(where: { $0.type.trimmedText == "PreviewProvider" }) == true
            {
                return true
            }
            parent = current.parent
        }
        return false
    }
}

extension AttributeListSyntax {
    /// The attribute spelled `@name` or `@Module.name`, if present.
    func attribute(named name: String) -> AttributeSyntax? {
        for element in self {
            guard case .attribute(let attribute) = element else { continue }
            let spelled = attribute.attributeName.trimmedText
            if spelled == name || spelled.hasSuffix(".\(name)") { return attribute }
        }
        return nil
    }

    func hasAttribute(named name: String) -> Bool { attribute(named: name) != nil }
}
