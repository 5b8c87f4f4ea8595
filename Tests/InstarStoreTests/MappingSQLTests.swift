import Foundation
import GRDB
import InstarMapping
import Testing

/// Translated SQL run on a real SQLite database: each predicate or expression form against rows with
/// NULLs, `%`, `_`, quotes and non-ASCII text, asserting which rows match and what values come out.
@Suite struct MappingSQLTests {
    /// Resolves `title`, `count`, `price`, `flag`, `born` on "Note" and `folder.name` through a join.
    struct Resolver: MappingColumnResolver {
        func resolve(entity: String, keyPath: [String]) -> ResolvedPath? {
            switch keyPath {
            case ["title"], ["count"], ["price"], ["flag"], ["born"]: .column(ResolvedColumn(sql: "\"n\".\"\(keyPath[0])\""))
            case ["folder", "name"]:
                .column(ResolvedColumn(sql: "\"f\".\"name\"", joins: ["LEFT JOIN \"folder\" AS \"f\" ON \"f\".\"id\" = \"n\".\"folder\""]))
            case ["folder"]: .column(ResolvedColumn(sql: "\"n\".\"folder\""))
            case ["tags"], ["tags", "name"]: .toMany(relationship: "tags")
            default: nil
            }
        }
    }

    static let rows: [(id: Int, title: String?, count: Int?, price: Double?, flag: Int?, folder: Int?)] = [
        (1, "Apple pie", 3, 2.5, 1, 1),
        (2, "apple", 0, nil, 0, 2),
        (3, nil, nil, 1.0, nil, nil),
        (4, "100% sure_thing", 7, 0.5, 1, 1),
        (5, "It's \"quoted\"", 2, 3.0, 0, nil),
        (6, "École", 1, 4.0, 1, 2),
        (7, "ÉCOLE", 5, nil, 0, 1),
        (8, "a*b?[c]", 4, 9.0, 1, nil),
        (9, "", 6, 0.0, 0, 2),
    ]

    static func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE folder (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute(sql: "INSERT INTO folder VALUES (1, 'Work'), (2, 'home_%')")
            try db.execute(sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT, count INTEGER, price REAL, flag INTEGER, folder INTEGER, born REAL)")
            for row in rows {
                try db.execute(
                    sql: "INSERT INTO note (id, title, count, price, flag, folder, born) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    arguments: [row.id, row.title, row.count, row.price, row.flag, row.folder, Double(row.id) * 1000])
            }
            for function in MappingSQLFunction.allCases {
                db.add(function: DatabaseFunction(function.rawValue, argumentCount: function.argumentCount, pure: true) { values in
                    Self.database(function.evaluate(values.map(Self.mappingValue)))
                })
            }
        }
        return queue
    }

    static func mappingValue(_ value: DatabaseValue) -> MappingValue {
        switch value.storage {
        case .null: .null
        case .int64(let v): .integer(v)
        case .double(let v): .real(v)
        case .string(let v): .string(v)
        case .blob(let v): .data(v)
        }
    }

    static func database(_ value: MappingValue) -> (any DatabaseValueConvertible)? {
        switch value {
        case .null: nil
        case .bool(let v): v ? 1 : 0
        case .integer(let v): v
        case .real(let v), .date(let v): v
        case .string(let v): v
        case .data(let v): v
        case .array, .dictionary: nil
        }
    }

    static func arguments(_ fragment: SQLFragment) -> StatementArguments {
        StatementArguments(fragment.arguments.map(database))
    }

    /// The ids of the rows the filter keeps.
    func ids(_ predicate: String) throws -> [Int] {
        let translation = SQLTranslator(entity: "Note", resolver: Resolver())
            .translate(filter: try ExpressionParser.parsePredicate(predicate), hookName: "h")
        guard case .sql(let fragment) = translation else {
            Issue.record("\(predicate) did not translate: \(translation)")
            return []
        }
        #expect(!fragment.sql.contains("'"), "values are bound, not spliced: \(fragment.sql)")
        let sql = "SELECT \"n\".\"id\" FROM \"note\" AS \"n\" \(fragment.joins.joined(separator: " ")) WHERE \(fragment.sql) ORDER BY 1"
        return try Self.database().read { db in try Int.fetchAll(db, sql: sql, arguments: Self.arguments(fragment)) }
    }

