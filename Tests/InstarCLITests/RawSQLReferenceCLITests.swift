import Foundation
import Testing
import InstarTestSupport

/// The cases of RawSQLReferenceTests (InstarPlannerTests) that run `instar`.
@Suite struct RawSQLReferenceCLITests {
    @Test func theAdoptExampleIsClean() throws {
        let result = try runInstar(["lint", packageRoot.appendingPathComponent("Plans/adopt/plan.yaml").path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
}
