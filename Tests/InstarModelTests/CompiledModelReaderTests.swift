import Foundation
@_spi(Layouts) import InstarModel
import Testing

@testable import InstarModelIO
import InstarTestSupport

/// The compiled-model reader on archives built here: every key it honours, and broken input of every
/// kind, which must become a ``ModelError`` naming the file and the object, never a crash.
@Suite struct CompiledModelReaderTests {
    static let file = "/tmp/Test.mom"

    static func parse(_ data: Data) throws(ModelError) -> Model {
        try CompiledModelReader.parse(data: data, name: "Test", file: file)
    }

    /// The message of the single problem a parse reports.
    static func failure(_ data: Data) -> ModelProblem? {
        do {
            _ = try parse(data)
            return nil
        } catch {
            return error.problems.first
        }
    }

    /// Archives the flags and keys that the corpus's models do not use, per Core Data's encoder.
    static func fullArchive(format: PropertyListSerialization.PropertyListFormat = .binary) throws -> Data {
        var m = ModelArchiveBuilder()
        let info = m.archive.dictionary([("NSMigrationAllowTypeTransformation", m.archive.add("YES"))])
        let base = m.entity(
            "Base",
            properties: [
                m.attribute("created", type: 900, optional: false),
                // _P 0x1 | optional 0x2 | read-only 0x4 | 0xB0 (no predicates, warnings, modifier): user info present.
                m.attribute("code", type: 300, extra: ["_P": 0xB7, "NSIsReadOnly": true, "NSUserInfo": info]),
            ],
            extra: ["NSIsAbstract": true])
        let uniques = m.archive.array([m.archive.strings(["title"])])
        let element = m.archive.object(
            ["NSFetchIndexElementDescription", "NSObject"],
            ["NSPropertyName": m.archive.add("title"), "NSAscending": false, "NSFetchIndexElementType": 0])
        let index = m.archive.object(
            ["NSFetchIndexDescription", "NSObject"],
            ["NSIndexName": m.archive.add("byTitle"), "NSIndexElements": m.archive.array([element])])
        m.entity(
            "Track",
            properties: [
                m.attribute(
                    "title", type: 700,
                    extra: ["_P": 0x73, "NSVersionHashModifier": m.archive.add("v2"), "NSIsIndexed": true]),
                m.attribute("artwork", type: 1000, extra: ["NSFlagsKey": 0x4 | 0x10]),
                m.attribute("rating", type: 200, extra: ["NSDefaultValue": m.archive.add(3), "NSIsIndexed": true]),
                m.attribute("old", type: 700, extra: ["NSRenamingIdentifier": m.archive.add("legacy")]),
                m.relationship("tags", to: "Tag", inverse: "tracks", maxCount: 0, extra: ["_P": 0x4F3, "NSDeleteRule": 2]),
            ],
            extra: [
                "NSSuperentity": base, "NSVersionHashModifier": m.archive.add("t"), "NSUniqueTuples": uniques,
                "NSFetchIndexDescriptions": m.archive.array([index]),
                "NSCompoundIndexes": m.archive.array([m.archive.strings(["old"])]),
            ])
        m.entity("Tag", properties: [m.relationship("tracks", to: "Track", inverse: "tags", maxCount: 0)])
        return try m.data(versionIdentifier: "2.0", format: format)
    }

