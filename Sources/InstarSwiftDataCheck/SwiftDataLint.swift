@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarSwiftData

/// `instar lint --swiftdata <sources>`: the plan ``SwiftDataPlanCheck`` checks, as lint findings. For an
/// unversioned app given the store it shipped or that release's sources, the one step SwiftData infers at
/// launch is linted: each change it cannot infer is an error at the property's `file:line:column`, with the
/// fix. A versioned app's store is matched to a schema of its plan.
extension SwiftDataPlanCheck {
    /// The plan checked, and its findings as plan lint's (the plan's own lint, then SwiftData's).
    package static func lint(
        sources: [String], planName: String?, store: String?, classes: [String]?, earlier: [String], report: (Message) -> Void
    ) throws -> (plan: Plan, findings: [LintFinding]) {
        var checked = try make(
            sources: sources, planName: planName, store: store, classes: classes, earlier: earlier, currentOnly: true,
            hooks: { [:] }, report: report)
        if let store, !checked.isInferred, !checked.isRefused { try checked.match(store: store) }
        return (checked.plan, checked.lintFindings(store: store, sources: sources))
    }

    /// The findings as plan lint's: the plan's own lint (none for a refused plan), then SwiftData's that
    /// have a place: every one for an inferred step, the store's and the refusal's otherwise.
    package func lintFindings(store: String?, sources: [String]) -> [LintFinding] {
        // A refused plan has no versions to lint: its findings are the errors.
        var findings = isRefused ? [] : PlanLint.check(plan)
        let located = self.findings.filter {
            isInferred || $0.kind == .unknownModelVersion || $0.kind == .refusedPlan
        }
        if isInferred, located.contains(where: { $0.kind == .notInferable }) {
            // The same step, said once: at each property, rather than once for the sources as a whole.
            findings.removeAll { $0.check == .unreachableTarget }
        }
        for finding in located {
            let check: LintFinding.Check = finding.kind == .notInferable ? .unreachableTarget : .invalidPlan
            findings.append(LintFinding(
                .error, check, finding.message, location: finding.location ?? SourceLocation(file: store ?? sources.first ?? ""),
                hint: finding.fix))
        }
        return findings
    }
}
