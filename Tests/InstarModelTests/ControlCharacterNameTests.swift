import Foundation
@_spi(Layouts) import InstarModel
import Testing

@testable import InstarModelIO

/// A NUL (or another control character) in a name used to pass every reader and fail later inside
/// SQLite, without file or line: each reader now refuses it at the name, through the one rule in the
/// model's validation (``NameRule``).
@Suite struct ControlCharacterNameTests {
    static func problems(_ read: () throws(ModelError) -> Model) -> [ModelProblem] {
        do {
            _ = try read()
            return []
        } catch {
            return error.problems.filter { $0.kind == .invalidName }
        }
    }

    @Test func aYAMLModelRefusesANulInAnAttributeNameAtItsLine() throws {
        let text = """
            name: Music
            entities:
              Track:
                attributes:
                  title: string
                  "pla\\0ys": int32?
            """
        let found = Self.problems { () throws(ModelError) in try ModelFileReader.parse(text, file: "music.yaml") }
        let problem = try #require(found.first, "a NUL in a name was accepted")
        #expect(found.count == 1)
        #expect(problem.entity == "Track" && problem.property == "pla\u{0}ys")
        #expect(problem.location?.file == "music.yaml" && problem.location?.line == 6, "\(problem)")
        #expect(problem.message.contains("U+0000 at character 4") && !problem.message.contains("\u{0}"))
    }

    @Test func aJSONModelRefusesAControlCharacterInAnEntityName() throws {
        let text = #"{"name": "Music", "entities": {"Tr\u001back": {"attributes": {"title": "string"}}}}"#
        let found = Self.problems { () throws(ModelError) in try ModelFileReader.parse(text, file: "music.json") }
        let problem = try #require(found.first)
        #expect(problem.entity == "Tr\u{1B}ack" && problem.location?.file == "music.json" && problem.location?.line == 1)
        #expect(problem.message.contains("entity name 'Tr\\u{1B}ack'"))
    }

    @Test func anXcodeModelRefusesATabInARelationshipNameAtItsLine() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model userDefinedModelVersionIdentifier="">
                <entity name="Album">
                    <relationship name="tr&#9;acks" optional="YES" toMany="YES" destinationEntity="Track" inverseName="album"/>
                </entity>
                <entity name="Track">
                    <relationship name="album" optional="YES" maxCount="1" destinationEntity="Album" inverseName="tr&#9;acks"/>
                </entity>
            </model>
            """
        let found = Self.problems { () throws(ModelError) in
            try XcodeModelReader.parse(data: Data(xml.utf8), name: "Music", file: "Music.xcdatamodel/contents")
        }
        let declared = try #require(found.first { $0.property == "tr\tacks" }, "\(found)")
        #expect(declared.entity == "Album" && declared.location?.line == 4, "\(declared)")
        let inverse = try #require(found.first { $0.property == "album" }, "\(found)")
        #expect(inverse.entity == "Track" && inverse.message.hasPrefix("inverse name") && inverse.location?.line == 7)
    }

    @Test func aVersionNameWithANewlineIsRefused() {
        let found = Self.problems { () throws(ModelError) in
            try Model(name: "V\n2", entities: [Entity(name: "E", attributes: [Attribute(name: "a", type: .string)])], source: "v2.yaml")
        }
        #expect(found.count == 1 && found.first?.location?.file == "v2.yaml")
        #expect(found.first?.message.hasPrefix("version name 'V\\u{A}2'") == true, "\(found)")
    }

    @Test func printableNamesAreUntouched() {
        #expect(NameRule.controlCharacter(in: "Überstunden_2 (Kopie) 🎵") == nil)
        #expect(NameRule.controlCharacter(in: "a\u{7F}")?.position == 2)
        #expect(NameRule.controlCharacter(in: "\u{85}x")?.position == 1)
    }
}
