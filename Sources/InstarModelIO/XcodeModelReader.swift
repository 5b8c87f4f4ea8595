import Foundation
@_spi(Layouts) import InstarModel

/// Reads one version of an Xcode data model: an `.xcdatamodel` folder and its `contents` XML.
///
/// The reader turns the XML into inputs exactly as Apple's model compiler (momc) does, because those
/// inputs feed Core Data's version hashes: a model read here must hash identically to the `.mom` that
/// Xcode compiles from the same file, or Instar would disagree with Core Data about which version a store
/// has. The rules that matter (`shared/coredata/FORMAT.md` §2.9 and §3.2):
/// * an absent `optional` means **not** optional;
/// * an absent `minCount` means 0, even for a non-optional relationship;
/// * a to-many's `maxCount` is the attribute or 0 (unbounded); a to-one's is always 1;
/// * `elementID` (older files: `renamingIdentifier`) is the renaming identifier;
/// * `versionHashModifier` is taken verbatim.
///
/// Everything that does not affect storage, identity or migration is ignored: class names, code
/// generation, fetched properties, fetch request templates, configurations, layout `elements` and
/// entity-level `userInfo`.
///
/// Not represented, because ``FetchIndex`` and ``Attribute`` have no place for them yet: a fetch index's
/// `partialIndexPredicate` and its elements' `type` (`Binary`/`RTree`) — such an index is read as a plain
/// index over its properties — and the derivation of `derived="YES"` attributes, which are read as
/// plain attributes. Expression elements of a fetch index (no `property=`) are reported, not guessed.
///
/// Problems are collected, not thrown one at a time: the reader's own (unknown attribute type, a
/// missing name, a malformed number) are reported together with ``Model``'s validation problems, each
/// at `file:line:column` of the element concerned.
package enum XcodeModelReader {
    /// Reads `<folder>/contents`. The model's name is the folder name without `.xcdatamodel`.
    package static func read(xcdatamodel url: URL, sharing interner: EntityInterner? = nil) throws(ModelError) -> Model {
        let folder = url.standardizedFileURL
        let contents = folder.appendingPathComponent("contents")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
            throw ModelError(
                ModelProblem(
                    .unreadable, "no such model folder", location: SourceLocation(file: folder.path),
                    hint: "pass the path of an .xcdatamodel folder"))
        }
        guard isDirectory.boolValue else {
            throw ModelError(
                ModelProblem(
                    .unreadable, "not a folder", location: SourceLocation(file: folder.path),
                    hint: "an Xcode model version is a folder named '<Name>.xcdatamodel' holding a 'contents' file"))
        }
        if folder.pathExtension == "xcdatamodeld" {
            throw ModelError(
                ModelProblem(
                    .unreadable, "this is a versioned model bundle, not a single model version",
                    location: SourceLocation(file: folder.path),
                    hint:
                        "read it with ModelBundle.read(xcdatamodeld:), or pass one of the .xcdatamodel folders inside"
                ))
        }
        guard FileManager.default.fileExists(atPath: contents.path) else {
            let hasLegacyElements = FileManager.default.fileExists(
                atPath: folder.appendingPathComponent("elements").path)
            throw ModelError(
                ModelProblem(
                    .unreadable, "the model folder has no 'contents' file", location: SourceLocation(file: folder.path),
                    hint: hasLegacyElements
                        ? "this model is in the binary 'elements' format of old Xcode versions; "
                            + "open and save it in a current Xcode to convert it to XML"
                        : "an .xcdatamodel folder must contain the 'contents' XML that Xcode writes"))
        }
        let data: Data
        do {
            data = try RegularFile.read(contents.path)
        } catch {
            throw ModelError(
                ModelProblem(
                    .unreadable, "cannot read the file: \(error.localizedDescription)",
                    location: SourceLocation(file: contents.path), hint: "check that the file exists and is readable"))
        }
        return try parse(data: data, name: modelName(ofFolder: folder), file: contents.path, sharing: interner)
    }

    /// Parses the text of a `contents` file. `name` becomes the model's name; `file` is used in locations.
    /// - Parameter interner: shares entities equal to ones read before (``EntityInterner``): a bundle
    ///   passes one for all its versions.
    package static func parse(data: Data, name: String, file: String, sharing interner: EntityInterner? = nil)
        throws(ModelError) -> Model
    {
        let root = try XMLSourceTree.parse(data: data, file: file)
        guard root.name == "model" else {
            throw ModelError(
                ModelProblem(
                    .syntax, "expected a <model> root element, found <\(root.name)>", location: root.location,
                    hint: "this is not the 'contents' file of an Xcode data model"))
        }
        var interpreter = Interpreter()
        interpreter.compositeDefinitions(root.children(named: "compositeAttribute") + root.children(named: "composite"))
        var entities = root.children(named: "entity").compactMap { interpreter.entity(from: $0) }
        if let interner { entities = interner.intern(entities) }
        let model: Model
        do {
            // Xcode compiles what Instar's own files may not contain (defaultValueString="YES" on an
            // Integer 32 in apptentive's models; inverses that do not name each other in a real app's
            // 229-version history), and Core Data runs it: those are warnings, not refusals.
            model = try Model(
                name: name, versionIdentifier: root["userDefinedModelVersionIdentifier"], entities: entities,
                locations: interpreter.locations, source: file, validation: .xcode)
        } catch {
            throw ModelError(interpreter.problems + interpreter.withoutEchoes(error.problems))
        }
        if !interpreter.problems.isEmpty { throw ModelError(interpreter.problems) }
        return model
    }

    /// The version name of an `.xcdatamodel` folder: its name without the extension. Only that exact
    /// extension is removed, because version names often contain dots (`Advanced.EvolutionDemo.V2`).
    static func modelName(ofFolder folder: URL) -> String {
        modelName(ofFolderNamed: folder.lastPathComponent)
    }

    static func modelName(ofFolderNamed folderName: String) -> String {
        let suffix = ".xcdatamodel"
        return folderName.hasSuffix(suffix) && folderName.count > suffix.count
            ? String(folderName.dropLast(suffix.count)) : folderName
    }
}

