import Foundation
import GRDB
import InstarMapping
@_spi(Layouts) import InstarModel
import InstarPlanner
import InstarRuntime
@_spi(Layouts) import InstarStore
import Testing
import InstarTestSupport
@testable import InstarCLI

/// The cases of MappingHookScaffoldTests (InstarRuntimeTests) that run `instar`.
@Suite struct MappingHookScaffoldCLITests {
    @Test func planScaffoldWritesTheTemplatesOfAPlanFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let classes = packageRoot.appendingPathComponent("Plans/school-classes")
        let mapping = try String(contentsOf: classes.appendingPathComponent("v2-to-v3.mapping.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "    destination: Student\n", with: "    destination: Student\n    policy: ClassNamePolicy\n")
        try mapping.write(to: directory.appendingPathComponent("v2-to-v3.mapping.yaml"), atomically: true, encoding: .utf8)
        let plan = try String(contentsOf: classes.appendingPathComponent("plan.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "  - models/", with: "  - \(classes.path)/models/")
        let planPath = directory.appendingPathComponent("plan.yaml").path
        try plan.write(toFile: planPath, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("scaffold").path
        let result = try runInstar(["plan", planPath, "--from", "Classes 2", "--scaffold", out, "--format", "json"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let files = result.member("scaffold") as? [[String: Any]] ?? []
        #expect(files.map { $0["path"] as? String } == [out + "/v2-to-v3.StudentToStudent.sql"], "one mapping hook template: \(files)")
        let written = try String(contentsOfFile: out + "/v2-to-v3.StudentToStudent.sql", encoding: .utf8)
        #expect(written.contains("the custom policy 'ClassNamePolicy'") && written.contains(#"UPDATE "Student""#))
        // Never overwritten.
        let again = try runInstar(["plan", planPath, "--from", "Classes 2", "--scaffold", out])
        #expect(again.status != 0, "refused (the words: golden cli/scaffold-refusals.txt): \(again.stderr)")
        #expect(try String(contentsOfFile: out + "/v2-to-v3.StudentToStudent.sql", encoding: .utf8) == written)
    }
}