    /// The model ``fullArchive(format:)`` describes, built directly.
    static func expectedEntities() -> [Entity] {
        [
            Entity(
                name: "Base", isAbstract: true,
                attributes: [
                    Attribute(name: "code", type: .integer64, isReadOnly: true,
                        userInfo: ["NSMigrationAllowTypeTransformation": "YES"]),
                    Attribute(name: "created", type: .date, isOptional: false),
                ]),
            Entity(name: "Tag", relationships: [Relationship(name: "tracks", destination: "Track", inverse: "tags", isToMany: true)]),
            Entity(
                name: "Track", parent: "Base", versionHashModifier: "t", uniquenessConstraints: [["title"]],
                indexes: [
                    FetchIndex(name: "byTitle", elements: [.init(property: "title", ascending: false)]),
                    FetchIndex(name: "old", elements: [.init(property: "old")]),
                ],
                attributes: [
                    Attribute(name: "artwork", type: .binary, allowsExternalBinaryDataStorage: true,
                        preservesValueInHistoryOnDeletion: true),
                    Attribute(name: "old", type: .string, renamingIdentifier: "legacy"),
                    Attribute(name: "rating", type: .integer32, defaultValue: "3", isIndexed: true),
                    // Indexed in the archive too, but `byTitle` covers it: the flag is that index's copy
                    // (SwiftData's #Index writes both), and a second SQL index would be one Core Data lacks.
                    Attribute(name: "title", type: .string, versionHashModifier: "v2"),
                ],
                relationships: [
                    Relationship(name: "tags", destination: "Tag", inverse: "tracks", isToMany: true, isOrdered: true,
                        deleteRule: .cascade)
                ]),
        ]
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func everyHonouredKeyLandsInTheModel(format: PropertyListSerialization.PropertyListFormat) throws {
        let model = try Self.parse(try Self.fullArchive(format: format))
        #expect(model.name == "Test")
        #expect(model.versionIdentifier == "2.0")
        #expect(model.source == Self.file)
        let expected = Self.expectedEntities()
        #expect(model.entities.map(\.name) == expected.map(\.name))
        for entity in expected {
            #expect(model.entity(named: entity.name) == entity)
        }
        let direct = try Model(name: "Test", entities: expected)
        #expect(model.versionHashes == direct.versionHashes)
    }

    @Test func decimalDefaultsAreWrittenOutDigitByDigit() throws {
        func decimal(_ mantissa: UInt64, exponent: Int, negative: Bool = false, length: Int? = nil) throws -> String? {
            var archive = ArchiveBuilder()
            var bytes = [UInt8](repeating: 0, count: 16)
            withUnsafeBytes(of: mantissa.littleEndian) { for (i, b) in $0.enumerated() { bytes[i] = b } }
            let words = length ?? (mantissa == 0 ? 0 : (64 - mantissa.leadingZeroBitCount + 15) / 16)
            let reference = archive.object(
                ["NSDecimalNumberPlaceholder", "NSDecimalNumber", "NSNumber", "NSValue", "NSObject"],
                [
                    "NS.mantissa": Data(bytes), "NS.mantissa.bo": 1, "NS.exponent": exponent, "NS.negative": negative,
                    "NS.length": words, "NS.compact": true,
                ])
            let archived = try KeyedArchive(data: try archive.data(root: reference), file: "d")
            guard case .object(let object) = try archived.value(at: archived.rootReference, from: "test") else {
                return "not an object"
            }
            return try CompiledDefaultValue.decimalText(object)
        }
        #expect(try decimal(0, exponent: -1) == "0.0")
        #expect(try decimal(15, exponent: -1) == "1.5")
        #expect(try decimal(5, exponent: -3, negative: true) == "-0.005")
        #expect(try decimal(12345, exponent: 2) == "1234500")
        #expect(try decimal(UInt64.max, exponent: 0) == "18446744073709551615")
        #expect(throws: KeyedArchiveError.self) { try decimal(1, exponent: 0, length: 9) }
    }

    @Test func scalarDefaultsUseXcodesSpelling() throws {
        #expect(try CompiledDefaultValue.text(of: .boolean(false), for: .boolean) == "NO")
        #expect(try CompiledDefaultValue.text(of: .integer(1), for: .boolean) == "YES")
        #expect(try CompiledDefaultValue.text(of: .real(2), for: .integer16) == "2")
        #expect(try CompiledDefaultValue.text(of: .real(0.25), for: .double) == "0.25")
        #expect(try CompiledDefaultValue.text(of: .string("x"), for: .string) == "x")
        #expect(try CompiledDefaultValue.text(of: .data(Data([1])), for: .binary) == nil)
    }

    // MARK: - Broken input

    @Test func notAPropertyList() {
        let problem = Self.failure(Data("this is not a plist".utf8))
        #expect(problem?.kind == .syntax)
        #expect(problem?.message.hasPrefix("not a property list") == true)
        #expect(problem?.location?.file == Self.file)
    }

    @Test func aPropertyListThatIsNotAnArchive() throws {
        for plist: Any in [["name": "x"], ["$archiver": "NSKeyedArchiver", "$version": 100_000], [1, 2]] {
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
            #expect(Self.failure(data)?.message.hasPrefix("not a keyed archive") == true, "\(plist)")
        }
    }

    @Test func otherArchiversAndVersionsAreRefused() throws {
        var archive = ArchiveBuilder()
        archive.version = 200_000
        let root = archive.add("x")
        #expect(Self.failure(try archive.data(root: root))?.message == "unsupported keyed-archive version 200000 (expected 100000)")
        archive.version = 100_000
        archive.archiver = "NSArchiver"
        #expect(Self.failure(try archive.data(root: root))?.message == "archived by 'NSArchiver', not by NSKeyedArchiver")
    }

    @Test func aReferenceOutOfRangeNamesTheObjectAndKey() throws {
        var m = ModelArchiveBuilder()
        let entity = m.entity("Track", properties: [], extra: ["NSProperties": ArchiveBuilder.ref(999)])
        let message = Self.failure(try m.data())?.message ?? ""
        let index = entity["CF$UID"] as! Int
        #expect(message.hasPrefix("object $objects[\(index)] of class NSEntityDescription, key NSProperties refers to $objects[999]"), "\(message)")
        var root = ArchiveBuilder()
        _ = root.add("x")
        var frame = try root.data(root: ArchiveBuilder.ref(5))
        #expect(Self.failure(frame)?.message.contains("$top.root refers to $objects[5]") == true)
        frame = try root.data(root: ArchiveBuilder.ref(-1))
        #expect(Self.failure(frame)?.message.hasPrefix("not a keyed archive") == true)
    }

    @Test func aMissingRequiredKeyNamesTheObject() throws {
        var m = ModelArchiveBuilder()
        let (_, attribute) = m.attribute("title", type: 700)
        m.entity("Track", properties: [("title", attribute)])
        var fields = m.archive.objects[attribute["CF$UID"] as! Int] as! [String: Any]
        fields["NSAttributeType"] = nil
        m.archive.replace(attribute, with: fields)
        let index = attribute["CF$UID"] as! Int
        #expect(
            Self.failure(try m.data())?.message == "object $objects[\(index)] of class NSAttributeDescription has no NSAttributeType")
    }

