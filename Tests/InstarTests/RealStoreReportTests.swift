import Foundation
import GRDB
import InstarModel
import InstarStore
import Testing

/// Reports users met on real stores: each names what it is about.
@Suite struct RealStoreReportTests {
    let v1 = "entities:\n  Track:\n    attributes:\n      title: string?\n"

    @Test func aRequiredValueWithoutADefaultIsNamed() throws {
        let f = try StoreFixture(try model(v1, name: "V1"))
        try f.execute("INSERT INTO Track (_pk, title) VALUES (1, 'a'), (2, 'b')")
        let v2 = try model(v1 + "      duration: int64\n", name: "V2")
        let before = try f.fileBytes()
        do {
            try f.store.migrate(from: try model(v1, name: "V1"), to: v2)
            Issue.record("expected a data condition error")
        } catch let error as StoreError {
            #expect(error.kind == .dataCondition)
            #expect(error.message.contains("2 'Track' row(s) exist, but the step V1 → V2 adds 'Track.duration', required and without a default"), "\(error.message)")
        }
        #expect(try f.fileBytes() == before)
    }
}
