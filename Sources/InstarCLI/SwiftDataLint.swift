@_spi(Layouts) import Instar
import InstarSwiftData
import InstarSwiftDataCheck

/// `instar lint --swiftdata <sources>`: the library's ``SwiftDataPlanCheck/lint(sources:planName:store:classes:earlier:report:)``
/// (the plan `plan --swiftdata` checks, as lint findings), its notes and failure printed.
extension SwiftDataPlanCheck {
    /// The one plan (`instar check` judges one release of one container), its notes and failure printed.
    static func lintPlan(
        sources: [String], planName: String?, store: String?, classes: [String]?, earlier: [String]
    ) throws -> (plan: Plan, findings: [LintFinding]) {
        try rendered {
            try lint(sources: sources, planName: planName, store: store, classes: classes, earlier: earlier, report: printMessage)
        }
    }

    /// Every plan the sources declare, when they declare several and nothing chose one
    /// (``makeEach(sources:planName:hooksFile:store:classes:earlier:)``), each with its findings.
    static func lintPlans(
        sources: [String], planName: String?, store: String?, classes: [String]?, earlier: [String]
    ) throws -> [(plan: Plan, findings: [LintFinding])] {
        try makeEach(sources: sources, planName: planName, hooksFile: nil, store: store, classes: classes, earlier: earlier).map { one in
            var checked = one
            if let store, !checked.isInferred, !checked.isRefused { try checked.matchStore(store) }
            return (checked.plan, checked.lintFindings(store: store, sources: sources))
        }
    }
}
