import Foundation
@_spi(Layouts) import Instar
import Testing

/// `migrate --progress json`: one object per event, named in `event`, steps counted from 1.
@Suite struct ProgressEventCodableTests {
    static let events: [ProgressEvent] = [
        .started(run: "r", steps: 2, resumedAt: nil), .started(run: "r", steps: 2, resumedAt: "step 1/2"),
        .stepStarted(index: 0, of: 2, from: "V1", to: "V2", kind: .fused, estimatedRows: 7),
        .hook(name: "fill", done: 3, total: nil), .hook(name: "fill", done: 3, total: 9),
        .slice(table: "ZCAR", copied: 100, of: 400, secondsLeft: 1.5), .reclaiming(rowsLeft: 10, freePagesLeft: nil),
        .stepFinished(index: 1, of: 2, seconds: 0.25), .finished(steps: 2, seconds: 1),
    ] + PauseReason.allCases.map { .paused(reason: $0) }

    @Test func everyEventRoundTrips() throws {
        for event in Self.events {
            #expect(try JSONDecoder().decode(ProgressEvent.self, from: JSONEncoder().encode(event)) == event)
        }
    }

    @Test func keysAreFlatAndStepsOneBased() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let started = ProgressEvent.stepStarted(index: 0, of: 2, from: "V1", to: "V2", kind: .lightweight, estimatedRows: 12)
        #expect(
            String(decoding: try encoder.encode(started), as: UTF8.self)
                == #"{"estimatedRows":12,"event":"stepStarted","from":"V1","kind":"lightweight","of":2,"step":1,"to":"V2"}"#)
        #expect(
            String(decoding: try encoder.encode(ProgressEvent.paused(reason: .timeBudget)), as: UTF8.self)
                == #"{"event":"paused","reason":"the time budget is spent"}"#)
    }
}
