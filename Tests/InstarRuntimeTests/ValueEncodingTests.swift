import Foundation
import GRDB
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore
import InstarPlanner  // Converters, the SQL a decomposition step converts values with
import Testing
@_spi(Layouts) import InstarLayouts

/// The one place layouts' value encodings live: conversions and constants written in each layout's
/// form, run on SQLite.
@Suite struct ValueEncodingTests {
    func evaluate(_ sql: String, _ arguments: StatementArguments = []) throws -> DatabaseValue {
        let db = try DatabaseQueue()
        // The expression reads its value as the column "v" (it may name it more than once).
        let from = arguments.isEmpty ? "" : " FROM (SELECT ? AS \"v\")"
        return try db.read { db in try DatabaseValue.fetchOne(db, sql: "SELECT " + sql + from, arguments: arguments) ?? .null }
    }

    @Test func textBecomesADateInEachLayoutsForm() throws {
        let text = "'2001-01-02T00:00:01.500Z'"
        let iso = Converters.conversion(from: .string, to: .date, value: text, encoding: .instar)!.expression
        #expect(try evaluate(iso) == "2001-01-02T00:00:01.500Z".databaseValue)
        let coreData = Converters.conversion(from: .string, to: .date, value: text, encoding: .coreData)!.expression
        #expect(try evaluate(coreData) == 86_401.5.databaseValue)
        let plain = Converters.conversion(from: .string, to: .date, value: text, encoding: .plainSQL)!.expression
        #expect(try evaluate(plain) == (86_401.5 + 978_307_200).databaseValue)
        // Not a date: NULL in every form.
        let bad = Converters.conversion(from: .string, to: .date, value: "'2023-02-29'", encoding: .coreData)!.expression
        #expect(try evaluate(bad) == .null)
    }

    @Test func storedDatesBecomeISOText() throws {
        let coreData = Converters.conversion(from: .date, to: .string, value: "\"v\"", encoding: .coreData)!.expression
        #expect(try evaluate(coreData, [86_401.5]) == "2001-01-02T00:00:01.500Z".databaseValue)
        let plain = Converters.conversion(from: .date, to: .string, value: "\"v\"", encoding: .plainSQL)!.expression
        #expect(try evaluate(plain, [978_307_200.0]) == "2001-01-01T00:00:00.000Z".databaseValue)
        #expect(try evaluate(plain, [DatabaseValue.null]) == .null)
    }

    @Test func uuidBytesBecomeDashedText() throws {
        let expression = Converters.conversion(from: .uuid, to: .string, value: "\"v\"", encoding: .coreData)!.expression
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
        #expect(try evaluate(expression, [bytes]) == uuid.uuidString.databaseValue)
        // Text to 16 bytes needs unhex(), which this SQLite may lack: no built-in, and a hint says why.
        #expect(Converters.conversion(from: .string, to: .uuid, value: "\"v\"", encoding: .coreData) == nil)
        #expect(Converters.hint(from: .string, to: .uuid, value: "x", encoding: .coreData)?.contains("16 bytes") == true)
    }

    @Test func isoTextWithoutAFormatter() {
        #expect(ISODateText.text(secondsSinceReferenceDate: 0) == "2001-01-01T00:00:00.000Z")
        #expect(ISODateText.text(secondsSinceReferenceDate: -0.001) == "2000-12-31T23:59:59.999Z")
        #expect(ISODateText.text(secondsSinceReferenceDate: 4_102_444_800 - 978_307_200) == "2100-01-01T00:00:00.000Z")
    }

    @Test func layoutsDeclareTheirEncodings() {
        #expect(InstarLayout().valueEncoding == .instar)
        #expect(CoreDataLayout().valueEncoding == .coreData)
        #expect(PlainSQLLayout().valueEncoding == .plainSQL)
        #expect(Layouts.named("coredata:637").map { $0.valueEncoding } == .coreData)
        #expect(LayoutName("coredata:0") == nil && LayoutName("sqlite") == nil)
        #expect(LayoutName("coredata:637")?.description == "coredata:637")
    }

    @Test func quotingDoublesQuotes() {
        #expect(SQLIdentifier.quoted("a\"b") == "\"a\"\"b\"")
        #expect(SQLLiteral.text("it's") == "'it''s'")
        #expect(SQLIdentifier.quoted("é \"x\"") == "\"é \"\"x\"\"\"")
    }
}
