import Foundation
@_spi(Layouts) import InstarModel
import Testing

@testable import InstarModelIO
import InstarTestSupport

/// Every compiled model in the shared corpus against its `.xcdatamodeld` source and against the hashes
/// Xcode recorded in its `VersionInfo.plist`.
///
/// These tests need `../shared/corpus` beside the package root and are skipped (with this reason) when it
/// is absent. To run them, check out or link the shared corpus there and run
/// `swift test --filter CompiledModelCorpusTests`.
@Suite(.enabled(if: corpusAvailable, "skipped: ../shared/corpus is absent (place the shared corpus beside the package)"))
struct CompiledModelCorpusTests {
    /// Every `.momd` folder in the corpus with the `.xcdatamodeld` of the same name in its repository.
    static func pairs() throws -> [(momd: URL, source: URL)] {
        let momds = try files(under: corpusRoot) { $0.pathExtension == "momd" }
        return try momds.map { momd in
            let repository = URL(fileURLWithPath: corpusRoot.path)
                .appendingPathComponent(momd.path.dropFirst(corpusRoot.path.count + 1).split(separator: "/")[0].description)
            let wanted = momd.deletingPathExtension().lastPathComponent + ".xcdatamodeld"
            let sources = try files(under: repository) { $0.lastPathComponent == wanted }
            let source = try #require(sources.first, "no \(wanted) beside \(momd.path)")
            return (momd, source)
        }
    }

