@_spi(Layouts) import InstarModel
import SwiftSyntax

/// Reads the value of a static member such as `static var models: [any PersistentModel.Type] { [A.self] }`
/// or `static let versionIdentifier = Schema.Version(1, 0, 0)`, across the type's declaration and its
/// extensions.
enum StaticMembers {
    /// The expression a static property of the declaration evaluates to: its initializer, or the single
    /// expression (or `return`) of its getter. Nil when absent or not a single expression.
    static func value(of name: String, in decls: [Scoped<DeclSyntax>]) -> (ExprSyntax, ParsedFile)? {
        for decl in decls {
            guard let members = memberBlock(of: decl.node) else { continue }
            for member in members.members {
                guard let variable = member.decl.as(VariableDeclSyntax.self),
                    variable.modifiers.contains(where: { $0.name.text == "static" })
                else { continue }
                for binding in variable.bindings {
                    guard binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name else { continue }
                    if let value = binding.initializer?.value { return (value, decl.file) }
                    if let expression = getterExpression(binding.accessorBlock) { return (expression, decl.file) }
                }
            }
        }
        return nil
    }

    static func memberBlock(of decl: DeclSyntax) -> MemberBlockSyntax? {
        decl.as(EnumDeclSyntax.self)?.memberBlock ?? decl.as(StructDeclSyntax.self)?.memberBlock
            ?? decl.as(ClassDeclSyntax.self)?.memberBlock ?? decl.as(ExtensionDeclSyntax.self)?.memberBlock
    }

    /// `{ [A.self] }` or `{ return [A.self] }` or `get { ... }` with one of those.
    static func getterExpression(_ block: AccessorBlockSyntax?) -> ExprSyntax? {
        guard let block else { return nil }
        let statements: CodeBlockItemListSyntax
        switch block.accessors {
        case .getter(let items): statements = items
        case .accessors(let list):
            guard let body = list.first(where: { $0.accessorSpecifier.text == "get" })?.body else { return nil }
            statements = body.statements
        }
        guard statements.count == 1, let item = statements.first?.item else { return nil }
        switch item {
        case .expr(let expression): return expression
        case .stmt(let statement):
            if let ret = statement.as(ReturnStmtSyntax.self) { return ret.expression }
            return statement.as(ExpressionStmtSyntax.self)?.expression
        case .decl: return nil
        }
    }

    /// `[A.self, B.self]` → the type references `A`, `B` with their positions; nil when the expression is
    /// not an array literal of `.self` expressions.
    static func typeList(_ expression: ExprSyntax) -> [(String, ExprSyntax)]? {
        guard let array = expression.as(ArrayExprSyntax.self) else { return nil }
        var types: [(String, ExprSyntax)] = []
        for element in array.elements {
            guard let type = metatype(element.expression) else { return nil }
            types.append((type, element.expression))
        }
        return types
    }

    /// `A.self` → `A`; `A.B.self` → `A.B`.
    static func metatype(_ expression: ExprSyntax) -> String? {
        guard let member = expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self",
            let base = member.base
        else { return nil }
        return base.trimmedText
    }

    /// `Schema.Version(1, 0, 0)` or `.init(1, 0, 0)` → "1.0.0".
    static func version(_ expression: ExprSyntax) -> String? {
        guard let call = expression.as(FunctionCallExprSyntax.self) else { return nil }
        let callee = call.calledExpression.trimmedText
        guard ["Schema.Version", "Version", ".init", "Schema.Version.init"].contains(callee) else { return nil }
        let numbers = call.arguments.compactMap { $0.expression.as(IntegerLiteralExprSyntax.self)?.literal.text }
        guard numbers.count == 3, call.arguments.count == 3 else { return nil }
        return numbers.joined(separator: ".")
    }
}