    @Test func wrongShapesAreReportedNotTrusted() throws {
        var m = ModelArchiveBuilder()
        m.entity("Track", properties: [m.attribute("title", type: 700, extra: ["NSAttributeType": "String"])])
        #expect(Self.failure(try m.data())?.message.contains("NSAttributeType is a string, expected an integer") == true)
        var n = ModelArchiveBuilder()
        n.entity("Track", properties: [], extra: ["NSEntityName": n.archive.add(42)])
        #expect(Self.failure(try n.data())?.message.contains("NSEntityName is an integer, expected a string") == true)
        var archive = ArchiveBuilder()
        let notAModel = archive.object(["NSString", "NSObject"], ["NS.string": archive.add("x")])
        #expect(Self.failure(try archive.data(root: notAModel))?.message.contains("is not an NSManagedObjectModel") == true)
    }

    @Test func unknownTypesAndRulesAreProblemsOfTheModel() throws {
        var m = ModelArchiveBuilder()
        m.entity(
            "Track",
            properties: [
                m.attribute("value", type: 2200),
                m.relationship("self_", to: "Track", inverse: nil, maxCount: 1, extra: ["NSDeleteRule": 7]),
            ])
        let data = try m.data()
        do {
            _ = try Self.parse(data)
            Issue.record("expected problems")
        } catch {
            #expect(error.problems.map(\.kind) == [.unknownType, .invalidValue])
            #expect(error.problems.allSatisfy { $0.entity == "Track" && $0.location?.file == Self.file })
        }
    }

    @Test func truncatedArchivesFail() throws {
        let data = try Self.fullArchive()
        for length in 0..<data.count {
            #expect(Self.failure(data.prefix(length)) != nil, "prefix of \(length) bytes")
        }
    }

    /// Every single-byte corruption either still reads or fails with a problem; none may crash or hang.
    /// (Foundation's own reader crashed on such input: see ``BinaryPropertyList``.)
    @Test func corruptedArchivesNeverCrash() throws {
        var m = ModelArchiveBuilder()
        m.entity(
            "Node",
            properties: [
                m.attribute("title", type: 700, extra: ["NSDefaultValue": m.archive.add("x")]),
                m.relationship("next", to: "Node", inverse: "next", maxCount: 1),
            ])
        var bytes = [UInt8](try m.data())
        var refused = 0
        for position in bytes.indices {
            let original = bytes[position]
            bytes[position] = original ^ 0x5A
            if Self.failure(Data(bytes)) != nil { refused += 1 }
            bytes[position] = original
        }
        #expect(refused > bytes.count / 2, "most corruptions should be detected, \(refused) of \(bytes.count) were")
    }

    @Test func cyclicAndSelfReferencingPropertyListsAreRefused() throws {
        // A binary plist whose top array (object 0) contains itself: the graph never ends.
        var bytes = Array("bplist00".utf8) + [0xA1, 0x00]  // array of one reference, to object 0
        let table = bytes.count
        bytes += [0x08]  // offset table: object 0 at byte 8
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + bigEndian(1) + bigEndian(0) + bigEndian(UInt64(table))
        let problem = Self.failure(Data(bytes))
        // Found by the measuring pass, before any node is built, naming the object.
        #expect(problem?.message == "not a property list (the object graph is cyclic (object 0 contains itself))")
        func bigEndian(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
    }

    @Test func readsAFileAndRefusesFolders() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Library 2.mom")
        try Self.fullArchive().write(to: file)
        #expect(try CompiledModelReader.read(mom: file).name == "Library 2")
        #expect(try ModelLoader.load(file.path).name == "Library 2")
        #expect(throws: ModelError.self) { try CompiledModelReader.read(mom: folder) }
        #expect(throws: ModelError.self) { try CompiledModelReader.read(mom: folder.appendingPathComponent("x.mom")) }
    }
}
