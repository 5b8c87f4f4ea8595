import Foundation
import GRDB
import InstarMapping
@_spi(Layouts) import InstarModel
import InstarModelIO
@_spi(Layouts) import InstarStore
import Testing
import InstarTestSupport

/// Regression tests for what `Scripts/fuzz` found: each input here once crashed or hung the `instar`
/// binary (stack overflow, a GRDB conversion trap, an integer-overflow trap, quadratic time). Each must
/// now be a clear error that says what and where, or be read correctly.
@Suite struct HostileInputTests {
    static func nested(_ open: String, _ middle: String, _ close: String, _ depth: Int) -> String {
        String(repeating: open, count: depth) + middle + String(repeating: close, count: depth)
    }

    static let deepExpressions: [String] = [
        nested("(", "$source.a", ")", 100_000),
        String(repeating: "-", count: 100_000) + "1",
        String(repeating: "2 ** ", count: 50_000) + "2",
        nested("{", "1", "}", 50_000),
        nested("a[", "0", "]", 50_000),
        Array(repeating: "$source.x", count: 50_000).joined(separator: " + "),
        Array(repeating: "$source.x", count: 50_000).joined(separator: " * "),
        nested("FUNCTION(", "$source", ", 'f:')", 20_000),
        nested("now:(", "", ")", 20_000),
    ]

    @Test(arguments: deepExpressions)
    func deeplyNestedExpressionsAreRefused(_ text: String) {
        do {
            _ = try ExpressionParser.parseExpression(text)
            Issue.record("a \(text.count)-character nested expression parsed")
        } catch {
            #expect(error.nestingLimit == ExpressionParser.maximumDepth, "\(error)")
            #expect(error.column > 1 && error.column <= ExpressionParser.maximumDepth * 12)
            // The message quotes the text around the column, not 100,000 characters of it.
            #expect(error.description.count < 500)
        }
    }

    @Test(arguments: [
        String(repeating: "NOT ", count: 100_000) + "a == 1",
        String(repeating: "!", count: 100_000) + "a == 1",
        nested("(", "a == 1", ")", 100_000),
        nested("TERNARY(", "a == 1, 1, 2)", ", 1, 2)", 20_000) + " == 1",
    ])
    func deeplyNestedPredicatesAreRefused(_ text: String) {
        #expect(throws: ExpressionSyntaxError.self) { _ = try ExpressionParser.parsePredicate(text) }
    }

    @Test func nestingBelowTheLimitStillParses() throws {
        let depth = ExpressionParser.maximumDepth / 3
        let parenthesised = try ExpressionParser.parseExpression(Self.nested("(", "$source.a", ")", depth) + " + 1")
        #expect(parenthesised == .arithmetic(.add, .keyPath(base: .variable("source"), path: ["a"]), .constant(.integer(1))))
        let predicate = try ExpressionParser.parsePredicate(Self.nested("(", "a == 1", ")", depth))
        #expect(predicate == .comparison(Comparison(.keyPath(base: nil, path: ["a"]), .equal, .constant(.integer(1)))))
        _ = try ExpressionParser.parseExpression(Array(repeating: "$source.x", count: depth).joined(separator: " + "))
    }

    /// Nested parentheses in predicate position were tried as a predicate, then again as an expression,
    /// at every level; with TERNARY inside that doubled per level.
    @Test func nestedParenthesesAndTernariesParseInPolynomialTime() throws {
        let depth = 30
        let text = Self.nested("TERNARY((", "a == 1", "), 1, 2) > 0", depth)
        let start = Date()
        _ = try ExpressionParser.parsePredicate(text)
        // A bound that only catches the exponential parse (2^30 attempts: days), never a slow or loaded
        // machine: 10 s failed once under a load of 14 on 2 cores while linear.
        #expect(Date().timeIntervalSince(start) < 300, "2^\(depth) attempts would never finish")
    }

    /// `$source.k.k.k…` appended one key at a time, copying the path each time: quadratic.
    @Test func longKeyPathsAreReadInLinearTime() throws {
        let keys = 100_000
        let start = Date()
        let expression = try ExpressionParser.parseExpression("$source" + String(repeating: ".k", count: keys))
        // How Xcode archives the same key path.
        let archived = try ExpressionParser.parseExpression(
            "FUNCTION($source, 'valueForKeyPath:', '" + Array(repeating: "k", count: keys).joined(separator: ".") + "')")
        // Only a hang-catching bound (see above): linear took 12.8 s in a debug build under a load of 14.
        #expect(Date().timeIntervalSince(start) < 300, "100,000 keys take seconds when linear (far longer when quadratic)")
        guard case .keyPath(_, let path) = expression else { Issue.record("not a key path: \(expression)"); return }
        #expect(path.count == keys)
        #expect(archived == expression)
    }