/// Turns `<entity>`, `<attribute>` and `<relationship>` elements into model values, collecting problems.
private struct Interpreter {
    var problems: [ModelProblem] = []
    var locations: [String: SourceLocation] = [:]
    /// `Entity.property` keys the reader has already reported; validation problems about the same
    /// property would only repeat the cause (an unknown type read as Undefined, a missing destination).
    private var reported: Set<String> = []
    /// The model's composite types (Xcode 15, iOS 17): model-level elements named once and used by
    /// attributes of type Composite, by name.
    private var composites: [String: XMLSourceElement] = [:]
    /// Composites being resolved, to refuse one that contains itself.
    private var resolving: Set<String> = []

    mutating func compositeDefinitions(_ elements: [XMLSourceElement]) {
        for element in elements {
            guard let name = element["name"], !name.isEmpty else {
                report(.missingKey, "a <\(element.name)> has no name", at: element, hint: "add name=\"…\" to the composite")
                continue
            }
            if composites[name] != nil {
                report(.invalidValue, "the composite '\(name)' is defined twice", at: element, hint: "remove or rename one of them")
            }
            composites[name] = element
        }
    }

    /// The elements of a Composite attribute: the attributes of the composite it names (`composite=`),
    /// or of the model's only composite when it names none.
    private mutating func compositeElements(of element: XMLSourceElement, entity: String, property: String) -> [Attribute] {
        let named = element["composite"] ?? element["compositeName"]
        guard let name = named ?? (composites.count == 1 ? composites.keys.first : nil) else {
            report(
                .missingKey, "the Composite attribute names no composite (\(composites.count) are defined)", at: element,
                entity: entity, property: property, hint: "choose the composite type in Xcode's data model inspector")
            return []
        }
        guard let definition = composites[name] else {
            report(
                .invalidValue, "the composite '\(name)' is not defined in this model", at: element, entity: entity,
                property: property,
                hint: composites.isEmpty ? "define it in Xcode's Composite Attributes list" : "defined: " + composites.keys.sorted().joined(separator: ", "))
            return []
        }
        guard resolving.insert(name).inserted else {
            report(.invalidValue, "the composite '\(name)' contains itself", at: element, entity: entity, property: property)
            return []
        }
        defer { resolving.remove(name) }
        return definition.children(named: "attribute").compactMap { attribute(from: $0, entity: entity, within: property) }
    }

