import Foundation
import GRDB
import InstarCompiler
@_spi(Layouts) import InstarLayouts
@_spi(Layouts) import InstarModel
import InstarModelIO
import InstarSeeding
@_spi(Layouts) import InstarStore
import Testing

/// A join table made from a foreign key takes one side of its links from the key of the table it
/// reads; when the step carries that table over whole, those links cannot dangle and are not looked
/// up again (``StepProgram/linksToKeptKeys(source:)``). The other side (the old foreign key, which can
/// dangle), and any side whose rows or key could have gone, is still checked.
@Suite struct LinkProvenanceTests {
    /// Where the relationship lives in `layout`: the books' table, its key and foreign key, the
    /// authors' table, and the new join table with the column holding the book.
    struct Names {
        var book: String, bookKey: String, authorKey: String, author: String, authorTableKey: String
        var join: String, joinBook: String, joinAuthor: String
    }

    func names(_ layout: any StoreLayout, _ v1: Model, _ v2: Model) throws -> Names {
        let old = try layout.storageMap(for: v1)
        guard case .foreignKey(let book, let authorKey)? = old.relationships[RelationshipKey(entity: "Book", name: "author")],
            let bookKey = old.entityTables[book]?.primaryKey,
            let reference = old.schema.table(named: book)?.column(named: authorKey)?.references
        else { throw Failure("Book.author is not a foreign key") }
        let join = try #require(try layout.storageMap(for: v2).joinTables.values.first)
        let bookFirst = join.relationship.entity == "Book"
        return Names(
            book: book, bookKey: bookKey, authorKey: authorKey, author: reference.table, authorTableKey: reference.column,
            join: join.name,
            joinBook: bookFirst ? join.ownerColumn : join.destinationColumn,
            joinAuthor: bookFirst ? join.destinationColumn : join.ownerColumn)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    func versions() throws -> (Model, Model) {
        (try ModelFileReader.parse(JoinFillOrderTests.v1, file: "v1.yaml"), try ModelFileReader.parse(JoinFillOrderTests.v2, file: "v2.yaml"))
    }

    func program(_ layout: any StoreLayout, _ v1: Model, _ v2: Model) throws -> StepProgram {
        let plan = try TransactionPlan.make(versions: [v1, v2], hooks: [:], layout: layout, fuse: true)
        guard case .steps(let unit)? = plan.parts.first else { throw Failure("no step") }
        return unit.program
    }

    @Test(arguments: ["instar", "sql"])
    func onlyTheSideCopiedFromAKeyTheStepKeepsIsProven(layoutName: String) throws {
        let layout = try #require(Layouts.named(layoutName))
        let (v1, v2) = try versions()
        let n = try names(layout, v1, v2)
        let source = try layout.storageMap(for: v1).schema
        let program = try program(layout, v1, v2)
        // The author side comes from the old foreign key, which may point at nothing: not proven.
        #expect(program.linksToKeptKeys(source: source) == [n.join: [n.joinBook]])

        let bookIndex = try #require(program.transformations.firstIndex { $0.target.name == n.book })
        let joinIndex = try #require(program.transformations.firstIndex { $0.target.name == n.join })
        // Books leave the table: links to them are deleted later, and the fill saw them.
        var filtered = program
        filtered.transformations[bookIndex].filter = [.isNotNull(n.bookKey)]
        #expect(filtered.linksToKeptKeys(source: source).isEmpty)
        // The book side is a computed value, not the key.
        var computed = program
        computed.transformations[joinIndex].columns[n.joinBook] = .value(.integer(1))
        #expect(computed.linksToKeptKeys(source: source).isEmpty)
        // The books' key is not copied as it was.
        var renumbered = program
        renumbered.transformations[bookIndex].columns[n.bookKey] = .value(.integer(1))
        #expect(renumbered.linksToKeptKeys(source: source).isEmpty)
        // Books lose rows after the fill: a required link to a filtered table takes them away.
        var losing = program
        let authorIndex = try #require(program.transformations.firstIndex { $0.target.name == n.author })
        losing.transformations[authorIndex].filter = [.isNotNull(n.authorTableKey)]
        losing.transformations[bookIndex].target.columns.append(
            SchemaColumn(
                name: "owner", declaredType: "INTEGER", notNull: true, references: .init(table: n.author, column: n.authorTableKey)))
        #expect(losing.linksToKeptKeys(source: source).isEmpty)
    }
}
