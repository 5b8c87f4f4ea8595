import Foundation
@_spi(Layouts) import InstarModel
import Testing

@testable import InstarModelIO
import InstarTestSupport

@Suite struct ModelFileReaderTests {
    let music = """
        name: Music 2
        identifier: "2.0"
        entities:
          Media:
            abstract: true
            attributes:
              title: string
          Track:
            parent: Media
            unique: [[title, album]]
            indexes:
              byPlays: [-plays, title]
            attributes:
              plays: int32 = 0
              subtitle: string?
              rating: {type: double, optional: true, renamedFrom: score, hashModifier: r2}
              artwork: {type: binary, optional: true, externalStorage: true}
            relationships:
              album: Album? inverse tracks
              artists: Artist[] ordered inverse tracks
          Album:
            relationships:
              tracks: {to: Track, toMany: true, inverse: album, deleteRule: cascade, min: 0, max: 50}
          Artist:
            renamedFrom: Performer
            relationships:
              tracks: Track[] inverse artists
        """

    @Test func shortAndLongFormsCarryEveryDetail() throws {
        let m = try model(music)
        #expect(m.name == "Music 2")
        #expect(m.versionIdentifier == "2.0")
        let media = try #require(m.entity(named: "Media"))
        #expect(media.isAbstract)
        #expect(media.attributes[0].isOptional == false)
        let track = try #require(m.entity(named: "Track"))
        #expect(track.parent == "Media")
        #expect(track.uniquenessConstraints == [["title", "album"]])
        #expect(track.indexes == [FetchIndex(name: "byPlays", elements: [.init(property: "plays", ascending: false), .init(property: "title")])])
        let plays = try #require(track.attribute(named: "plays"))
        #expect(plays.type == .integer32 && plays.defaultValue == "0" && !plays.isOptional)
        #expect(track.attribute(named: "subtitle")?.isOptional == true)
        let rating = try #require(track.attribute(named: "rating"))
        #expect(rating.renamingIdentifier == "score" && rating.versionHashModifier == "r2" && rating.isOptional)
        #expect(track.attribute(named: "artwork")?.allowsExternalBinaryDataStorage == true)
        let album = try #require(track.relationship(named: "album"))
        #expect(album.destination == "Album" && album.inverse == "tracks" && album.isOptional && !album.isToMany)
        #expect(album.maxCount == 1)
        let artists = try #require(track.relationship(named: "artists"))
        #expect(artists.isToMany && artists.isOrdered && artists.maxCount == 0)
        let tracks = try #require(m.entity(named: "Album")?.relationship(named: "tracks"))
        #expect(tracks.deleteRule == .cascade && tracks.maxCount == 50)
        #expect(m.entity(named: "Artist")?.renamingIdentifier == "Performer")
        // Inherited properties are resolved, root first.
        #expect(m.properties(of: "Track").first?.name == "title")
        #expect(m.properties(of: "Track").first?.declaringEntity == "Media")
    }

    @Test func jsonWithTheSameSchemaGivesTheSameHashes() throws {
        let json = """
            {"name": "J", "entities": {"Track": {"attributes": {"title": "string?", "plays": {"type": "int64", "default": "0"}},
             "relationships": {"album": "Album? inverse tracks"}},
             "Album": {"relationships": {"tracks": "Track[] inverse album"}}}}
            """
        let yaml = """
            entities:
              Track:
                attributes:
                  title: string?
                  plays: int64 = 0
                relationships:
                  album: Album? inverse tracks
              Album:
                relationships:
                  tracks: Track[] inverse album
            """
        #expect(VersionHashes(model: try model(json)).entityHashes == VersionHashes(model: try model(yaml)).entityHashes)
    }

    func problems(_ text: String) -> [ModelProblem] {
        do {
            _ = try model(text)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func syntaxErrorHasLineAndColumn() {
        let found = problems("entities:\n  Track:\n    attributes: [unclosed\n")
        #expect(found.count == 1)
        #expect(found.first?.kind == .syntax)
        #expect(found.first?.location?.file == "M.yaml")
        #expect(found.first?.location?.line != nil)
    }

    @Test func unknownTypeNamesLineAndSuggests() {
        let found = problems("entities:\n  Track:\n    attributes:\n      title: strnig?\n")
        #expect(found.count == 1)
        #expect(found[0].kind == .unknownType)
        #expect(found[0].location?.line == 4)
        #expect(found[0].entity == "Track" && found[0].property == "title")
        #expect(found[0].hint?.contains("did you mean 'string'") == true)
    }

    @Test func unknownKeyIsReportedWithSuggestion() {
        let found = problems("entities:\n  Track:\n    atributes:\n      title: string?\n")
        #expect(found.first?.kind == .unknownKey)
        #expect(found.first?.location?.line == 3)
        #expect(found.first?.hint?.contains("attributes") == true)
    }

    @Test func duplicateKeysAreRejected() {
        let found = problems("entities:\n  Track:\n    attributes:\n      a: string?\n      a: int32\n")
        #expect(found.first?.kind == .syntax)
        #expect(found.first?.message.contains("duplicate key 'a'") == true)
    }

    @Test func validationProblemsPointAtTheDeclaration() {
        let found = problems("""
            entities:
              Track:
                relationships:
                  album: Albm? inverse tracks
              Album:
                relationships:
                  tracks: Track[] inverse nothing
            """)
        #expect(found.count == 2)
        let dangling = found.first { $0.kind == .danglingDestination }
        #expect(dangling?.location?.line == 4)
        #expect(dangling?.hint == "did you mean 'Album'?")
        #expect(found.contains { $0.kind == .unknownInverse && $0.location?.line == 7 })
    }

    @Test func validationCatchesStructuralMistakes() {
        #expect(problems("entities:\n  A:\n    parent: B\n  B:\n    parent: A\n").contains { $0.kind == .inheritanceCycle })
        #expect(problems("entities:\n  A:\n    parent: Nope\n").first?.kind == .unknownParent)
        #expect(
            problems("entities:\n  P:\n    attributes:\n      x: string?\n  C:\n    parent: P\n    attributes:\n      x: int32?\n")
                .first?.kind == .duplicateProperty)
        #expect(problems("entities:\n  A:\n    attributes:\n      n: int16 = 70000\n").first?.kind == .invalidDefault)
        #expect(problems("entities:\n  A:\n    unique: [nope]\n").first?.kind == .unknownConstraintProperty)
        // An inverse that does not point back.
        let mismatch = problems("""
            entities:
              A:
                relationships:
                  b: B? inverse a
              B:
                relationships:
                  a: C? inverse b
              C:
                relationships:
                  b: B? inverse a
            """)
        #expect(mismatch.contains { $0.kind == .inverseMismatch })
    }

    @Test func missingFileIsUnreadable() {
        do {
            _ = try ModelFileReader.read(path: "/nonexistent/model.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.problems.first?.kind == .unreadable)
        }
    }
}