    mutating func entity(from element: XMLSourceElement) -> Entity? {
        guard let name = element["name"], !name.isEmpty else {
            report(.missingKey, "an <entity> has no name", at: element, hint: "add name=\"…\" to the entity")
            return nil
        }
        if locations[name] == nil { locations[name] = element.location }
        var entity = Entity(
            name: name,
            parent: element["parentEntity"],
            isAbstract: flag("isAbstract", of: element, entity: name),
            renamingIdentifier: element["elementID"] ?? element["renamingIdentifier"],
            versionHashModifier: element["versionHashModifier"])

        // Exactly sized: a bundle keeps every version's entities in memory, and grown arrays carry slack.
        entity.attributes.reserveCapacity(element.children.lazy.filter { $0.name == "attribute" }.count)
        entity.relationships.reserveCapacity(element.children.lazy.filter { $0.name == "relationship" }.count)
        for child in element.children {
            switch child.name {
            case "attribute":
                if let attribute = attribute(from: child, entity: name) { entity.attributes.append(attribute) }
            case "relationship":
                if let relationship = relationship(from: child, entity: name) {
                    entity.relationships.append(relationship)
                }
            case "uniquenessConstraints":
                for constraint in child.children(named: "uniquenessConstraint") {
                    entity.uniquenessConstraints.append(
                        constraint.children(named: "constraint").compactMap { $0["value"] })
                }
            case "compoundIndexes":
                // Pre-Xcode 9 indexes have no name; Core Data names the SQL index after the columns.
                for compound in child.children(named: "compoundIndex") {
                    let properties = compound.children(named: "index").compactMap { $0["value"] }
                    entity.indexes.append(
                        FetchIndex(
                            name: properties.joined(separator: "_"),
                            elements: properties.map { FetchIndex.Element(property: $0) }))
                }
            case "fetchIndex":
                if let index = fetchIndex(from: child, entity: name) { entity.indexes.append(index) }
            default:
                // fetchedProperty and entity-level userInfo (no storage effect), and elements not known here.
                break
            }
        }
        return entity
    }

    /// `within`: the composite attribute whose element this is (locations are kept for properties only).
    private mutating func attribute(from element: XMLSourceElement, entity: String, within composite: String? = nil) -> Attribute? {
        guard let name = element["name"], !name.isEmpty else {
            report(.missingKey, "an <attribute> has no name", at: element, entity: entity, property: composite)
            return nil
        }
        let key = "\(entity).\(composite.map { "\($0)." } ?? "")\(name)"
        if locations[key] == nil { locations[key] = element.location }

        var type = AttributeType.undefined
        if let xcodeName = element["attributeType"] {
            if let known = AttributeType(xcodeName: xcodeName) {
                type = known
            } else {
                report(
                    .unknownType, "unknown attribute type '\(xcodeName)'", at: element, entity: entity,
                    property: name, hint: Self.typeHint(for: xcodeName))
            }
        }
        var userInfo: [String: String] = [:]
        for info in element.children(named: "userInfo") {
            for entry in info.children(named: "entry") {
                guard let entryKey = entry["key"] else { continue }
                userInfo[entryKey] = entry["value"] ?? ""
            }
        }
        func flags(_ xml: String) -> Bool { flag(xml, of: element, entity: entity, property: name) }
        var attribute = Attribute(
            name: name,
            type: type,
            isOptional: flags("optional"),
            isTransient: flags("transient"),
            defaultValue: element["defaultValueString"] ?? element["defaultDateTimeInterval"],
            renamingIdentifier: element["elementID"] ?? element["renamingIdentifier"],
            versionHashModifier: element["versionHashModifier"],
            allowsExternalBinaryDataStorage: flags("allowsExternalBinaryDataStorage"),
            // Xcode writes `preserveAfterDeletion` (seen in the corpus, alemar11/CoreDataPlus); the longer
            // spelling mirrors the API name and is accepted for hand-written files.
            preservesValueInHistoryOnDeletion: flags("preserveAfterDeletion")
                || flags("preservesValueInHistoryOnDeletion"),
            isIndexed: flags("indexed"),
            userInfo: userInfo)
        if type == .composite { attribute.elements = compositeElements(of: element, entity: entity, property: name) }
        return attribute
    }