    static func files(under root: URL, where matches: (URL) -> Bool) throws -> [URL] {
        let enumerator = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        var found: [URL] = []
        while let url = enumerator.nextObject() as? URL {
            if matches(url) { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    @Test func everyCompiledVersionEqualsItsSourceAndXcodesHashes() throws {
        let pairs = try Self.pairs()
        #expect(pairs.count >= 3, "expected the corpus's three .momd folders, found \(pairs.count)")
        var versionsCompared = 0
        for (momd, source) in pairs {
            let info = try #require(try CompiledVersionInfo.read(in: momd), "\(momd.path) has no VersionInfo.plist")
            let sources = try ModelBundle.read(xcdatamodeld: source)
            let moms = try Self.files(under: momd) { $0.pathExtension == "mom" }
            for mom in moms {
                let compiled = try CompiledModelReader.read(mom: mom)
                let xml = try #require(sources.version(named: compiled.name), "\(source.path) lacks \(compiled.name)")
                let label = "\(momd.lastPathComponent)/\(compiled.name)"
                #expect(compiled.versionIdentifier == xml.versionIdentifier, "\(label): version identifier")
                #expect(compiled.entities.map(\.name) == xml.entities.map(\.name), "\(label): entities")
                for entity in xml.entities {
                    let differences = Self.differences(compiled.entity(named: entity.name), entity)
                    #expect(differences.isEmpty, "\(label): \(differences.joined(separator: "; "))")
                }
                let hashes = compiled.versionHashes
                #expect(hashes == xml.versionHashes, "\(label): hashes differ between the two readers")
                #expect(hashes.entityHashes == info.entityHashes[compiled.name], "\(label): VersionInfo hashes")
                if let checksum = info.checksums[compiled.name] {
                    #expect(hashes.versionChecksum == checksum, "\(label): VersionInfo checksum")
                }
                versionsCompared += 1
            }
        }
        #expect(versionsCompared >= 7, "expected the corpus's 7 compiled versions, compared \(versionsCompared)")
    }

    /// What differs between an entity read from a `.mom` and the same entity read from XML, property by
    /// property. Defaults are compared by typed value: the XML keeps Xcode's text (`0.0`, `NO`), the
    /// archive a typed number.
    static func differences(_ compiled: Entity?, _ xml: Entity) -> [String] {
        guard let compiled else { return ["\(xml.name) is missing"] }
        var found: [String] = []
        var (a, b) = (compiled, xml)
        (a.attributes, a.relationships, b.attributes, b.relationships) = ([], [], [], [])
        if a != b { found.append("\(xml.name): \(a) ≠ \(b)") }
        for attribute in xml.attributes {
            guard let other = compiled.attribute(named: attribute.name) else {
                found.append("\(xml.name).\(attribute.name) is missing"); continue
            }
            if normalized(other) != normalized(attribute) { found.append("\(xml.name).\(attribute.name): \(other) ≠ \(attribute)") }
        }
        for relationship in xml.relationships {
            let other = compiled.relationship(named: relationship.name)
            if other != relationship { found.append("\(xml.name).\(relationship.name): \(String(describing: other)) ≠ \(relationship)") }
        }
        if compiled.attributes.count != xml.attributes.count || compiled.relationships.count != xml.relationships.count {
            found.append("\(xml.name): property counts differ")
        }
        return found
    }

    static func normalized(_ attribute: Attribute) -> Attribute {
        var copy = attribute
        if let text = attribute.defaultValue, let typed = DefaultValue.typed(text, for: attribute.type) {
            copy.defaultValue = "\(typed)"
        }
        return copy
    }

    @Test func momdBundleHasEveryVersionInNaturalOrderAndTheCurrentOne() throws {
        let momd = corpusRoot.appendingPathComponent(
            "alemar11__CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3.momd")
        let bundle = try ModelBundle.read(momd: momd)
        #expect(bundle.name == "SampleModel3")
        #expect(bundle.versions.map(\.name) == ["SampleModel3", "SampleModel3_v2", "SampleModel3_v3"])
        #expect(bundle.currentVersionName == "SampleModel3")
        #expect(bundle.currentVersion?.name == "SampleModel3")
        // The bundle reader planners and the CLI reach accepts the compiled folder too.
        #expect(try ModelBundle.read(xcdatamodeld: momd).versions.map(\.name) == bundle.versions.map(\.name))
    }

    @Test func modelLoaderOpensCompiledModels() throws {
        let momd = corpusRoot.appendingPathComponent(
            "alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel.momd").path
        #expect(try ModelLoader.load(momd).name == "SampleModel")
        #expect(try ModelLoader.load(momd + "#SampleModel2").name == "SampleModel2")
        #expect(try ModelLoader.load(momd + "/SampleModel3.mom").versionIdentifier == "3")
        #expect(throws: ModelError.self) { try ModelLoader.load(momd + "#SampleModel9") }
    }

    @Test func compiledDetailsThatTheXMLSpellsDifferently() throws {
        let folder = corpusRoot.appendingPathComponent("alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel.momd")
        let v1 = try CompiledModelReader.read(mom: folder.appendingPathComponent("SampleModel.mom"))
        let person = try #require(v1.entity(named: "Person"))
        #expect(person.attribute(named: "id")?.preservesValueInHistoryOnDeletion == true)
        #expect(person.attribute(named: "isDriving")?.isTransient == true)
        #expect(person.attribute(named: "isDriving")?.defaultValue == "NO")
        #expect(person.attribute(named: "firstName")?.renamingIdentifier == nil, "the name itself means none")
        #expect(person.uniquenessConstraints == [["firstName", "lastName"]])
        let v2 = try CompiledModelReader.read(mom: folder.appendingPathComponent("SampleModel2.mom"))
        // momc writes the fetch index also as a compound index; only the fetch index is the model's.
        #expect(v2.entity(named: "Car")?.indexes.map(\.name) == ["byMakerAndNumberPlate"])
        let v3 = try CompiledModelReader.read(mom: folder.appendingPathComponent("SampleModel3.mom"))
        #expect(v3.entity(named: "LuxuryCar")?.renamingIdentifier == "ExpensiveSportCar")
        #expect(v3.entity(named: "LuxuryCar")?.parent == "SportCar")
        let cart = corpusRoot.appendingPathComponent(
            "Karim-ezzedine__CartKit/Sources/CartKitStorageCoreData/Resources/CartStorage.momd/CartStorage.mom")
        let item = try #require(try CompiledModelReader.read(mom: cart).entity(named: "CDCartItem"))
        #expect(item.attribute(named: "unitPriceAmount")?.defaultValue == "0.0")
        #expect(item.attribute(named: "quantity")?.defaultValue == "0")
        let modifiers = try #require(item.relationship(named: "modifiers"))
        #expect(modifiers.isToMany && modifiers.deleteRule == .cascade && modifiers.maxCount == 0)
    }

    @Test func truncatedCorpusFilesFailWithoutCrashing() throws {
        let mom = corpusRoot.appendingPathComponent(
            "Karim-ezzedine__CartKit/Sources/CartKitStorageCoreData/Resources/CartStorage.momd/CartStorage.mom")
        let data = try Data(contentsOf: mom)
        for length in stride(from: 0, to: data.count, by: 7) {
            #expect(throws: ModelError.self) {
                try CompiledModelReader.parse(data: data.prefix(length), name: "CartStorage", file: mom.path)
            }
        }
    }
}

/// Whether `../shared/corpus` exists beside the package root (see ``corpusRoot``).
let corpusAvailable = FileManager.default.fileExists(atPath: corpusRoot.path)
