@_spi(Layouts) import InstarModel
import SwiftSyntax

/// Reads `SchemaMigrationPlan` types: `schemas` and `stages`, following stages declared as separate
/// constants (Andrei's `fileprivate let migrateV1toV2 = MigrationStage.lightweight(...)`).
struct MigrationPlanReader {
    let declarations: Declarations
    var diagnostics: [SwiftDataDiagnostic] = []
    /// The plans ``plans()`` left out, with the errors that say why.
    var refused: [RefusedMigrationPlan] = []

    mutating func plans() -> [SwiftDataMigrationPlan] {
        var byName: [String: [Scoped<DeclSyntax>]] = [:]
        var order: [String] = []
        for decl in declarations.migrationPlans {
            if byName[decl.qualifiedName] == nil { order.append(decl.qualifiedName) }
            byName[decl.qualifiedName, default: []].append(decl)
        }
        var read: [SwiftDataMigrationPlan] = []
        for name in order {
            if let plan = plan(byName[name]!) {
                read.append(plan)
            } else {
                let errors = diagnostics.filter { $0.subject == name && $0.severity == .error }
                refused.append(RefusedMigrationPlan(name: name, location: byName[name]![0].location, errors: errors))
            }
        }
        return read
    }

    private mutating func error(
        _ message: String, at location: SourceLocation, subject: String, finding: SwiftDataDiagnostic.Finding? = nil
    ) {
        diagnostics.append(SwiftDataDiagnostic(.error, message, at: location, subject: subject, finding: finding))
    }

    private mutating func plan(_ decls: [Scoped<DeclSyntax>]) -> SwiftDataMigrationPlan? {
        let name = decls[0].qualifiedName
        let scope = decls[0].scope + [decls[0].name]
        guard let (schemasValue, schemasFile) = StaticMembers.value(of: "schemas", in: decls),
            let schemaTypes = StaticMembers.typeList(schemasValue)
        else {
            error("`static var schemas` is missing or not an array literal of `Schema.self` values", at: decls[0].location, subject: name)
            return nil
        }
        var schemas: [String] = []
        for (type, node) in schemaTypes {
            guard let resolved = declarations.resolve(type, from: scope) else {
                error("schema `\(type)` is not declared in these sources", at: schemasFile.location(of: node), subject: name)
                return nil
            }
            schemas.append(resolved)
        }
        var stages: [SwiftDataMigrationStage] = []
        if let (stagesValue, stagesFile) = StaticMembers.value(of: "stages", in: decls) {
            guard let array = stagesValue.as(ArrayExprSyntax.self) else {
                error("`static var stages` is not an array literal", at: stagesFile.location(of: stagesValue), subject: name)
                return nil
            }
            for element in array.elements {
                guard let stage = stage(element.expression, file: stagesFile, scope: scope, plan: name) else { return nil }
                stages.append(stage)
            }
        } else {
            error("`static var stages` is missing or not a single expression", at: decls[0].location, subject: name)
            return nil
        }
        guard checkDirections(stages, schemas: schemas, plan: name) else { return nil }
        return SwiftDataMigrationPlan(name: name, schemas: schemas, stages: stages, location: decls[0].location)
    }

    /// A store is migrated forward through `schemas`, in their order: a stage to its own schema, or back
    /// to an earlier one (which is also how stages form a cycle), would loop or be silently ignored by
    /// the chain Instar builds; refused at the stage, and the plan left out. (tungvt-it-92's
    /// `DowngradeMigrationPlan` in the corpus has one backward stage; no store shows what SwiftData does
    /// with it.) A stage naming a schema `schemas` does not list is left to the plan checks, which say so.
    private mutating func checkDirections(_ stages: [SwiftDataMigrationStage], schemas: [String], plan: String) -> Bool {
        var ok = true
        for stage in stages {
            if stage.fromVersion == stage.toVersion {
                error("the stage goes from \(stage.fromVersion) to itself: a stage migrates from one schema to a later one; remove it or name the next schema in `toVersion:`", at: stage.location, subject: plan)
                ok = false
                continue
            }
            guard let from = schemas.firstIndex(of: stage.fromVersion), let to = schemas.firstIndex(of: stage.toVersion) else { continue }
            if to < from {
                error("the stage goes backwards, from \(stage.fromVersion) (schema \(from + 1) of `schemas`) to \(stage.toVersion) (schema \(to + 1)): Instar plans a store forward through `schemas` (no store shows SwiftData running a stage backwards), and stages that lead back form a cycle; swap `fromVersion:` and `toVersion:` or reorder `schemas` (a separate downgrade plan: choose the forward plan by its name)", at: stage.location, subject: plan,
                    finding: .stageGoesBackwards(plan: plan, from: stage.fromVersion, to: stage.toVersion))
                ok = false
            }
        }
        return ok
    }

    /// A stage expression, or a reference to a constant holding one.
    private mutating func stage(_ expression: ExprSyntax, file: ParsedFile, scope: [String], plan: String, depth: Int = 0)
        -> SwiftDataMigrationStage?
    {
        if let reference = Self.constantName(expression), depth < 8 {
            var prefix = scope
            while true {
                let key = (prefix + [reference]).joined(separator: ".")
                if let constant = declarations.constants[key], let value = constant.node.initializer?.value {
                    return stage(value, file: constant.file, scope: constant.scope, plan: plan, depth: depth + 1)
                }
                if prefix.isEmpty { break }
                prefix.removeLast()
            }
        }
        guard let call = expression.as(FunctionCallExprSyntax.self),
            let member = call.calledExpression.as(MemberAccessExprSyntax.self),
            let kind = SwiftDataMigrationStage.Kind(rawValue: member.declName.baseName.text)
        else {
            error("stage `\(expression.trimmedText.prefix(60))` is not `.lightweight(...)`, `.custom(...)` or a constant holding one", at: file.location(of: expression), subject: plan)
            return nil
        }
        var arguments: [String: ExprSyntax] = [:]
        for argument in call.arguments { arguments[argument.label?.text ?? ""] = argument.expression }
        guard let from = arguments["fromVersion"].flatMap(StaticMembers.metatype),
            let to = arguments["toVersion"].flatMap(StaticMembers.metatype),
            let fromResolved = declarations.resolve(from, from: scope),
            let toResolved = declarations.resolve(to, from: scope)
        else {
            error("stage needs `fromVersion: A.self, toVersion: B.self` naming schemas declared in these sources", at: file.location(of: call), subject: plan)
            return nil
        }
        return SwiftDataMigrationStage(
            kind: kind, fromVersion: fromResolved, toVersion: toResolved,
            willMigrate: closureName(arguments["willMigrate"]), didMigrate: closureName(arguments["didMigrate"] ?? call.trailingClosure.map { ExprSyntax($0) }),
            location: file.location(of: call))
    }

    /// `migrateV1toV2` or `Self.migrateV1toV2`: the name of a constant that may hold a stage.
    private static func constantName(_ expression: ExprSyntax) -> String? {
        if let reference = expression.as(DeclReferenceExprSyntax.self) { return reference.baseName.text }
        if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base,
            base.trimmedText == "Self"
        {
            return member.declName.baseName.text
        }
        return nil
    }

    /// `nil` → nil; `{ ... }` → "inline"; `Self.migrate` / `migrate` → its text.
    private func closureName(_ expression: ExprSyntax?) -> String? {
        guard let expression, !expression.is(NilLiteralExprSyntax.self) else { return nil }
        if expression.is(ClosureExprSyntax.self) { return "inline" }
        return expression.trimmedText
    }
}
