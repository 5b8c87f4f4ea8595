import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarPlanner
@testable import InstarRuntime
@_spi(Layouts) import InstarStore
import Testing
import InstarSeeding
import InstarTestSupport
import InstarStoreTestSupport

/// Numbers from files, stores and the command line that once trapped on integer overflow, and bytes
/// that trapped in FoundationXML (found by `Scripts/fuzz`): each is now an error or handled.
@Suite struct HostileNumbersTests {
    @Test(arguments: [
        ("stepCost: 9223372036854775807", "stepCost", "9223372036854775807"),
        ("stepCost: -5", "stepCost", "-5"),
        ("maxSkip: 9223372036854775807", "maxSkip", "9223372036854775807"),
    ])
    func planOptionsOutOfRangeAreProblemsAtTheirLine(_ option: String, _ key: String, _ value: String) throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = packageRoot.appendingPathComponent("Plans/garage/models").path
        let plan = folder.appendingPathComponent("plan.yaml")
        try """
            name: extreme
            options:
              \(option)
            versions:
              - \(models)/v1.yaml
              - \(models)/v2.yaml
            """.write(to: plan, atomically: true, encoding: .utf8)
        #expect {
            _ = try PlanFileReader.read(path: plan.path)
        } throws: { error in
            (error as? PlanError)?.problems.contains {
                $0.kind == .invalidValue && $0.key == key && $0.value == value && $0.location?.line == 3
                    && $0.location?.file.hasSuffix("plan.yaml") == true
            } == true
        }
    }

    /// A store's rowids span all of Int64: batch arithmetic stays in range and covers every key once.
    @Test func keyRangesAtTheEdgesOfInt64() {
        #expect(KeyRanges.count(low: .min, high: .max, size: 1) == Int.max)
        #expect(KeyRanges.count(low: .min, high: .max, size: 1 << 62) == 4)
        #expect(KeyRanges.end(from: .max - 1, size: 500, high: .max) == .max)
        #expect(KeyRanges.end(from: 1, size: 500, high: 10_000) == 500)
        #expect(KeyRanges.resume(after: String(Int64.max), low: 0, high: .max) == nil)
        #expect(KeyRanges.resume(after: nil, low: 7, high: 9) == 7)
        #expect(KeyRanges.resume(after: "8", low: 7, high: 9) == 9)
        #expect(KeyRanges.resume(after: "not a number", low: 7, high: 9) == 7)
    }

    @Test func seedingRefusesRowCountsAndKeysThatWouldOverflow() throws {
        let f = try StoreFixture(try model("entities:\n  Note:\n    attributes:\n      title: string?\n", name: "V1"))
        #expect {
            _ = try f.store.seed(model: try model("entities:\n  Note:\n    attributes:\n      title: string?\n", name: "V1"),
                                 options: SeedOptions(rows: .max))
        } throws: { (($0 as? SeedError)?.refusals.map(\.reason) ?? []).contains(.tooManyRows(.max, maximum: 1_000_000_000)) }
        try f.execute("INSERT INTO Note (_pk, title) VALUES (9223372036854775807, 'last')")
        #expect {
            _ = try f.store.seed(model: try model("entities:\n  Note:\n    attributes:\n      title: string?\n", name: "V1"),
                                 options: SeedOptions(rows: 1))
        } throws: { (($0 as? SeedError)?.refusals.map(\.reason) ?? []).contains(.keysOverflow(highest: .max)) }
        #expect(try f.column("Note", "title").count == 1)
    }

    @Test func xmlThatIsNotUTF8IsAPositionedError() {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model>\n  <entity name=\"A\" representedClassName=\"A".utf8)
        bytes += [0xF4, 0x65] + Array("\"/>\n</model>\n".utf8)
        #expect {
            _ = try XcodeModelReader.parse(data: Data(bytes), name: "M", file: "contents")
        } throws: { error in
            (error as? ModelError)?.problems.contains {
                $0.kind == .syntax && $0.value == "0xf4" && $0.location?.file == "contents" && $0.location?.line == 3
            } == true
        }
    }
}
