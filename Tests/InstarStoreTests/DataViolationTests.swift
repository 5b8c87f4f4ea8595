import Foundation
import GRDB
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import Testing
import InstarTestSupport
import InstarStoreTestSupport

/// A step's data conditions are all evaluated and counted, not only the first one broken; a migration's
/// refusal carries every one, and the store is left as it was.
@Suite struct DataViolationTests {
    let v1 = """
        entities:
          Track:
            attributes:
              title: string?
              code: string?
          Album:
            attributes:
              name: string?
        """
    /// Three conditions on two entities: `Track.title` required, `Track.code` unique, `Album.year` added required.
    let v2 = """
        entities:
          Track:
            unique: [code]
            attributes:
              title: string
              code: string?
          Album:
            attributes:
              name: string?
              year: int64
        """

    func filled() throws -> StoreFixture {
        let f = try StoreFixture(try model(v1, name: "V1"))
        for i in 0..<10 {
            // titles: 3 NULLs (0, 4, 8); codes: "a" ×4, "b" ×3, unique otherwise.
            let code = i < 4 ? "a" : i < 7 ? "b" : "c\(i)"
            try f.execute("INSERT INTO Track (_pk, title, code) VALUES (?, ?, ?)", [i + 1, i % 4 == 0 ? nil : "t\(i)", code])
        }
        try f.execute("INSERT INTO Album (_pk, name) VALUES (1, 'x'), (2, 'y')")
        return f
    }

    @Test func everyBrokenConditionIsCounted() throws {
        let f = try filled()
        let found = try f.store.dataViolations(from: try model(v1, name: "V1"), to: try model(v2, name: "V2"))
        let byKind = Dictionary(grouping: found, by: \.kind)
        #expect(found.count == 3, "\(found)")
        #expect(byKind[.nullValues]?.first.map { [$0.entity, $0.properties.first ?? ""] } == ["Track", "title"])
        #expect(byKind[.nullValues]?.first?.count == 3)
        #expect(byKind[.duplicates]?.first?.count == 2)
        // The largest group first, values as stored.
        #expect(byKind[.duplicates]?.first?.samples == [["a"], ["b"]])
        #expect(byKind[.rowsExist]?.first?.entity == "Album")
        #expect(byKind[.rowsExist]?.first?.count == 2)
    }

    /// Each violation's fix fits its kind: NULLs are filled or defaulted, duplicates merged (a default
    /// would make more), an added required attribute defaulted, an added required relationship linked.
    @Test func eachFixFitsItsKind() throws {
        let f = try filled()
        let found = try f.store.dataViolations(from: try model(v1, name: "V1"), to: try model(v2, name: "V2"))
        let fixes = Dictionary(uniqueKeysWithValues: found.map { ($0.kind, $0.fix ?? "") })
        #expect(fixes[.nullValues]?.contains("fill the NULLs of 'Track.title'") == true)
        #expect(fixes[.duplicates]?.contains("merge or remove") == true)
        #expect(fixes[.duplicates]?.contains("a default does not help") == true)
        #expect(fixes[.rowsExist]?.contains("give 'Album.year' a default") == true)
        let withRelationship = """
            entities:
              Track:
                attributes:
                  title: string?
                  code: string?
              Album:
                attributes:
                  name: string?
                relationships:
                  cover: Cover inverse album
              Cover:
                relationships:
                  album: Album? inverse cover
            """
        let linked = try f.store.dataViolations(from: try model(v1, name: "V1"), to: try model(withRelationship, name: "V3"))
        let fix = try #require(linked.first { $0.kind == .rowsExist }?.fix)
        #expect(fix.contains("a relationship takes no default") && fix.contains("'Album.cover'"), "\(fix)")
        #expect(!fix.contains("give"), "\(fix)")
    }

    /// Each violation points at the newer version's declaration to edit, and the refusal says where.
    @Test func eachViolationIsLocatedInTheNewerModelFile() throws {
        let f = try filled()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("v2.yaml").path
        try v2.write(toFile: file, atomically: true, encoding: .utf8)
        let newer = try ModelFileReader.read(path: file)
        let found = try f.store.dataViolations(from: try model(v1, name: "V1"), to: newer)
        let lines = Dictionary(uniqueKeysWithValues: found.map { ($0.kind, $0.location?.line) })
        #expect(lines[.nullValues] == 5, "title: string, line 5 of v2: \(found.map(\.location))")
        #expect(lines[.duplicates] == 2, "Track: the entity that becomes unique")
        #expect(lines[.rowsExist] == 10, "year: int64, line 10")
        #expect(found.allSatisfy { $0.location?.file == file })
    }

    @Test func aRefusalCarriesEveryViolationAndKeepsTheFirstAsBefore() throws {
        let f = try filled()
        let before = try f.fileBytes()
        do {
            try f.store.migrate(from: try model(v1, name: "V1"), to: try model(v2, name: "V2"))
            Issue.record("expected a refusal")
        } catch let error as StoreError {
            #expect(error.kind == .dataCondition)
            #expect(error.dataViolations.count == 3)
            #expect(error.condition == error.dataViolations.first?.condition)
            #expect(error.violations == error.dataViolations.first?.count)
            #expect(Set(error.dataViolations.map(\.entity)) == ["Track", "Album"])
        }
        #expect(try f.fileBytes() == before)
    }

    @Test func violationsEncodeAsTheyDecode() throws {
        let f = try filled()
        let found = try f.store.dataViolations(from: try model(v1, name: "V1"), to: try model(v2, name: "V2"))
        let decoded = try JSONDecoder().decode([DataViolation].self, from: try JSONEncoder().encode(found))
        #expect(decoded == found)
        #expect(decoded.map(\.condition) == found.map(\.condition))
    }

    @Test func aStoreThatFitsHasNone() throws {
        let f = try StoreFixture(try model(v1, name: "V1"))
        #expect(try f.store.dataViolations(from: try model(v1, name: "V1"), to: try model(v2, name: "V2")).isEmpty)
    }
}
