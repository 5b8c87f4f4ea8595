import Foundation
import GRDB
import Testing
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import InstarAdoption
@_spi(Layouts) import InstarLayouts
import InstarTestSupport

/// Issue 15, names: the inverses the importer makes up, a naming key that collides (an error at the
/// key's `file:line:column` for every kind of key), and the layouts that do not honour naming keys.
@Suite struct AdoptionNamingTests {
    @Test func inversesAreReadablePluralsQualifiedWhenShared() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try AdoptionTests.database(
            sql: """
                CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE book (id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES person(id), editor_id INTEGER REFERENCES person(id));
                CREATE TABLE "Note" ("Id" INTEGER PRIMARY KEY, "AuthorId" INTEGER REFERENCES person(id), "ReviewerId" INTEGER REFERENCES person(id));
                CREATE TABLE category (id INTEGER PRIMARY KEY, entries TEXT);
                CREATE TABLE entry (id INTEGER PRIMARY KEY, category_id INTEGER REFERENCES category(id));
                CREATE TABLE shelf (id INTEGER PRIMARY KEY);
                CREATE TABLE box (id INTEGER PRIMARY KEY, shelf_id INTEGER REFERENCES shelf(id));
                CREATE TABLE lend (id INTEGER PRIMARY KEY, box_id INTEGER REFERENCES box(id));
                """, in: directory)
        let model = try SchemaImporter.importModel(path: path, name: "N").model
        func names(_ entity: String) -> Set<String> {
            Set(model.entity(named: entity)?.relationships.filter(\.isToMany).map(\.name) ?? [])
        }
        #expect(names("person") == ["books_as_author", "books_as_editor", "NotesAsAuthor", "NotesAsReviewer"])
        #expect(model.entity(named: "book")?.relationship(named: "author")?.inverse == "books_as_author")
        // `entries` is a column of category: the inverse is moved aside, never onto it.
        #expect(names("category") == ["entries_as_category"])
        #expect(names("shelf") == ["boxes"] && names("box") == ["lends"])
        for entity in model.entities {
            let all = entity.attributes.map(\.name) + entity.relationships.map(\.name)
            #expect(Set(all).count == all.count, "\(entity.name): \(all)")
        }
    }

    /// Every kind of naming key, colliding, is refused at its own position.
    @Test(arguments: [
        (
            "fk-column",
            """
            entities:
              Track:
                attributes: {title: string}
                relationships:
                  album: {to: Album, column: TITLE}
              Album: {}
            """, 5, 34, .nameCollision(name: "TITLE", with: .conventionalColumn("title", property: "title"))
        ),
        (
            "two-fks",
            """
            entities:
              Track:
                relationships:
                  album: {to: Album, column: ref}
                  cover: {to: Album, column: Ref}
              Album: {}
            """, 5, 34, .nameCollision(name: "Ref", with: .column)
        ),
        (
            "join-table",
            """
            entities:
              Track:
                relationships:
                  albums: {to: Album, toMany: true, joinTable: {name: album, columns: [t, a]}}
              Album: {}
            """, 4, 52, .nameCollision(name: "Album", with: .conventionalTable(entity: "Album"))
        ),
        (
            "index-vs-table",
            """
            entities:
              Track:
                attributes: {title: string}
                indexes:
                  byTitle: {on: [title], name: album}
              Album: {}
            """, 5, 36, .nameCollision(name: "album", with: .tableOrIndex)
        ),
        (
            "index-vs-unique",
            """
            entities:
              Track:
                attributes: {title: string, code: string}
                unique: [{on: [code], name: track_ix}]
                indexes:
                  byTitle: {on: [title], name: TRACK_IX}
            """, 6, 36, .nameCollision(name: "TRACK_IX", with: .tableOrIndex)
        ),
        (
            "join-index",
            """
            entities:
              Track:
                attributes: {title: string}
                indexes:
                  byTitle: {on: [title], name: t_a_idx}
                relationships:
                  albums: {to: Album, toMany: true, joinTable: {name: t_a, columns: [t, a], index: t_a_idx}}
              Album: {}
            """, 5, 36, .nameCollision(name: "t_a_idx", with: .tableOrIndex)
        ),
    ] as [(String, String, Int, Int, LayoutError.Reason)])
    func collidingKeyIsAnErrorAtItsPosition(_ name: String, _ yaml: String, _ line: Int, _ column: Int, _ reason: LayoutError.Reason) throws {
        let m = try model(yaml, name: name)
        do {
            _ = try PlainSQLLayout().storageMap(for: m)
            Issue.record("\(name): the colliding key was accepted")
        } catch {
            #expect(error.location == SourceLocation(file: "\(name).yaml", line: line, column: column), "\(error)")
            #expect(error.reason == reason, "\(error)")
        }
    }

    @Test(arguments: ["instar", "coredata"]) func otherLayoutsRefuseNamingKeys(_ layoutName: String) throws {
        let m = try model(
            """
            entities:
              Track:
                attributes:
                  title: string
                  code: {type: string, columnSQL: "COLLATE NOCASE"}
            """, name: "keys")
        let layout: any StoreLayout = layoutName == "instar" ? InstarLayout() : CoreDataLayout()
        do {
            _ = try layout.storageMap(for: m)
            Issue.record("the \(layoutName) layout accepted a naming key")
        } catch {
            #expect(error.location == SourceLocation(file: "keys.yaml", line: 5, column: 39), "\(error)")
            #expect(error.reason == .namingKey("columnSQL") && error.layout == layoutName, "\(error)")
            #expect(error.entity == "Track" && error.property == "code")
        }
        let plain = try model("entities:\n  Track:\n    attributes: {title: string}\n")
        #expect(throws: Never.self) { try layout.storageMap(for: plain) }
    }
}
