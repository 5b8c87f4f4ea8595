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

    /// Keys set and removed in any order read back as a dictionary given the same edits would: the
    /// sorted groups and their ranges stay consistent through inserts before, between and after them.
    @Test func editsInAnyOrderMatchADictionary() {
        var kept = DeclarationLocations()
        var reference: [String: SourceLocation] = [:]
        var generator = SystemRandomNumberGenerator()
        let names = ["A", "B", "Ä", "Track", "Album", "z"]
        let properties = ["", "x", "title", "b.c", "Ω"]
        for step in 0..<2_000 {
            let entity = names.randomElement(using: &generator)!
            let property = properties.randomElement(using: &generator)!
            let key = property.isEmpty ? entity : "\(entity).\(property)"
            let location: SourceLocation? =
                Bool.random(using: &generator) ? SourceLocation(file: "f\(step % 3).yaml", line: step + 1, column: 2) : nil
            kept[key] = location
            reference[key] = location
            #expect(kept[key] == location, "\(key) after step \(step)")
        }
        #expect(kept.all == reference)
        #expect(kept == DeclarationLocations(reference), "equal however they were built")
    }

    /// Equality is by keys and locations, not by the order files were first named in.
    @Test func equalityIgnoresTheOrderFilesWereNamed() {
        var first = DeclarationLocations()
        first["A"] = SourceLocation(file: "a.yaml", line: 1)
        first["B"] = SourceLocation(file: "b.yaml", line: 2)
        var second = DeclarationLocations()
        second["B"] = SourceLocation(file: "b.yaml", line: 2)
        second["A"] = SourceLocation(file: "a.yaml", line: 1)
        #expect(first == second)
        second["A"] = SourceLocation(file: "a.yaml", line: 3)
        #expect(first != second)
    }
}
