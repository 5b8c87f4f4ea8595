import Foundation
@_spi(Layouts) import InstarModel
import InstarSwiftData
import InstarSwiftDataCheck
import Testing

/// A SwiftData finding encodes to exactly the JSON `instar plan --swiftdata` documents: the fix as
/// `hint`, the location as one `"file:line:column"` string.
@Suite struct SwiftDataFindingCodableTests {
    func sortedJSON(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    let finding = SwiftDataFinding(
        kind: .notInferable, message: "Drink.when changes type", fix: "use a .custom stage",
        location: SourceLocation(file: "C:/App:Models/Models.swift", line: 12, column: 5), versions: ["V1", "V2"],
        entity: "Drink", property: "when")

    @Test func aFindingWritesTheCLIsKeys() throws {
        #expect(
            try sortedJSON(finding)
                == #"{"entity":"Drink","hint":"use a .custom stage","kind":"not-inferable","location":"C:/App:Models/Models.swift:12:5","message":"Drink.when changes type","property":"when","versions":["V1","V2"]}"#
        )
        let bare = SwiftDataFinding(kind: .unreachable, message: "m", fix: "f", location: nil)
        #expect(try sortedJSON(bare) == #"{"hint":"f","kind":"unreachable","message":"m"}"#)
    }

    /// The location string is split from the right: a path with colons reads back whole.
    @Test func aRefusalRoundTrips() throws {
        let lineOnly = SwiftDataFinding(
            kind: .refusedPlan, message: "m", fix: "f", location: SourceLocation(file: "a:b.swift", line: 3))
        let fileOnly = SwiftDataFinding(kind: .unknownSchema, message: "m", fix: "f", location: SourceLocation(file: "Models.swift"))
        let refusal = SwiftDataPlanRefusal(plan: "Plan", problems: [finding, lineOnly, fileOnly])
        let decoded = try JSONDecoder().decode(SwiftDataPlanRefusal.self, from: JSONEncoder().encode(refusal))
        #expect(decoded == refusal && !decoded.passed)
        let text = try sortedJSON(SwiftDataPlanRefusal(plan: "Plan", problems: [fileOnly]))
        #expect(
            text == #"{"passed":false,"plan":"Plan","problems":[{"hint":"f","kind":"unknown-schema","location":"Models.swift","message":"m"}]}"#)
    }
}
