@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts  // SQLValue
@_spi(Layouts) import InstarStore
import Foundation
import GRDB
@_spi(Layouts) import InstarSQL
import Testing

/// Quoting is spelled once (SQLIdentifier, SQLLiteral) and holds for any text SQLite may be given,
/// including a quote followed by a combining mark, which Swift counts as one Character with it.
@Suite struct QuotingTests {
    static let hostile = ["plain", "it's", "say \"hi\"", "\"\u{301}", "'\u{301}x", "a\"\u{301}\"b'\u{308}'", "", "\u{301}\""]

    @Test(arguments: hostile) func identifiersAndLiteralsRoundTripThroughSQLite(text: String) throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE \(SQLIdentifier.quoted(text)) (\(SQLIdentifier.quoted(text + "c")) TEXT)")
            #expect(try db.tableExists(text))
            let literal = try String.fetchOne(db, sql: "SELECT \(SQLLiteral.text(text))")
            #expect(literal?.unicodeScalars.elementsEqual(text.unicodeScalars) == true)
            let value = try String.fetchOne(db, sql: "SELECT \(SQLValue.text(text).literal)")
            #expect(value?.unicodeScalars.elementsEqual(text.unicodeScalars) == true)
        }
    }
}
