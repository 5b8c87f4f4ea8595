@_spi(Layouts) import InstarModel
import SwiftSyntax

extension SwiftDataSources {
    /// Each `VersionedSchema` type (its declaration and extensions together): `versionIdentifier` and `models`.
    mutating func readVersionedSchemas() {
        var byName: [String: [Scoped<DeclSyntax>]] = [:]
        var order: [String] = []
        for decl in declarations.versionedSchemas {
            if byName[decl.qualifiedName] == nil { order.append(decl.qualifiedName) }
            byName[decl.qualifiedName, default: []].append(decl)
        }
        // Versions usually repeat most classes unchanged: one copy of each repeated entity.
        let interner = EntityInterner()
        for name in order {
            let decls = byName[name]!
            let location = decls[0].location
            guard let (versionValue, versionFile) = StaticMembers.value(of: "versionIdentifier", in: decls) else {
                fail("`static var versionIdentifier` is missing or not a single expression", at: location, schema: name)
                continue
            }
            guard let version = StaticMembers.version(versionValue) else {
                fail("versionIdentifier `\(versionValue.trimmedText)` is not `Schema.Version(major, minor, patch)` with integer literals", at: versionFile.location(of: versionValue), schema: name)
                continue
            }
            guard let (modelsValue, modelsFile) = StaticMembers.value(of: "models", in: decls) else {
                fail("`static var models` is missing or not a single expression", at: location, schema: name)
                continue
            }
            guard let classes = modelClasses(modelsValue, file: modelsFile, scope: decls[0].scope + [decls[0].name], schema: name) else { continue }
            if let schema = build(
                name: name, version: version, versioned: true, classes: classes, at: location, sharing: interner)
            {
                schemas.append(schema)
            }
        }
    }

    /// `Schema([A.self, B.self])`, `ModelContainer(for: A.self, B.self)`, `.modelContainer(for: [A.self])`:
    /// an unversioned schema (version identifier "1.0.0").
    mutating func readSchemaCall(_ call: Scoped<FunctionCallExprSyntax>) {
        let location = call.location
        let name = "Schema@\(location)"
        guard let list = DeclarationCollector.listedModelTypes(call.node),
            let classes = modelClasses(list, file: call.file, scope: call.scope, schema: name)
        else { return }
        if let schema = build(name: name, version: "1.0.0", versioned: false, classes: classes, at: location) {
            schemas.append(schema)
        }
    }

    private mutating func fail(_ message: String, at location: SourceLocation, schema: String) {
        note([SwiftDataDiagnostic(.error, message, at: location, subject: schema)])
    }

    /// `[A.self, B.self]` resolved to `@Model` classes from the schema's scope (nested classes first).
    private mutating func modelClasses(_ expression: ExprSyntax, file: ParsedFile, scope: [String], schema: String) -> [String]? {
        guard let types = StaticMembers.typeList(expression) else {
            fail("models are not an array literal of `Model.self` values (`\(expression.trimmedText.prefix(60))`); the reader cannot evaluate other expressions", at: file.location(of: expression), schema: schema)
            return nil
        }
        return modelClasses(types, file: file, scope: scope, schema: schema)
    }

    /// `A.self` expressions resolved to `@Model` classes from `scope`.
    private mutating func modelClasses(_ list: [ExprSyntax], file: ParsedFile, scope: [String], schema: String) -> [String]? {
        modelClasses(list.compactMap { expression in StaticMembers.metatype(expression).map { ($0, expression) } },
                     file: file, scope: scope, schema: schema)
    }

    private mutating func modelClasses(_ types: [(String, ExprSyntax)], file: ParsedFile, scope: [String], schema: String) -> [String]? {
        var classes: [String] = []
        for (type, node) in types {
            guard let resolved = declarations.resolve(type, from: scope), declarations.modelClasses[resolved] != nil else {
                fail("`\(type)` is not a @Model class declared in these sources", at: file.location(of: node), schema: schema)
                return nil
            }
            if !classes.contains(resolved) { classes.append(resolved) }
        }
        return classes
    }
}