    private mutating func relationship(from element: XMLSourceElement, entity: String) -> Relationship? {
        guard let name = element["name"], !name.isEmpty else {
            report(.missingKey, "a <relationship> has no name", at: element, entity: entity)
            return nil
        }
        let key = "\(entity).\(name)"
        if locations[key] == nil { locations[key] = element.location }

        let destination = element["destinationEntity"] ?? ""
        if destination.isEmpty {
            report(
                .missingKey, "relationship has no destinationEntity", at: element, entity: entity, property: name,
                hint: "choose a destination entity in Xcode's data model inspector")
        }
        var deleteRule = DeleteRule.nullify
        if let rule = element["deletionRule"] {
            if let known = DeleteRule(xcodeName: rule) {
                deleteRule = known
            } else {
                report(
                    .invalidValue, "unknown deletion rule '\(rule)'", at: element, entity: entity, property: name,
                    hint: "use one of: " + DeleteRule.allCases.map(\.xcodeName).joined(separator: ", "))
            }
        }
        func flags(_ xml: String) -> Bool { flag(xml, of: element, entity: entity, property: name) }
        let isToMany = flags("toMany")
        let minCount = count("minCount", of: element, entity: entity, property: name) ?? 0
        // momc: a to-one is always maxCount 1 whatever the file says; a to-many without one is unbounded (0).
        let maxCount = isToMany ? count("maxCount", of: element, entity: entity, property: name) ?? 0 : 1
        return Relationship(
            name: name,
            destination: destination,
            inverse: element["inverseName"],
            isToMany: isToMany,
            isOrdered: flags("ordered"),
            minCount: minCount,
            maxCount: maxCount,
            deleteRule: deleteRule,
            isOptional: flags("optional"),
            isTransient: flags("transient"),
            renamingIdentifier: element["elementID"] ?? element["renamingIdentifier"],
            versionHashModifier: element["versionHashModifier"])
    }

    private mutating func fetchIndex(from element: XMLSourceElement, entity: String) -> FetchIndex? {
        let name = element["name"] ?? ""
        if name.isEmpty {
            report(.missingKey, "a <fetchIndex> has no name", at: element, entity: entity)
            return nil
        }
        var elements: [FetchIndex.Element] = []
        for item in element.children(named: "fetchIndexElement") {
            guard let property = item["property"] else {
                report(
                    .invalidValue, "fetch index '\(name)' has an element without a property", at: item,
                    entity: entity,
                    hint: "Instar supports fetch index elements over properties, not expression elements")
                continue
            }
            var ascending = true
            switch item["order"] {
            case nil, "ascending": ascending = true
            case "descending": ascending = false
            case let other?:
                report(
                    .invalidValue, "fetch index '\(name)': unknown order '\(other)'", at: item, entity: entity,
                    hint: "use order=\"ascending\" or order=\"descending\"")
            }
            elements.append(FetchIndex.Element(property: property, ascending: ascending))
        }
        return FetchIndex(name: name, elements: elements)
    }

    /// A `YES`/`NO` attribute; absent means NO. Xcode writes nothing else, so other values are mistakes.
    private mutating func flag(
        _ xml: String, of element: XMLSourceElement, entity: String, property: String? = nil
    ) -> Bool {
        switch element[xml] {
        case nil, "NO": return false
        case "YES": return true
        case let other?:
            report(
                .invalidValue, "\(xml)=\"\(other)\" is neither YES nor NO", at: element, entity: entity,
                property: property, hint: "Xcode writes \(xml)=\"YES\", or leaves the attribute out for NO")
            return false
        }
    }

    private mutating func count(_ xml: String, of element: XMLSourceElement, entity: String, property: String)
        -> Int?
    {
        guard let text = element[xml] else { return nil }
        guard let value = Int(text), value >= 0 else {
            report(
                .invalidCount, "\(xml)=\"\(text)\" is not a whole number of 0 or more", at: element, entity: entity,
                property: property)
            return nil
        }
        return value
    }

    private mutating func report(
        _ kind: ModelProblem.Kind, _ message: String, at element: XMLSourceElement, entity: String? = nil,
        property: String? = nil, hint: String? = nil
    ) {
        problems.append(
            ModelProblem(kind, message, location: element.location, entity: entity, property: property, hint: hint))
        if let entity, let property { reported.insert("\(entity).\(property)") }
    }

    /// Validation problems minus those about a property the reader already reported.
    func withoutEchoes(_ validation: [ModelProblem]) -> [ModelProblem] {
        validation.filter { problem in
            guard let entity = problem.entity, let property = problem.property else { return true }
            return !reported.contains("\(entity).\(property)")
        }
    }

    /// Suggests the Xcode spelling when only spacing or case differ (`Integer16`, `string`), else lists all.
    static func typeHint(for text: String) -> String {
        let squash = { (s: String) in s.lowercased().filter { !$0.isWhitespace } }
        if let match = AttributeType.allCases.first(where: { squash($0.xcodeName) == squash(text) }) {
            return "did you mean '\(match.xcodeName)'?"
        }
        return "Xcode's attribute types are: " + AttributeType.allCases.map(\.xcodeName).joined(separator: ", ")
    }
}
