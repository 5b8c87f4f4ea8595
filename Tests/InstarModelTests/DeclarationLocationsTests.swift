import Testing
@_spi(Layouts) import InstarModel

typealias SourceLocation = InstarModel.SourceLocation  // not Testing's

/// `DeclarationLocations` keeps what a `[String: SourceLocation]` kept, in less memory: every key
/// shape a reader writes comes back as written.
@Suite struct DeclarationLocationsTests {
    let given: [String: SourceLocation] = [
        "Track": SourceLocation(file: "v1.yaml", line: 3, column: 3),
        "Track.title": SourceLocation(file: "v1.yaml", line: 5, column: 7),
        "Track.title.stored": SourceLocation(file: "v1.yaml", line: 6, column: 9),
        "raw": SourceLocation(file: "v1.yaml", line: 40),
        "Album.name": SourceLocation(file: "Part2.xcdatamodel/contents"),
        "Album": SourceLocation(file: "Part2.xcdatamodel/contents", line: 0, column: 0),
    ]

    @Test func everyKeyReadsBackAsGiven() {
        let kept = DeclarationLocations(given)
        for (key, location) in given where location.line != 0 {
            #expect(kept[key] == location, "\(key)")
        }
        // Lines and columns are 1-based: 0 was never a position, and reads back as unknown.
        #expect(kept["Album"] == SourceLocation(file: "Part2.xcdatamodel/contents"))
        #expect(kept["Track.artist"] == nil)
        #expect(kept["Artist"] == nil)
        #expect(kept.all.count == given.count)
        #expect(kept.all["Track.title.stored"] == given["Track.title.stored"])
    }

    @Test func settingAndRemovingAKey() {
        var kept = DeclarationLocations()
        kept["Track.title"] = SourceLocation(file: "a.yaml", line: 2, column: 4)
        kept["Track.title"] = SourceLocation(file: "b.yaml", line: 9)
        kept["Track"] = SourceLocation(file: "a.yaml", line: 1)
        #expect(kept["Track.title"] == SourceLocation(file: "b.yaml", line: 9))
        #expect(kept["Track"] == SourceLocation(file: "a.yaml", line: 1))
        kept["Track.title"] = nil
        #expect(kept["Track.title"] == nil)
        #expect(kept["Track"] != nil)
        #expect(kept.all.keys.sorted() == ["Track"])
    }

    @Test func aModelLocatesWhatItWasGiven() throws {
        let model = try Model(
            name: "v1",
            entities: [Entity(name: "Track", attributes: [Attribute(name: "title", type: .string)])],
            locations: ["Track": SourceLocation(file: "v1.yaml", line: 2, column: 3),
                        "Track.title": SourceLocation(file: "v1.yaml", line: 4, column: 7)],
            source: "v1.yaml")
        #expect(model.location(ofEntity: "Track", property: "title")?.description == "v1.yaml:4:7")
        #expect(model.location(ofEntity: "Track", property: "missing")?.description == "v1.yaml:2:3")
        #expect(model.location(ofEntity: "Other")?.description == "v1.yaml")
    }
}