    @Test func aMappingFileWithADeepExpressionNamesFileLineAndColumn() {
        let deep = Self.nested("(", "$source.name", ")", 5_000)
        let text = """
            source: A
            destination: B
            entities:
              - name: XToX
                source: X
                destination: X
                attributes:
                  name: "\(deep)"
            """
        do {
            _ = try MappingFileReader.parse(text, file: "deep.mapping.yaml")
            Issue.record("the mapping file was read")
        } catch {
            // Where: the file and line of the attribute, and which mapping and property; why: the nesting limit.
            guard case .expressionSyntax(let location, let mapping, let property, _, let syntax) = error else {
                Issue.record("expected an expression syntax error, got \(error)")
                return
            }
            #expect(location.file == "deep.mapping.yaml" && location.line == 8, "\(error)")
            #expect(mapping == "XToX" && property == "name")
            #expect(syntax.nestingLimit == 128)
            #expect(error.description.count < 1_000)
        }
    }

    @Test(arguments: [
        "entities: " + nested("[", "", "]", 100_000),
        "entities:\n  " + String(repeating: "- ", count: 100_000) + "x",
        "entities: " + nested("{a: ", "1", "}", 50_000),
        "version: V\nentities:\n" + (1...600).map { String(repeating: " ", count: $0) + "k\($0):" }.joined(separator: "\n"),
    ])
    func deeplyNestedYAMLIsRefusedBeforeYamsReadsIt(_ text: String) {
        do {
            _ = try ModelFileReader.parse(text, file: "deep.yaml")
            Issue.record("the model was read")
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems.first?.kind == .syntax)
            #expect(error.problems.first?.location?.line != nil)
            #expect(error.problems.first?.location?.file == "deep.yaml", "\(error)")
            guard case .depth(let depth, let maximum)? = error.problems.first?.limit else {
                Issue.record("\(error)")
                return
            }
            #expect(maximum == 400 && depth > maximum, "\(error)")
        }
    }

    @Test func ordinaryYAMLWithQuotesAndBracketsIsNotMistakenForDeepNesting() throws {
        let brackets = String(repeating: "[", count: 450)
        let text = """
            entities:
              Note:
                attributes:
                  title: string = "it's \(brackets)"
                  body: string?  # \(brackets)
            """
        let model = try ModelFileReader.parse(text, file: "quoted.yaml")
        #expect(model.entity(named: "Note") != nil)
    }

    @Test func deeplyNestedTextPropertyListsAreRefused() {
        let xml = "<?xml version=\"1.0\"?><plist version=\"1.0\">" + Self.nested("<array>", "", "</array>", 20_000) + "</plist>"
        let openStep = Self.nested("(", "", ")", 20_000)
        for text in [xml, openStep] {
            do {
                _ = try CheckedPropertyList.foundationValue(Data(text.utf8))
                Issue.record("a nested property list was read")
            } catch {
                guard case .nestsTooDeep(let levels, let maximum) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(levels >= 20_000 && levels > maximum, "\(error)")
            }
        }
    }

    @Test func relationshipCountsBeyond32BitsAreAProblemNotATrap() throws {
        let yaml = """
            entities:
              A:
                relationships:
                  bs: {to: B, toMany: true, max: 3000000000, inverse: a}
              B:
                relationships:
                  a: {to: A, inverse: bs}
            """
        do {
            _ = try model(yaml)
            Issue.record("a count of 3,000,000,000 was accepted")
        } catch {
            #expect(
                error.problems.contains { $0.kind == .invalidCount && $0.entity == "A" && $0.property == "bs" },
                "\(error)")
        }
        // An Xcode model keeps it as a warning (as Xcode would load it), and hashing it does not trap.
        let relationship = Relationship(name: "r", destination: "A", isToMany: true, maxCount: Int.max)
        let xcode = try Model(name: "M", entities: [Entity(name: "A", relationships: [relationship])], validation: .xcode)
        #expect(xcode.warnings.contains { $0.kind == .invalidCount && $0.entity == "A" && $0.property == "r" })
        #expect(VersionHashes(model: xcode).entityHashes["A"]?.count == 32)
    }
}