    /// The value the expression gives for one row.
    func value(_ expression: String, row: Int) throws -> DatabaseValue {
        let translation = SQLTranslator(entity: "Note", resolver: Resolver())
            .translate(value: try ExpressionParser.parseExpression(expression), hookName: "h")
        guard case .sql(let fragment) = translation else {
            Issue.record("\(expression) did not translate: \(translation)")
            return .null
        }
        let sql = "SELECT \(fragment.sql) FROM \"note\" AS \"n\" \(fragment.joins.joined(separator: " ")) WHERE \"n\".\"id\" = \(row)"
        return try Self.database().read { db in try DatabaseValue.fetchOne(db, sql: sql, arguments: Self.arguments(fragment)) ?? .null }
    }

    @Test func equalityTreatsNilAsAValue() throws {
        #expect(try ids("title == nil") == [3])
        #expect(try ids("title != nil") == [1, 2, 4, 5, 6, 7, 8, 9])
        #expect(try ids("title == 'apple'") == [2])
        #expect(try ids("title != 'apple'") == [1, 3, 4, 5, 6, 7, 8, 9], "nil != 'apple' is true in NSPredicate")
        #expect(try ids("title = \"It's \\\"quoted\\\"\"") == [5])
        #expect(try ids("title ==[c] 'APPLE'") == [2])
        #expect(try ids("title ==[c] 'école'") == [6, 7], "case folding beyond ASCII")
    }

    @Test func orderingNeverYieldsNullUnderNot() throws {
        #expect(try ids("count > 4") == [4, 7, 9])
        #expect(try ids("NOT (count > 4)") == [1, 2, 3, 5, 6, 8], "nil > 4 is false, so NOT keeps the nil row")
        #expect(try ids("count <= 1 OR price >= 4") == [2, 6, 8])
        #expect(try ids("count BETWEEN {2, 4}") == [1, 5, 8])
        #expect(try ids("count IN {0, 7, 42}") == [2, 4])
        #expect(try ids("count > 1 AND count < 5 && flag == YES") == [1, 8])
        #expect(try ids("flag == NO") == [2, 5, 7, 9])
        #expect(try ids("TRUEPREDICATE") == Array(1...9))
        #expect(try ids("NOT FALSEPREDICATE AND !(title == nil)") == [1, 2, 4, 5, 6, 7, 8, 9])
    }

    @Test func stringOperatorsTakePercentAndUnderscoreLiterally() throws {
        #expect(try ids("title BEGINSWITH '100%'") == [4])
        #expect(try ids("title BEGINSWITH '1_0'") == [])
        #expect(try ids("title CONTAINS '_'") == [4])
        #expect(try ids("title CONTAINS '%'") == [4])
        #expect(try ids("title ENDSWITH 'pie'") == [1])
        #expect(try ids("title ENDSWITH[c] 'LE'") == [2, 6, 7])
        #expect(try ids("title BEGINSWITH[c] 'app'") == [1, 2])
        #expect(try ids("title BEGINSWITH ''") == [], "an empty needle never matches")
        #expect(try ids("title CONTAINS \"'\"") == [5])
        #expect(try ids("'pie' IN title") == [1], "a string right of IN is searched")
        #expect(try ids("title IN 'an apple a day'") == [2])
    }

    @Test func likeUsesStarAndQuestionMarkOnly() throws {
        #expect(try ids("title LIKE 'app*'") == [2])
        #expect(try ids("title LIKE[c] 'app*'") == [1, 2])
        #expect(try ids("title LIKE '?cole'") == [6])
        #expect(try ids("title LIKE '100% sure_thing'") == [4])
        #expect(try ids("title LIKE '1%'") == [])
        #expect(try ids("title LIKE 'a\\\\*b\\\\?[c]'") == [8], "escaped * and ?, literal brackets")
        #expect(try ids("title LIKE 'a*[c]'") == [8])
    }

    @Test func matchesIsAWholeStringRegex() throws {
        #expect(try ids("title MATCHES '[a-hA-H].*'") == [1, 2, 8])
        #expect(try ids("title MATCHES 'app'") == [], "MATCHES needs the whole string")
        #expect(try ids("title MATCHES[c] 'ÉCOLE|apple'") == [2, 6, 7])
        #expect(try ids("title MATCHES 'a|apple'") == [2], "an alternation may not stop at a prefix")
    }

    @Test func toOneKeyPathsJoin() throws {
        #expect(try ids("folder.name == 'home_%'") == [2, 6, 9])
        #expect(try ids("folder.name BEGINSWITH 'home_'") == [2, 6, 9])
        #expect(try ids("folder == nil") == [3, 5, 8])
    }

