import Instar
import InstarSwiftData

/// `instar lint --swiftdata <sources>`: the plan `plan --swiftdata` checks, as lint findings. For an
/// unversioned app given the store it shipped (`--store`) or that release's sources (`--from-swiftdata`),
/// the one step SwiftData infers at launch is linted: each change it cannot infer is an error at the
/// property's `file:line:column`, with the fix (VersionedSchemas and a stage; `instar plan --scaffold`
/// writes them). A versioned app's store is matched to a schema of its plan.
extension SwiftDataPlan {
    static func lintPlan(
        sources: [String], planName: String?, store: String?, classes: [String]?, earlier: [String]
    ) throws -> (plan: Plan, findings: [LintFinding]) {
        var checked = try make(
            sources: sources, planName: planName, hooksFile: nil, store: store, classes: classes, earlier: earlier,
            currentOnly: true)
        if let store, !checked.isInferred, !checked.isRefused { try checked.matchStore(store) }
        // A refused plan has no versions to lint: its findings are the errors.
        var findings = checked.isRefused ? [] : PlanLint.check(checked.plan)
        let located = checked.findings.filter {
            checked.isInferred || $0.kind == "unknown-model-version" || $0.kind == "refused-plan"
        }
        if checked.isInferred, located.contains(where: { $0.kind == "not-inferable" }) {
            // The same step, said once: at each property, rather than once for the sources as a whole.
            findings.removeAll { $0.check == .unreachableTarget }
        }
        for finding in located {
            let check: LintFinding.Check = finding.kind == "not-inferable" ? .unreachableTarget : .invalidPlan
            findings.append(LintFinding(
                .error, check, finding.message, location: finding.location ?? SourceLocation(file: store ?? sources.first ?? ""),
                hint: finding.hint))
        }
        return (checked.plan, findings)
    }
}
