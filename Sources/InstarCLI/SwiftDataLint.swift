import Instar
import InstarSwiftData
import InstarSwiftDataCheck

/// `instar lint --swiftdata <sources>`: the library's ``SwiftDataPlanCheck/lint(sources:planName:store:classes:earlier:report:)``
/// (the plan `plan --swiftdata` checks, as lint findings), its notes and failure printed.
extension SwiftDataPlanCheck {
    static func lintPlan(
        sources: [String], planName: String?, store: String?, classes: [String]?, earlier: [String]
    ) throws -> (plan: Plan, findings: [LintFinding]) {
        try rendered {
            try lint(sources: sources, planName: planName, store: store, classes: classes, earlier: earlier, report: printMessage)
        }
    }
}