    @Test func valueExpressions() throws {
        #expect(try value("$source.count * 60", row: 1) == 180.databaseValue)
        #expect(try value("$source.price * 0.2", row: 6) == 0.8.databaseValue)
        #expect(try value("$source.count / 2", row: 1) == 1.5.databaseValue, "NSExpression divides as doubles")
        #expect(try value("$source.count + 1", row: 3) == .null)
        #expect(try value("-$source.count", row: 1) == (-3).databaseValue)
        #expect(try value("FUNCTION($source.title, 'uppercaseString')", row: 6) == "ÉCOLE".databaseValue)
        #expect(try value("FUNCTION($source.title, 'lowercaseString')", row: 7) == "école".databaseValue)
        #expect(try value("FUNCTION($source.title, 'length')", row: 6) == 5.databaseValue)
        #expect(try value("FUNCTION($source.price, 'stringValue')", row: 5) == "3".databaseValue)
        #expect(try value("FUNCTION($source.title, 'intValue')", row: 4) == 100.databaseValue)
        #expect(try value("FUNCTION($source.title, 'boolValue')", row: 8) == 0.databaseValue)
        #expect(try value("FUNCTION($source.title, 'stringByAppendingString:', '!')", row: 2) == "apple!".databaseValue)
        #expect(try value("$source.folder.name", row: 2) == "home_%".databaseValue)
        #expect(try value("\"100% 'x'\"", row: 1) == "100% 'x'".databaseValue)
        #expect(try value("YES", row: 1) == 1.databaseValue)
        #expect(try value("CAST(700000000, 'NSDate')", row: 1) == 700000000.0.databaseValue)
        #expect(try value("TERNARY(count > 2, 'many', 'few')", row: 1) == "many".databaseValue)
        #expect(try value("nil", row: 1) == .null)
        // Between the clock read before and after the query, however long it takes; SQLite's `now` has
        // millisecond steps, hence the 0.01 s either side.
        let before = Date().timeIntervalSinceReferenceDate
        let now = Double.fromDatabaseValue(try value("now()", row: 1)) ?? 0
        let after = Date().timeIntervalSinceReferenceDate
        #expect(now >= before - 0.01 && now <= after + 0.01, "now() is seconds since 2001: \(before) ≤ \(now) ≤ \(after)")
    }

    @Test func relationshipMappingsAreStructured() throws {
        let expression = try ExpressionParser.parseExpression(
            "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\" , \"NoteToNote\", $source.tags)")
        let translation = SQLTranslator(entity: "Note", resolver: Resolver()).translate(value: expression, hookName: "h")
        #expect(translation == .relationshipFromMapping(mappingName: "NoteToNote", sourceKeyPath: ["tags"]))
    }

    @Test func whatSQLCannotDoNamesAHook() throws {
        func reason(_ text: String, filter: Bool = false) throws -> HookReason? {
            let translator = SQLTranslator(entity: "Note", resolver: Resolver())
            let translation = filter
                ? translator.translate(filter: try ExpressionParser.parsePredicate(text), hookName: "M.E.p")
                : translator.translate(value: try ExpressionParser.parseExpression(text), hookName: "M.E.p")
            guard case .needsHook(let name, let reason) = translation else { return nil }
            #expect(name == "M.E.p")
            return reason
        }
        #expect(try reason("FUNCTION($entityPolicy, 'changeID:', $source.count)") == .policyFunction(selector: "changeID:"))
        #expect(try reason("FUNCTION($manager, 'sourceContext')") == .managerCall(selector: "sourceContext"))
        #expect(try reason("FUNCTION($source.title, 'reversed')") == .unknownSelector("reversed"))
        #expect(try reason("$source.tags.@count")?.category == "collection")
        #expect(try reason("$source.tags")?.category == "collection")
        #expect(try reason("$source.missing") == .unresolvedKeyPath("Note.missing"))
        #expect(try reason("FETCH(FUNCTION($manager, 'x'), $manager.sourceContext, NO)")?.category == "collection")
        #expect(try reason("title ==[cd] 'ecole'", filter: true) == .unsupportedComparisonOption("d"))
        #expect(try reason("ANY tags.name == 'x'", filter: true)?.category == "collection")
        #expect(try reason("SUBQUERY(tags, $t, $t.name == 'x').@count > 0", filter: true)?.category == "collection")
        #expect(try reason("$source.count ** 2") == .unknownFunction("raise:toPower: (SQLite's pow() is optional)"))
    }
}
