import Foundation
@_spi(Layouts) import InstarModel
import Testing

@testable import InstarModelIO
import InstarTestSupport

/// The Xcode model reader: XML → model exactly as momc reads it, errors with positions, bundles, and
/// every real model in the shared corpus.
@Suite struct XcodeModelReaderTests {
    // MARK: - Every honoured XML attribute lands in the model

    static let fullModel = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="24512" systemVersion="25A362" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="2.1">
            <entity name="Media" representedClassName="Media" isAbstract="YES" versionHashModifier="media-1" syncable="YES">
                <attribute name="addedAt" attributeType="Date" defaultDateTimeInterval="600000000" usesScalarValueType="NO"/>
            </entity>
            <entity name="Track" representedClassName=".Track" parentEntity="Media" elementID="Song" codeGenerationType="class">
                <attribute name="title" attributeType="String"/>
                <attribute name="subtitle" optional="YES" attributeType="String" defaultValueString="none"/>
                <attribute name="plays" optional="YES" attributeType="Integer 32" defaultValueString="0" indexed="YES" usesScalarValueType="YES"/>
                <attribute name="cover" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="uid" attributeType="UUID" preserveAfterDeletion="YES"/>
                <attribute name="isrc" optional="YES" attributeType="String" preservesValueInHistoryOnDeletion="YES"/>
                <attribute name="scratch" optional="YES" transient="YES"/>
                <attribute name="rating" optional="YES" attributeType="Double" elementID="score" versionHashModifier="v2"/>
                <attribute name="legacy" optional="YES" attributeType="Integer 16" renamingIdentifier="oldLegacy"/>
                <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]">
                    <userInfo>
                        <entry key="NSMigrationAllowTypeTransformation" value="YES"/>
                        <entry key="note" value=""/>
                    </userInfo>
                </attribute>
                <relationship name="album" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Album" inverseName="tracks" inverseEntity="Album"/>
                <relationship name="artists" toMany="YES" minCount="1" maxCount="5" deletionRule="Deny" destinationEntity="Artist" inverseName="tracks" inverseEntity="Artist" elementID="performers" versionHashModifier="r1"/>
                <relationship name="cache" optional="YES" transient="YES" toMany="YES" deletionRule="No Action" destinationEntity="Artist"/>
                <fetchedProperty name="similar" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Track" predicateString="title == $FETCH_SOURCE.title"/>
                </fetchedProperty>
                <userInfo>
                    <entry key="entityLevel" value="ignored"/>
                </userInfo>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="title"/>
                        <constraint value="album"/>
                    </uniquenessConstraint>
                    <uniquenessConstraint>
                        <constraint value="uid"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="title"/>
                        <index value="plays"/>
                    </compoundIndex>
                </compoundIndexes>
                <fetchIndex name="byPlays">
                    <fetchIndexElement property="plays" type="Binary" order="descending"/>
                    <fetchIndexElement property="title" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            <entity name="Album" representedClassName="Album">
                <attribute name="name" attributeType="String"/>
                <relationship name="tracks" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Track" inverseName="album" inverseEntity="Track"/>
            </entity>
            <entity name="Artist" representedClassName="Artist">
                <attribute name="name" attributeType="String"/>
                <relationship name="tracks" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Track" inverseName="artists" inverseEntity="Track"/>
            </entity>
            <fetchRequest name="AllTracks" entity="Track"/>
            <configuration name="Cloud" usedWithCloudKit="YES">
                <memberEntity name="Track"/>
            </configuration>
            <elements>
                <element name="Track" positionX="-63" positionY="-18" width="128" height="44"/>
            </elements>
        </model>
        """

    static func parse(_ xml: String, name: String = "Music", file: String = "Music.xcdatamodel/contents") throws(ModelError)
        -> Model
    {
        try XcodeModelReader.parse(data: Data(xml.utf8), name: name, file: file)
    }

    /// The problems of a read that must fail.
    static func problems(_ xml: String) -> [ModelProblem] {
        do {
            _ = try parse(xml)
            Issue.record("expected the model to be rejected")
            return []
        } catch {
            return error.problems
        }
    }

    /// 1-based line of the first line of `xml` containing `text`.
    static func line(of text: String, in xml: String) -> Int? {
        xml.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(text) }.map { $0 + 1 }
    }

    // MARK: - Composite attributes (Xcode 15, iOS 17)

    static func compositeModel(_ reference: String, definitions: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Quake" representedClassName="Quake" syncable="YES">
                <attribute name="code" optional="YES" attributeType="String"/>
                <attribute name="magnitude" optional="YES" attributeType="Composite"\(reference)/>
            </entity>
        \(definitions)
        </model>
        """
    }

    static let magnitude = """
            <composite name="Magnitude">
                <attribute name="richter" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="scale" optional="YES" attributeType="String"/>
            </composite>
        """

    @Test func compositeAttributesTakeTheElementsOfTheCompositeTheyName() throws {
        // The composite type is a model-level element, used by name; both spellings Xcode-era tools write.
        for definitions in [Self.magnitude, Self.magnitude.replacingOccurrences(of: "composite", with: "compositeAttribute")] {
            let model = try Self.parse(Self.compositeModel(" composite=\"Magnitude\"", definitions: definitions))
            let attribute = model.entity(named: "Quake")?.attribute(named: "magnitude")
            #expect(attribute?.type == .composite)
            #expect(attribute?.elements.map(\.name) == ["richter", "scale"])
            #expect(attribute?.elements.map(\.type) == [.double, .string])
        }
        // Naming none is read as the only composite there is.
        let only = try Self.parse(Self.compositeModel("", definitions: Self.magnitude))
        #expect(only.entity(named: "Quake")?.attribute(named: "magnitude")?.elements.count == 2)
    }

    @Test func aCompositeThatCannotBeResolvedIsAnErrorAtItsLine() throws {
        let second = Self.magnitude.replacingOccurrences(of: "Magnitude", with: "Depth")
        // Naming none among two is a missing key; naming one that is not there, an invalid value.
        for (reference, definitions, kind): (String, String, ModelProblem.Kind) in [
            ("", Self.magnitude + second, .missingKey),
            (" composite=\"Intensity\"", Self.magnitude, .invalidValue),
        ] {
            do {
                _ = try Self.parse(Self.compositeModel(reference, definitions: definitions))
                Issue.record("\(kind): no error")
            } catch {
                let problem = error.problems.first
                #expect(problem?.kind == kind, "\(error.problems)")
                #expect(problem?.location?.line == 5)
                #expect(problem?.property == "magnitude")
            }
        }
    }

    @Test func modelLevelFields() throws {
        let model = try Self.parse(Self.fullModel)
        #expect(model.name == "Music")
        #expect(model.versionIdentifier == "2.1")
        #expect(model.source == "Music.xcdatamodel/contents")
        // Declaration order; fetch requests, configurations and layout elements add nothing.
        #expect(model.entities.map(\.name) == ["Media", "Track", "Album", "Artist"])
    }

    @Test func entityFields() throws {
        let model = try Self.parse(Self.fullModel)
        let media = try #require(model.entity(named: "Media"))
        #expect(media.isAbstract)
        #expect(media.versionHashModifier == "media-1")
        #expect(media.parent == nil)

        let track = try #require(model.entity(named: "Track"))
        #expect(track.parent == "Media")
        #expect(!track.isAbstract)
        #expect(track.renamingIdentifier == "Song")
        #expect(track.versionHashModifier == nil)
        #expect(track.uniquenessConstraints == [["title", "album"], ["uid"]])
        #expect(
            track.indexes == [
                FetchIndex(name: "title_plays", elements: [.init(property: "title"), .init(property: "plays")]),
                FetchIndex(
                    name: "byPlays",
                    elements: [.init(property: "plays", ascending: false), .init(property: "title", ascending: true)]),
            ])
        // Fetched properties are not attributes or relationships; inherited ones come first.
        #expect(
            model.properties(of: "Track").map(\.name) == [
                "addedAt", "title", "subtitle", "plays", "cover", "uid", "isrc", "scratch", "rating", "legacy", "tags",
                "album", "artists", "cache",
            ])
    }

    @Test func attributeFields() throws {
        let model = try Self.parse(Self.fullModel)
        let media = try #require(model.entity(named: "Media"))
        let track = try #require(model.entity(named: "Track"))
        func attribute(_ name: String) throws -> Attribute { try #require(track.attribute(named: name)) }

        let addedAt = try #require(media.attribute(named: "addedAt"))
        #expect(addedAt.type == .date)
        #expect(addedAt.defaultValue == "600000000")
        #expect(!addedAt.isOptional)

        let title = try attribute("title")
        #expect(title.type == .string)
        #expect(!title.isOptional, "an absent optional= means not optional")
        #expect(!title.isTransient && !title.isIndexed && title.defaultValue == nil)
        #expect(title.renamingIdentifier == nil && title.versionHashModifier == nil && title.userInfo.isEmpty)

        let subtitle = try attribute("subtitle")
        #expect(subtitle.isOptional)
        #expect(subtitle.defaultValue == "none")

        let plays = try attribute("plays")
        #expect(plays.type == .integer32)
        #expect(plays.defaultValue == "0")
        #expect(plays.isIndexed)

        let cover = try attribute("cover")
        #expect(cover.type == .binary)
        #expect(cover.allowsExternalBinaryDataStorage)
        #expect(!cover.preservesValueInHistoryOnDeletion)

        #expect(try attribute("uid").preservesValueInHistoryOnDeletion, "Xcode's spelling preserveAfterDeletion")
        #expect(try attribute("isrc").preservesValueInHistoryOnDeletion, "the API spelling")

        let scratch = try attribute("scratch")
        #expect(scratch.type == .undefined, "a transient attribute may omit attributeType")
        #expect(scratch.isTransient)

        let rating = try attribute("rating")
        #expect(rating.type == .double)
        #expect(rating.renamingIdentifier == "score")
        #expect(rating.versionHashModifier == "v2")

        let legacy = try attribute("legacy")
        #expect(legacy.type == .integer16)
        #expect(legacy.renamingIdentifier == "oldLegacy", "older files write renamingIdentifier")

        let tags = try attribute("tags")
        #expect(tags.type == .transformable)
        #expect(tags.userInfo == ["NSMigrationAllowTypeTransformation": "YES", "note": ""])
    }

    @Test func relationshipFields() throws {
        let model = try Self.parse(Self.fullModel)
        let track = try #require(model.entity(named: "Track"))

        let album = try #require(track.relationship(named: "album"))
        #expect(album.destination == "Album")
        #expect(album.inverse == "tracks")
        #expect(album.isToOne && !album.isOrdered)
        #expect(album.maxCount == 1 && album.minCount == 0)
        #expect(album.deleteRule == .nullify)
        #expect(album.isOptional && !album.isTransient)

        let artists = try #require(track.relationship(named: "artists"))
        #expect(artists.isToMany)
        #expect(artists.minCount == 1 && artists.maxCount == 5)
        #expect(artists.deleteRule == .deny)
        #expect(!artists.isOptional, "an absent optional= means not optional")
        #expect(artists.renamingIdentifier == "performers")
        #expect(artists.versionHashModifier == "r1")

        let cache = try #require(track.relationship(named: "cache"))
        #expect(cache.isTransient)
        #expect(cache.deleteRule == .noAction)
        #expect(cache.inverse == nil)

        let tracks = try #require(model.entity(named: "Album")?.relationship(named: "tracks"))
        #expect(tracks.isToMany && tracks.isOrdered)
        #expect(tracks.minCount == 0, "an absent minCount means 0")
        #expect(tracks.maxCount == 0, "an absent maxCount on a to-many means unbounded (0)")
        #expect(tracks.deleteRule == .cascade)
    }

    @Test func absentCountsAndToOneMaximum() throws {
        // momc: minCount absent → 0 even when not optional; to-one maxCount is always 1.
        let model = try Self.parse(
            """
            <model>
                <entity name="A">
                    <relationship name="b" deletionRule="Nullify" destinationEntity="B" inverseName="a"/>
                </entity>
                <entity name="B">
                    <relationship name="a" toMany="YES" deletionRule="Nullify" destinationEntity="A" inverseName="b"/>
                </entity>
            </model>
            """)
        let b = try #require(model.entity(named: "A")?.relationship(named: "b"))
        #expect(!b.isOptional && b.minCount == 0 && b.maxCount == 1 && b.isToOne)
        let a = try #require(model.entity(named: "B")?.relationship(named: "a"))
        #expect(a.minCount == 0 && a.maxCount == 0 && a.isToMany && !a.isOptional)
    }

    @Test func mismatchedDefaultsAreKeptAsXcodeDoes() throws {
        // Xcode saves such defaults (apptentive's ATDataModel has one) and Core Data reads them leniently.
        let model = try Self.parse(
            #"<model><entity name="A"><attribute name="state" attributeType="Integer 32" defaultValueString="YES"/></entity></model>"#
        )
        #expect(model.entity(named: "A")?.attribute(named: "state")?.defaultValue == "YES")
    }

    @Test func versionIdentifierAbsentOrEmpty() throws {
        let absent = try Self.parse(#"<model><entity name="A"><attribute name="x" attributeType="String"/></entity></model>"#)
        #expect(absent.versionIdentifier == nil)
        // Core Data stores [""] in the store metadata for an empty identifier, so "" is kept.
        let empty = try Self.parse(
            #"<model userDefinedModelVersionIdentifier=""><entity name="A"><attribute name="x" attributeType="String"/></entity></model>"#
        )
        #expect(empty.versionIdentifier == "")
    }

    @Test func locationsOfEntitiesAndProperties() throws {
        let model = try Self.parse(Self.fullModel)
        let file = "Music.xcdatamodel/contents"
        #expect(model.locations["Track"] == SourceLocation(file: file, line: Self.line(of: #"<entity name="Track""#, in: Self.fullModel), column: 5))
        #expect(
            model.locations["Track.rating"]
                == SourceLocation(file: file, line: Self.line(of: #"name="rating""#, in: Self.fullModel), column: 9))
        #expect(model.locations["Album.tracks"]?.line == Self.line(of: #"name="tracks" optional="YES" toMany="YES" ordered"#, in: Self.fullModel))
        #expect(model.locations["Track.similar"] == nil, "fetched properties are not model properties")
    }

    @Test func locationIsTheStartOfAMultiLineTag() throws {
        // libxml2 reports a start tag where it ends; the reader points at its '<'.
        let xml = """
            <model>
                <entity name="Ä">
                    <attribute name="ü" optional="YES"
                               attributeType="String"
                               defaultValueString="é"/><attribute name="b" attributeType="String"/>
                </entity>
            </model>
            """
        let model = try Self.parse(xml)
        #expect(model.locations["Ä.ü"]?.line == 3)
        #expect(model.locations["Ä.ü"]?.column == 9)
        #expect(model.locations["Ä.b"]?.line == 5)
        let line5 = xml.split(separator: "\n")[4]
        let column = try #require(line5.range(of: #"<attribute name="b""#)).lowerBound
        #expect(
            model.locations["Ä.b"]?.column == line5.distance(from: line5.startIndex, to: column) + 1,
            "columns count characters, not bytes")
    }

    // MARK: - Problems, with positions

    @Test func unknownAttributeTypeIsReportedWithLocation() throws {
        let xml = """
            <model>
                <entity name="A">
                    <attribute name="ok" attributeType="String"/>
                    <attribute name="count" attributeType="Integer16"/>
                    <attribute name="blob" attributeType="Picture"/>
                </entity>
            </model>
            """
        let problems = Self.problems(xml)
        #expect(problems.count == 2, "no echo from validation about the Undefined stand-in: \(problems)")
        let first = try #require(problems.first)
        #expect(first.kind == .unknownType)
        #expect(first.entity == "A" && first.property == "count")
        #expect(first.location == SourceLocation(file: "Music.xcdatamodel/contents", line: 4, column: 9))
        #expect(first.hint == "did you mean 'Integer 16'?")
        #expect(problems.last?.kind == .unknownType && problems.last?.location?.line == 5)
        #expect(problems.last?.hint?.contains("Integer 64") == true)
    }

    @Test func readerAndValidationProblemsComeTogether() throws {
        let xml = """
            <model>
                <entity name="A">
                    <attribute name="x" attributeType="Strnig"/>
                    <attribute name="y" optional="yes" attributeType="String"/>
                    <relationship name="r" deletionRule="Nullify" destinationEntity="Nowhere"/>
                </entity>
            </model>
            """
        let problems = Self.problems(xml)
        #expect(problems.map(\.kind) == [.unknownType, .invalidValue, .danglingDestination])
        #expect(problems.map { $0.location?.line } == [3, 4, 5])
    }

    @Test func danglingDestinationPointsAtTheRelationshipLine() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Track" representedClassName="Track">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="album" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Albm"/>
                </entity>
                <entity name="Album" representedClassName="Album">
                    <attribute name="name" attributeType="String"/>
                </entity>
            </model>
            """
        let problems = Self.problems(xml)
        #expect(problems.count == 1)
        let problem = try #require(problems.first)
        #expect(problem.kind == .danglingDestination)
        #expect(problem.entity == "Track" && problem.property == "album")
        #expect(problem.location?.file == "Music.xcdatamodel/contents")
        #expect(problem.location?.line == 5)
        #expect(problem.location?.column == 9)
        #expect(problem.description.hasPrefix("Music.xcdatamodel/contents:5:9: error:"))
    }

    @Test func mismatchedTagIsASyntaxErrorAtItsLine() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <model>
                <entity name="A">
                    <attribute name="x" attributeType="String"/>
                </entitty>
            </model>
            """
        let problems = Self.problems(xml)
        #expect(problems.count == 1)
        let problem = try #require(problems.first)
        #expect(problem.kind == .syntax)
        #expect(problem.location?.file == "Music.xcdatamodel/contents")
        #expect(problem.location?.line == 5)
        #expect(problem.message.contains("<entity> (opened at line 3)"), "\(problem.message)")
    }

    @Test func truncatedFileIsASyntaxErrorAtTheLastLine() throws {
        let complete = Self.fullModel
        // Cut inside a tag on the line of the relationship "artists".
        let cutLine = try #require(Self.line(of: #"name="artists""#, in: complete))
        let lines = complete.split(separator: "\n", omittingEmptySubsequences: false)
        let truncated = lines[0..<(cutLine - 1)].joined(separator: "\n") + "\n" + lines[cutLine - 1].prefix(60)
        let problems = Self.problems(truncated)
        #expect(problems.count == 1)
        #expect(problems.first?.kind == .syntax)
        #expect(problems.first?.location?.line == cutLine)

        // Cut after a complete element: the open <entity> and <model> are never closed.
        let afterElement = lines[0..<cutLine].joined(separator: "\n")
        let second = Self.problems(afterElement)
        #expect(second.first?.kind == .syntax)
        #expect(second.first?.location?.line == cutLine)
        #expect(second.first?.message.contains("the file ends before <entity>") == true, "\(second)")
    }

    @Test func otherMalformedDocuments() throws {
        let trailing = Self.problems("<model>\n</model>\ngarbage")
        #expect(trailing.first?.kind == .syntax && trailing.first?.location?.line == 3)

        let ampersand = Self.problems("<model>\n  <entity name=\"A & B\"/>\n</model>")
        #expect(ampersand.first?.kind == .syntax && ampersand.first?.location?.line == 2)

        for empty in ["", "  \n\n"] {
            let problems = Self.problems(empty)
            #expect(problems.map(\.kind) == [.syntax], "empty document: \(problems)")
        }

        let plist = Self.problems(#"<?xml version="1.0"?><plist version="1.0"><dict/></plist>"#)
        #expect(plist.map(\.kind) == [.syntax])
        #expect(plist.first?.message.contains("<model>") == true)

        let conflict = Self.problems("<model>\n<<<<<<< HEAD\n<entity name=\"A\"/>\n=======\n>>>>>>> main\n</model>")
        #expect(conflict.first?.kind == .syntax)
        #expect(conflict.first?.hint?.contains("merge conflict") == true)
    }

    @Test func invalidValuesAreReported() throws {
        let xml = """
            <model>
                <entity name="A">
                    <relationship name="bs" toMany="YES" minCount="-1" maxCount="many" deletionRule="Explode" destinationEntity="B" inverseName="a"/>
                    <fetchIndex name="i">
                        <fetchIndexElement property="bs" order="sideways"/>
                    </fetchIndex>
                </entity>
                <entity name="B">
                    <relationship name="a" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="A" inverseName="bs"/>
                </entity>
            </model>
            """
        let problems = Self.problems(xml)
        #expect(problems.map(\.kind) == [.invalidValue, .invalidCount, .invalidCount, .invalidValue])
        #expect(problems.map { $0.location?.line } == [3, 3, 3, 5])
    }

    // MARK: - Model folders

    @Test func readsAModelFolder() throws {
        let dir = try TemporaryFolder()
        let folder = try dir.model("Advanced.Evolution.V2", xml: Self.fullModel)
        let model = try XcodeModelReader.read(xcdatamodel: folder)
        #expect(model.name == "Advanced.Evolution.V2", "only the .xcdatamodel extension is removed")
        #expect(model.locations["Track"]?.file == folder.appendingPathComponent("contents").path)
    }

    @Test func missingContentsIsUnreadable() throws {
        let dir = try TemporaryFolder()
        let folder = dir.url.appendingPathComponent("Empty.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            _ = try XcodeModelReader.read(xcdatamodel: folder)
            Issue.record("expected .unreadable")
        } catch {
            #expect(error.problems.map(\.kind) == [.unreadable])
            #expect(error.problems.first?.hint?.contains("contents") == true)
        }
        do {
            _ = try XcodeModelReader.read(xcdatamodel: dir.url.appendingPathComponent("Nope.xcdatamodel"))
            Issue.record("expected .unreadable")
        } catch {
            #expect(error.problems.map(\.kind) == [.unreadable])
            #expect(error.problems.first?.hint != nil)
        }
    }

    // MARK: - Bundles

    static func minimalModel(_ entity: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model userDefinedModelVersionIdentifier="">
            <entity name="\(entity)">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """
    }

    static let currentVersionPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>_XCCurrentVersionName</key>
        \t<string>%@</string>
        </dict>
        </plist>
        """

    @Test func bundleOrdersVersionsNaturallyAndPicksTheCurrentOne() throws {
        let dir = try TemporaryFolder()
        let bundle = try dir.bundle("M")
        // Created out of order; directory listing order must not matter.
        for (name, entity) in [("M 10", "Ten"), ("M", "One"), ("M 2", "Two")] {
            try dir.model(name, xml: Self.minimalModel(entity), in: bundle)
        }
        try String(format: Self.currentVersionPlist, "M 2.xcdatamodel")
            .write(to: bundle.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
        // Not versions: a stray file and a hidden folder.
        try "x".write(to: bundle.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)

        let read = try ModelBundle.read(xcdatamodeld: bundle)
        #expect(read.name == "M")
        #expect(read.path == bundle.path)
        #expect(read.versions.map(\.name) == ["M", "M 2", "M 10"])
        #expect(read.versions.map { $0.entities.first?.name } == ["One", "Two", "Ten"])
        #expect(read.currentVersionName == "M 2")
        #expect(read.currentVersion?.name == "M 2")
        #expect(read.version(named: "M 10")?.entities.first?.name == "Ten")
        #expect(read.version(named: "M 3") == nil)
    }

    /// A bundle's versions share the storage of entities they declare unchanged (a plan keeps every
    /// version in memory), and nothing else: each version reads exactly as it does alone, and points
    /// at its own file.
    @Test func unchangedEntitiesShareStorageAcrossVersions() throws {
        let dir = try TemporaryFolder()
        let bundle = try dir.bundle("M")
        func xml(_ extra: String) -> String {
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model userDefinedModelVersionIdentifier="">
                <entity name="Kept"><attribute name="name" optional="YES" attributeType="String"/></entity>
                <entity name="Grows"><attribute name="title" optional="YES" attributeType="String"/>\(extra)</entity>
            </model>
            """
        }
        let grown = #"<attribute name="note" optional="YES" attributeType="String"/>"#
        let folders = [
            try dir.model("M", xml: xml(""), in: bundle), try dir.model("M 2", xml: xml(grown), in: bundle),
            try dir.model("M 3", xml: xml(grown), in: bundle),
        ]
        let read = try ModelBundle.read(xcdatamodeld: bundle)
        func storage(_ version: Int, _ entity: String) -> UnsafeRawPointer? {
            read.versions[version].entities.first { $0.name == entity }!.attributes.withUnsafeBufferPointer {
                UnsafeRawPointer($0.baseAddress)
            }
        }
        #expect(storage(0, "Kept") == storage(1, "Kept") && storage(1, "Kept") == storage(2, "Kept"))
        #expect(storage(1, "Grows") == storage(2, "Grows"))
        #expect(storage(0, "Grows") != storage(1, "Grows"))
        for (version, folder) in zip(read.versions, folders) {
            let alone = try XcodeModelReader.read(xcdatamodel: folder)
            #expect(version.entities == alone.entities)
            #expect(version.versionHashes == alone.versionHashes)
            #expect(version.location(ofEntity: "Kept")?.file == folder.appendingPathComponent("contents").standardizedFileURL.path)
        }
    }

    @Test func bundleWithoutCurrentVersionFallsBackToTheLast() throws {
        let dir = try TemporaryFolder()
        let bundle = try dir.bundle("Shop")
        for name in ["Shop 2", "Shop 10", "Shop"] {
            try dir.model(name, xml: Self.minimalModel("Item"), in: bundle)
        }
        let read = try ModelBundle.read(xcdatamodeld: bundle)
        #expect(read.currentVersionName == nil)
        #expect(read.currentVersion?.name == "Shop 10")
    }

    @Test func bundleCollectsProblemsOfAllVersions() throws {
        let dir = try TemporaryFolder()
        let bundle = try dir.bundle("B")
        try dir.model("B", xml: Self.minimalModel("Fine"), in: bundle)
        try dir.model("B 2", xml: "<model>\n<entity name=\"A\">\n</model>", in: bundle)
        try dir.model(
            "B 3",
            xml: "<model>\n<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"Text\"/>\n</entity>\n</model>",
            in: bundle)
        try String(format: Self.currentVersionPlist, "B 4.xcdatamodel")
            .write(to: bundle.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
        do {
            _ = try ModelBundle.read(xcdatamodeld: bundle)
            Issue.record("expected problems")
        } catch {
            #expect(error.problems.map(\.kind) == [.syntax, .unknownType, .invalidValue])
            #expect(error.problems[0].location?.file.hasSuffix("B 2.xcdatamodel/contents") == true)
            #expect(error.problems[1].location?.file.hasSuffix("B 3.xcdatamodel/contents") == true)
            #expect(error.problems[1].location?.line == 3)
            #expect(error.problems[2].value == "B 4")
            #expect(error.problems[2].location?.file.hasSuffix("/.xccurrentversion") == true)
        }
    }

    @Test func emptyOrMissingBundleIsUnreadable() throws {
        let dir = try TemporaryFolder()
        let bundle = try dir.bundle("Nothing")
        #expect(throws: ModelError.self) { try ModelBundle.read(xcdatamodeld: bundle) }
        do {
            _ = try ModelBundle.read(xcdatamodeld: dir.url.appendingPathComponent("Missing.xcdatamodeld"))
            Issue.record("expected .unreadable")
        } catch {
            #expect(error.problems.map(\.kind) == [.unreadable])
        }
    }

    @Test func naturalOrder() {
        let names = ["Foo 10", "foo 3", "Foo", "Foo 2", "Foo v1", "Foo 02", "Foo 1", "Bar 99", "Foo 100"]
        #expect(
            names.sorted(by: NaturalOrder.precedes) == [
                "Bar 99", "Foo", "Foo 1", "Foo 02", "Foo 2", "foo 3", "Foo 10", "Foo 100", "Foo v1",
            ])
        #expect(NaturalOrder.precedes("Model", "Model 2"))
        #expect(!NaturalOrder.precedes("Model 2", "Model"))
        #expect(NaturalOrder.precedes("V9", "V10"))
        #expect(NaturalOrder.precedes("x99999999999999999999999", "x100000000000000000000000"), "no overflow")
    }

    // MARK: - The shared corpus of real models

    /// `../shared/corpus` beside the package root. CI always has it, so its absence is a failure.
    static var corpus: URL {
        let packageRoot = URL(fileURLWithPath: #filePath)  // <root>/Tests/InstarModelTests/<this file>
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent("../shared/corpus", isDirectory: true).standardizedFileURL
    }

    static func corpusFiles(named suffix: String, directories: Bool) throws -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: corpus.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw CorpusMissing(path: corpus.path)
        }
        let enumerator = FileManager.default.enumerator(
            at: corpus, includingPropertiesForKeys: [.isDirectoryKey], options: [])
        var found: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            let folder = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            if url.lastPathComponent.hasSuffix(suffix) && folder == directories { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    struct CorpusMissing: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "the shared corpus is missing at \(path); it must sit beside the package (../shared/corpus)"
        }
    }

    @Test(.needsCorpus) func everyCorpusContentsFileParses() throws {
        let files = try Self.corpusFiles(named: "contents", directories: false)
            .filter { $0.deletingLastPathComponent().pathExtension == "xcdatamodel" }
        #expect(files.count >= 100, "expected the corpus's 110 model versions, found \(files.count)")
        var parsed = 0
        for file in files {
            do {
                let model = try XcodeModelReader.read(xcdatamodel: file.deletingLastPathComponent())
                #expect(!model.entities.isEmpty, "\(file.path) has no entities")
                parsed += 1
            } catch {
                Issue.record("\(file.path):\n\(error)")
            }
        }
        #expect(parsed == files.count)
        print("XcodeModelReader: parsed \(parsed) of \(files.count) corpus contents files")
    }

    @Test(.needsCorpus) func everyCorpusBundleReads() throws {
        let bundles = try Self.corpusFiles(named: ".xcdatamodeld", directories: true)
        #expect(bundles.count >= 40)
        var versions = 0
        for url in bundles {
            do {
                let bundle = try ModelBundle.read(xcdatamodeld: url)
                versions += bundle.versions.count
                // Two corpus bundles have an .xccurrentversion with an empty dictionary: no version chosen.
                #expect(bundle.currentVersion != nil, "\(url.path): no current version")
                if let name = bundle.currentVersionName {
                    #expect(bundle.version(named: name) != nil, "\(url.path)")
                }
            } catch {
                Issue.record("\(url.path):\n\(error)")
            }
        }
        print("XcodeModelReader: read \(bundles.count) corpus bundles with \(versions) versions")
    }

    /// Hashes from the XML must equal the hashes Xcode compiled into `VersionInfo.plist`. This pins
    /// down the XML reading rules that feed hashes (optional, counts, `preserveAfterDeletion`, …).
    @Test(.needsCorpus) func corpusHashesMatchXcodeCompiledVersionInfo() throws {
        let pairs = [
            ("alemar11__CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld",
             "alemar11__CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel.momd/VersionInfo.plist"),
            ("alemar11__CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld",
             "alemar11__CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3.momd/VersionInfo.plist"),
        ]
        _ = try Self.corpusFiles(named: ".xcdatamodeld", directories: true)  // fails clearly if absent
        var compared = 0
        for (bundlePath, plistPath) in pairs {
            let bundle = try ModelBundle.read(xcdatamodeld: Self.corpus.appendingPathComponent(bundlePath))
            let data = try Data(contentsOf: Self.corpus.appendingPathComponent(plistPath))
            let plist = try #require(
                try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
            let versions = try #require(plist["NSManagedObjectModel_VersionHashes"] as? [String: Any])
            for (versionName, value) in versions {
                let expected = try #require(value as? [String: Data])
                let model = try #require(bundle.version(named: versionName), "\(versionName) in \(bundlePath)")
                let computed = VersionHashes(model: model).entityHashes
                #expect(computed == expected, "\(bundlePath) version \(versionName)")
                compared += expected.count
            }
        }
        #expect(compared > 0)
    }

    /// A temporary folder removed when the test ends.
    final class TemporaryFolder {
        let url: URL

        init() throws {
            url = FileManager.default.temporaryDirectory
                .appendingPathComponent("instar-xcode-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: url) }

        func bundle(_ name: String) throws -> URL {
            let bundle = url.appendingPathComponent("\(name).xcdatamodeld", isDirectory: true)
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            return bundle
        }

        @discardableResult
        func model(_ name: String, xml: String, in parent: URL? = nil) throws -> URL {
            let folder = (parent ?? url).appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try xml.write(to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
            return folder
        }
    }
}
