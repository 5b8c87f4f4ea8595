import Foundation
import GRDB
import InstarCompiler
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarSeeding
@_spi(Layouts) import InstarStore
import Testing
import InstarTestSupport

/// A join table filled from a foreign key (a to-one becoming a many-to-many) is filled in its key's
/// order, whatever order the foreign key's table has: an insert out of key order touches the key's
/// index at random, which at a million links costs several times the ordered fill. Rebuilt tables keep
/// their rowid order (FusionPropertyTests).
@Suite struct JoinFillOrderTests {
    static let v1 = """
        name: V1
        entities:
          Author: {attributes: {name: string?}, relationships: {books: "Book[] inverse author"}}
          Book: {attributes: {title: string?}, relationships: {author: "Author? inverse books"}}
        """
    static let v2 = """
        name: V2
        entities:
          Author: {attributes: {name: string?}, relationships: {books: "Book[] inverse authors"}}
          Book: {attributes: {title: string?}, relationships: {authors: "Author[] inverse books"}}
        """

    @Test(arguments: ["instar", "sql", "coredata"])
    func aJoinTableFromAForeignKeyIsFilledInKeyOrder(layoutName: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let v1 = try ModelFileReader.parse(Self.v1, file: "v1.yaml")
        let v2 = try ModelFileReader.parse(Self.v2, file: "v2.yaml")
        let layout = try #require(Layouts.named(layoutName))
        let store = try SQLiteStore.create(at: directory.appendingPathComponent("s.sqlite").path, model: v1, layout: layout)
        defer { try? store.close() }
        _ = try store.seed(model: v1, options: .init(rows: 200, seed: 3))
        // The links as the foreign key holds them, in the books' rowid order.
        guard case .foreignKey(let bookTable, let authorColumn)? = try layout.storageMap(for: v1).relationships[
            RelationshipKey(entity: "Book", name: "author")],
            let bookKey = try layout.storageMap(for: v1).entityTables[bookTable]?.primaryKey
        else { Issue.record("Book.author is not a foreign key in the \(layoutName) layout"); return }
        let links = try store.withDatabase { db in
            try Row.fetchAll(
                db, sql: "SELECT \(bookKey.sqlQuoted) AS b, \(authorColumn.sqlQuoted) AS a FROM \(bookTable.sqlQuoted) WHERE \(authorColumn.sqlQuoted) IS NOT NULL ORDER BY rowid"
            ).map { row -> (book: Int64, author: Int64) in (row["b"], row["a"]) }
        }
        #expect(links.count > 50, "the seed links most books to an author")
        let outcome = try store.migrate(from: v1, to: v2)
        let fill = outcome.plan.statements.map(\.sql).first { $0.hasPrefix("INSERT INTO") && $0.contains("IS NOT NULL") }
        #expect(fill?.contains("ORDER BY") == true, "\(outcome.plan.statements.map(\.sql))")
        let join = try #require(try layout.storageMap(for: v2).joinTables.values.first)
        let keys = try #require(try layout.storageMap(for: v2).schema.table(named: join.name)).primaryKey
        try #require(Set(keys) == Set([join.ownerColumn, join.destinationColumn]))
        // Which key column holds the books: the owner's when the table is named after Book's relationship.
        let bookColumn = join.relationship.entity == "Book" ? join.ownerColumn : join.destinationColumn
        let bookFirst = keys.first == bookColumn
        let rows = try store.withDatabase { db in
            try Row.fetchAll(db, sql: "SELECT \(keys[0].sqlQuoted) AS k0, \(keys[1].sqlQuoted) AS k1 FROM \(join.name.sqlQuoted) ORDER BY rowid")
                .map { row -> [Int64] in [row["k0"], row["k1"]] }
        }
        let inKeyOrder = rows.sorted { $0.lexicographicallyPrecedes($1) }
        #expect(rows == inKeyOrder, "links not in key order: \(rows.prefix(10))")
        let expected = links.map { bookFirst ? [$0.book, $0.author] : [$0.author, $0.book] }
        #expect(rows.count == expected.count && Set(rows) == Set(expected))
        if !bookFirst {
            // The key starts with the author: the foreign key's own order is not the key's, so the
            // ordered fill is what put the rows in key order.
            #expect(expected != inKeyOrder)
        }
    }
}
