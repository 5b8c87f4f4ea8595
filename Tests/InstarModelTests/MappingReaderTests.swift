import Foundation
import InstarMapping
import Testing

/// The xcmapping.xml reader on small inline files, and the expression parser on its own.
@Suite struct MappingReaderTests {
    static func document(entityMappings: String, objects: String) -> Data {
        Data(
            """
            <?xml version="1.0" standalone="yes"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
            <database>
                <databaseInfo><version>134481920</version></databaseInfo>
                <object type="XDDEVMAPPINGMODEL" id="z1">
                    <attribute name="sourcemodelpath" type="string">App/Model.xcdatamodeld/Model 2.xcdatamodel</attribute>
                    <attribute name="destinationmodelpath" type="string">App/Model.xcdatamodeld/Model 3.xcdatamodel</attribute>
                    <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="\(entityMappings)"></relationship>
                </object>
            \(objects)
            </database>
            """.utf8)
    }

    @Test func readsEachKindOfEntityMappingInMappingNumberOrder() throws {
        let data = Self.document(
            entityMappings: "z10 z11 z12 z13",
            objects: """
                    <object type="XDDEVENTITYMAPPING" id="z10">
                        <attribute name="sourcename" type="string">Note</attribute>
                        <attribute name="destinationname" type="string">Note</attribute>
                        <attribute name="mappingtypename" type="string">Undefined</attribute>
                        <attribute name="mappingnumber" type="int16">3</attribute>
                        <attribute name="sourcefilterpredicatestring" type="string">count \\u3c00 10 \\u2600\\u2600 title != 'x'</attribute>
                        <attribute name="migrationpolicyclassname" type="string">App.NotePolicy</attribute>
                        <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z20"></relationship>
                        <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="z21"></relationship>
                    </object>
                    <object type="XDDEVENTITYMAPPING" id="z11">
                        <attribute name="destinationname" type="string">Tag</attribute>
                        <attribute name="mappingtypename" type="string">Undefined</attribute>
                        <attribute name="mappingnumber" type="int16">1</attribute>
                    </object>
                    <object type="XDDEVENTITYMAPPING" id="z12">
                        <attribute name="sourcename" type="string">Old</attribute>
                        <attribute name="mappingtypename" type="string">Undefined</attribute>
                        <attribute name="mappingnumber" type="int16">2</attribute>
                    </object>
                    <object type="XDDEVENTITYMAPPING" id="z13">
                        <attribute name="name" type="string">Special</attribute>
                        <attribute name="sourcename" type="string">A</attribute>
                        <attribute name="destinationname" type="string">B</attribute>
                        <attribute name="mappingtypename" type="string">Custom</attribute>
                        <attribute name="mappingnumber" type="int16">4</attribute>
                    </object>
                    <object type="XDDEVATTRIBUTEMAPPING" id="z20">
                        <attribute name="name" type="string">title</attribute>
                    </object>
                    <object type="XDDEVRELATIONSHIPMAPPING" id="z21">
                        <attribute name="name" type="string">tags</attribute>
                        <attribute name="autogenerateexpression" type="bool">1</attribute>
                        <attribute name="sourcekeypath" type="string">$source.labels</attribute>
                        <attribute name="sourcemappingname" type="string">LabelToTag</attribute>
                    </object>
                """)
        let mapping = try XcodeMappingReader.read(data: data, file: "m.xml", name: "M")
        #expect(mapping.source.versionName == "Model 2")
        #expect(mapping.destination.versionName == "Model 3")
        #expect(mapping.entityMappings.map(\.name) == ["Tag", "Old", "NoteToNote", "Special"])
        #expect(mapping.entityMappings.map(\.kind) == [.add, .remove, .undefined, .custom])
        #expect(mapping.entityMappings.map(\.kind.rawValue) == [2, 3, 0, 1])
        let note = mapping.entityMappings[2]
        #expect(note.filterText == "count < 10 && title != 'x'", "the store's \\u escapes are decoded")
        #expect(note.filter?.description == "count < 10 AND title != \"x\"")
        #expect(note.customPolicyClass == "App.NotePolicy")
        #expect(note.sourceExpression?.description.hasPrefix("FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"Note\"") == true)
        #expect(note.attributeMappings.map(\.origin) == [.pendingGeneration])
        #expect(note.relationshipMappings.first?.sourceMappingName == "LabelToTag")
        #expect(mapping.entityMappings[0].sourceExpression == nil)
    }

    @Test func brokenXMLIsReportedWithItsPosition() throws {
        let data = Data("<?xml version=\"1.0\"?>\n<database>\n  <object type=\"X\" id=\"z1\">\n</database>\n".utf8)
        do {
            _ = try XcodeMappingReader.read(data: data, file: "broken.xml", name: "B")
            Issue.record("expected an error")
        } catch {
            guard case .malformedXML(let location, _, _) = error else { Issue.record("\(error)"); return }
            #expect(location.file == "broken.xml")
            #expect(location.line == 4)
            #expect(error.description.hasPrefix("broken.xml:4:"))
        }
    }

