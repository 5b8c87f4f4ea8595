@_spi(Layouts) import InstarModel
import SwiftSyntax

extension AttributeMapper {
    /// The model default for a property's initial value, when it is a literal. Anything else (`UUID()`,
    /// `Date()`, `.now`, a constant) is evaluated by the app when SwiftData builds its schema, and that one
    /// value is written into the model (myhome Expense.id and .date carry concrete values): the reader
    /// cannot know it, says so, and records no default. Defaults never enter the version hash.
    mutating func defaultValue(_ expression: ExprSyntax, for type: AttributeType, at location: SourceLocation) -> String? {
        if expression.is(NilLiteralExprSyntax.self) { return nil }
        if let literal = expression.as(StringLiteralExprSyntax.self), literal.segments.count <= 1 {
            if case .stringSegment(let segment)? = literal.segments.first { return segment.content.text }
            if literal.segments.isEmpty { return "" }
        }
        if let literal = expression.as(BooleanLiteralExprSyntax.self) {
            return literal.literal.text == "true" ? "YES" : "NO"
        }
        var text = expression.trimmedText
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            text = "-" + prefix.expression.trimmedText
            if !(prefix.expression.is(IntegerLiteralExprSyntax.self) || prefix.expression.is(FloatLiteralExprSyntax.self)) {
                text = ""
            }
        } else if !(expression.is(IntegerLiteralExprSyntax.self) || expression.is(FloatLiteralExprSyntax.self)) {
            text = ""
        }
        if !text.isEmpty, type.isNumeric || type == .boolean {
            return text.replacingUnderscores
        }
        let note = "the app evaluates it when SwiftData builds the schema and the model keeps that one value"
        diagnostics.append(SwiftDataDiagnostic(
            .warning,
            "default `\(expression.trimmedText)` is not a literal (\(note)); no default recorded (defaults do not enter the version hash)",
            at: location, subject: owner, finding: .defaultNotLiteral(expression: expression.trimmedText)))
        return nil
    }
}

extension String {
    /// `1_000` → `1000`: Swift allows digit separators, model defaults do not.
    fileprivate var replacingUnderscores: String { split(separator: "_").joined() }
}
