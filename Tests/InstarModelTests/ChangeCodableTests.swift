import Foundation
import Testing

@testable import InstarInference
@_spi(Layouts) import InstarModel
import InstarTestSupport

/// Changes, conditions, warnings and diffs as `instar diff --format json` writes them: the verdict
/// spread over flat keys and put back together on decoding.
@Suite struct ChangeCodableTests {
    func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func roundTrip<Value: Codable & Equatable>(_ value: Value) throws -> Value {
        try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(value))
    }

    @Test func everyVerdictComesBackFromItsKeys() throws {
        let conditions: [DataCondition] = [
            .noNulls(entity: "E", property: "p"), .noRows(entity: "E"), .unique(entity: "E", properties: ["a", "b"]),
            .linked(entity: "E", by: "Owner", relationship: "items"),
        ]
        let verdicts = [Verdict.inferable("in place"), .notInferable("needs a stage")] + conditions.map { .conditional("if", $0) }
        for verdict in verdicts {
            let change = Change(.attributeTypeChanged, entity: "E", property: "p", oldName: "q", before: "String", after: "Integer 64", verdict: verdict, dropsData: true)
            #expect(try roundTrip(change) == change)
        }
        for condition in conditions { #expect(try roundTrip(condition) == condition) }
    }

    @Test func changeKeysAreFlat() throws {
        let change = Change(.attributeOptionalityChanged, entity: "E", property: "m", verdict: .conditional("fill NULLs", .noNulls(entity: "E", property: "m")))
        #expect(
            try json(change)
                == #"{"condition":{"entity":"E","kind":"noNulls","property":"m","text":"no NULL in E.m"},"dropsData":false,"entity":"E","inferable":true,"kind":"attributeOptionalityChanged","property":"m","reason":"fill NULLs"}"#
        )
        #expect(
            try json(DataCondition.linked(entity: "Part", by: "Car", relationship: "parts"))
                == #"{"entity":"Part","kind":"linked","owner":"Car","relationship":"parts","text":"every Part row linked by Car.parts"}"#)
    }

    /// A warning's ``Warning/dropped`` is not written: the decoded warning has none.
    @Test func warningsWriteWhatScriptsRead() throws {
        let warning = Warning(.probableRename, entity: "E", property: "new", dropped: .init(entity: "E", property: "old"), message: "probable rename")
        #expect(try json(warning) == #"{"entity":"E","kind":"probableRename","message":"probable rename","property":"new"}"#)
        var undropped = warning
        undropped.dropped = nil
        #expect(try roundTrip(warning) == undropped && (try roundTrip(undropped)) == undropped)
    }

    @Test func diffWritesItsVersionsVerdictAndChanges() throws {
        let diff = ModelDiff(
            from: try model("entities:\n  E:\n    attributes:\n      n: string?\n", name: "A"),
            to: try model("entities:\n  E:\n    attributes:\n      n: int64?\n", name: "B"))
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(diff)) as? [String: Any])
        #expect(object.keys.sorted() == ["changes", "from", "inferable", "to", "warnings"])
        #expect(object["from"] as? String == "A" && object["to"] as? String == "B" && object["inferable"] as? Bool == false)
        let changes = try JSONDecoder().decode([Change].self, from: JSONSerialization.data(withJSONObject: object["changes"]!))
        #expect(changes == diff.changes && !changes.isEmpty)
    }
}
