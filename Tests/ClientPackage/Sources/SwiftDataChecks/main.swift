// A build tool or an app's test calling SwiftData's checks through the public product
// InstarSwiftDataCheck only: if this builds, every name below is public (a `package` one would not be).
// Only compiled by CI; run with the app's model sources as arguments, it prints each finding.
import Foundation
import Instar
import InstarSwiftDataCheck

func appCalls() throws {
    do {
        let checked = try SwiftDataPlanCheck.check(
            sources: [URL(fileURLWithPath: "Models")], migrationPlan: nil, store: URL(fileURLWithPath: "default.store"),
            classes: nil, earlier: [])
        let plan: Plan = checked.exportablePlan
        _ = (plan, checked.plan, checked.isInferred, checked.isRefused, checked.storeSchema, checked.notes, checked.passed, checked.migrationPlanName)
        for finding in checked.findings {
            let kind: SwiftDataFinding.Kind = finding.kind
            let location: SourceLocation? = finding.location
            _ = (kind.rawValue, location?.description, finding.versions, finding.entity, finding.property, finding.message, finding.fix, finding.text)
            _ = try JSONEncoder().encode(finding)
        }
        _ = SwiftDataPlanCheck.currentSchemaName
        _ = Migrator(plan: ImpliedPlan(exported: checked.exportablePlan, store: URL(fileURLWithPath: "default.store")).plan)
    } catch let error as SwiftDataPlanCheckError {
        let reason: SwiftDataPlanCheckError.Reason = error.reason
        _ = (reason, error.messages, error.storeError, error.description)
    }
}

if CommandLine.arguments.count > 1 {
    do {
        let checked = try SwiftDataPlanCheck.check(sources: CommandLine.arguments.dropFirst().map { URL(fileURLWithPath: $0) })
        for finding in checked.findings { print(finding.text) }
        print(checked.passed ? "passed" : "\(checked.findings.count) finding(s)")
    } catch {
        print(error.description)
    }
}