    @Test func aDanglingReferenceNamesTheRelationshipAndId() throws {
        let data = Self.document(entityMappings: "z10 z99", objects: """
                <object type="XDDEVENTITYMAPPING" id="z10">
                    <attribute name="sourcename" type="string">A</attribute>
                    <attribute name="destinationname" type="string">A</attribute>
                </object>
            """)
        do {
            _ = try XcodeMappingReader.read(data: data, file: "d.xml", name: "D")
            Issue.record("expected an error")
        } catch {
            guard case .danglingReference(let location, let relationship, let id, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(relationship == "entitymappings")
            #expect(id == "z99")
            #expect(location.line == 8, "the <relationship> element")
            #expect(location.column != nil)
        }
    }

    @Test func aFilterThatDoesNotParseNamesMappingAndColumn() throws {
        let data = Self.document(entityMappings: "z10", objects: """
                <object type="XDDEVENTITYMAPPING" id="z10">
                    <attribute name="sourcename" type="string">A</attribute>
                    <attribute name="destinationname" type="string">A</attribute>
                    <attribute name="sourcefilterpredicatestring" type="string">title ==</attribute>
                </object>
            """)
        do {
            _ = try XcodeMappingReader.read(data: data, file: "f.xml", name: "F")
            Issue.record("expected an error")
        } catch {
            guard case .expressionSyntax(let location, let mapping, _, _, let syntax) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(mapping == "AToA")
            #expect(syntax.column == 9)
            #expect(location.line == 13)
        }
    }

    @Test func notAMappingModel() throws {
        let data = Data("<?xml version=\"1.0\"?><model/>".utf8)
        #expect(throws: MappingError.self) { try XcodeMappingReader.read(data: data, file: "x.xml", name: "X") }
    }
}

/// The NSPredicate / NSExpression text parser.
@Suite struct ExpressionParserTests {
    @Test(arguments: [
        "$source.title", "$source.country.continent.name", "FUNCTION($source.title, \"uppercaseString\")",
        "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"NoteToNote\", $source.notes)",
        "FUNCTION($entityPolicy, \"changeID:\", $source.id)", "$source.count * 60 + 1", "($source.a + 1) * 2",
        "-$source.a", "\"it's \\\"quoted\\\"\"", "nil", "YES", "NO", "CAST(700000000.0, \"NSDate\")", "now()",
        "$source.a / ($source.b - 2)", "$source.a ** 2", "TERNARY(a > 1, \"x\", \"y\")", "items[FIRST]",
        "SUBQUERY($source.tags, $t, $t.name BEGINSWITH \"a\")", "{1, 2, 3}", "$source.countries.@distinctUnionOfSets.moods",
    ])
    func expressionsRoundTrip(text: String) throws {
        let parsed = try ExpressionParser.parseExpression(text)
        #expect(try ExpressionParser.parseExpression(parsed.description) == parsed, "\(text) → \(parsed)")
    }

    @Test(arguments: [
        "title == nil", "name != 'Nike' && name != 'Adidas' && name != 'UA'", "messageID < 10000",
        "topicList.title MATCHES '[a-hA-H].*'", "title BEGINSWITH[cd] 'x' OR NOT (count > 2)", "count BETWEEN {1, 10}",
        "ANY tags.name ==[c] 'x'", "ALL tags.count > 0", "NONE tags.count > 0", "name IN {'a', 'b'}", "title LIKE[c] 'a*'",
        "title ENDSWITH 'x' AND title CONTAINS 'y' || TRUEPREDICATE", "(a + b) > 2", "a => 1 AND b =< 2 AND c <> 3",
        "SUBQUERY(tags, $t, $t.name == 'x').@count > 0", "#first == 1",
    ])
    func predicatesRoundTrip(text: String) throws {
        let parsed = try ExpressionParser.parsePredicate(text)
        #expect(try ExpressionParser.parsePredicate(parsed.description) == parsed, "\(text) → \(parsed)")
    }

    @Test func keyPathSpellingsAgree() throws {
        let viaFunction = try ExpressionParser.parseExpression("FUNCTION($source, \"valueForKeyPath:\", \"a.b\")")
        #expect(viaFunction == .keyPath(base: .variable("source"), path: ["a", "b"]))
        #expect(try ExpressionParser.parseExpression("0x1F") == .constant(.integer(31)))
        #expect(try ExpressionParser.parseExpression("1.5e2") == .constant(.real(150)))
        #expect(try ExpressionParser.parseExpression("'a\\u00e9'") == .constant(.string("aé")))
        #expect(try ExpressionParser.parsePredicate("a == TRUE") == ExpressionParser.parsePredicate("a = YES"))
    }

    @Test(arguments: [
        ("title ==", 9), ("title == 'open", 10), ("FUNCTION($source)", 1), ("a BETWEEN 3", 3), ("title == %@", 10),
        ("a ==[x] 1", 6), ("a == 1 )", 8), ("AND == 1", 1),
    ])
    func errorsCarryTheColumn(text: String, column: Int) {
        do {
            _ = try ExpressionParser.parsePredicate(text)
            Issue.record("'\(text)' parsed")
        } catch {
            #expect(error.column == column, "\(text): \(error)")
        }
    }
}
