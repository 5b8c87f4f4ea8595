import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO

/// Reads Xcode's source form of a mapping model: `Foo.xcmappingmodel/xcmapping.xml`.
///
/// The file is a Core Data XML store of Xcode's editing objects (`shared/coredata/FORMAT.md` §3.3):
/// one `XDDEVMAPPINGMODEL` (the two model paths), `XDDEVENTITYMAPPING`s (source and destination entity
/// names, `mappingnumber`, filter predicate text, policy class, archived user info) and
/// `XDDEVATTRIBUTEMAPPING`/`XDDEVRELATIONSHIPMAPPING`s (name, archived value expression). Property
/// mappings that no entity mapping lists (Xcode leaves some behind after edits) are ignored, as `mapc`
/// ignores them.
package enum XcodeMappingReader {
    /// Reads an `.xcmappingmodel` folder or the `xcmapping.xml` file inside it.
    package static func read(url: URL) throws(MappingError) -> MappingModel {
        var file = url.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            throw .unreadable(file: file.path, reason: "no such file or folder")
        }
        if isDirectory.boolValue { file = file.appendingPathComponent("xcmapping.xml") }
        let data: Data
        do {
            data = try RegularFile.read(file.path)
        } catch {
            throw .unreadable(file: file.path, reason: error.localizedDescription)
        }
        let folder = file.deletingLastPathComponent().lastPathComponent
        let name = folder.hasSuffix(".xcmappingmodel") ? String(folder.dropLast(".xcmappingmodel".count)) : folder
        return try read(data: data, file: file.path, name: name)
    }

    /// Reads `xcmapping.xml` text; `file` is used in error locations, `name` is the mapping model's name.
    package static func read(data: Data, file: String, name: String) throws(MappingError) -> MappingModel {
        let document = try CoreDataXMLDocument.read(data: data, file: file)
        let roots = document.order.compactMap { document.objects[$0] }.filter { $0.type == "XDDEVMAPPINGMODEL" }
        guard let root = roots.first else {
            throw .notAMappingModel(location: SourceLocation(file: file, line: 1, column: 1),
                reason: "the file has no XDDEVMAPPINGMODEL object")
        }
        if roots.count > 1 {
            throw .notAMappingModel(location: roots[1].location, reason: "the file has more than one XDDEVMAPPINGMODEL object")
        }
        var mappings: [EntityMapping] = []
        for object in try document.targets(of: root, "entitymappings", type: "XDDEVENTITYMAPPING") {
            mappings.append(try entityMapping(object, in: document))
        }
        // Core Data's order; equal numbers (not seen in practice) keep the file's order.
        let ordered = mappings.enumerated().sorted {
            ($0.element.mappingNumber, $0.offset) < ($1.element.mappingNumber, $1.offset)
        }.map(\.element)
        return MappingModel(
            file: file, name: name,
            source: ModelReference(path: root.nonEmptyString("sourcemodelpath")),
            destination: ModelReference(path: root.nonEmptyString("destinationmodelpath")),
            entityMappings: ordered)
    }

    static func entityMapping(_ object: CoreDataXMLDocument.Object, in document: CoreDataXMLDocument)
        throws(MappingError) -> EntityMapping
    {
        let source = object.nonEmptyString("sourcename")
        let destination = object.nonEmptyString("destinationname")
        guard source != nil || destination != nil else {
            throw .invalidValue(location: object.location, entityMapping: object.nonEmptyString("name"), property: nil,
                field: "sourcename/destinationname", reason: "the entity mapping names neither a source nor a destination entity")
        }
        let name = object.nonEmptyString("name") ?? defaultName(source: source, destination: destination)
        let numberText = object.string("mappingnumber")?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let mappingNumber = numberText.map({ Int($0) }) ?? 0 else {
            throw .invalidValue(location: object.attributes["mappingnumber"]?.location ?? object.location,
                entityMapping: name, property: nil, field: "mappingnumber", reason: "'\(numberText ?? "")' is not a number")
        }
        var kind = EntityMappingKind(name: object.string("mappingtypename") ?? "Undefined") ?? .undefined
        if kind == .undefined {
            if source == nil { kind = .add } else if destination == nil { kind = .remove }
        }
        var filter: MappingPredicate?
        let filterText = object.nonEmptyString("sourcefilterpredicatestring")
        if let filterText {
            do {
                filter = try ExpressionParser.parsePredicate(filterText)
            } catch {
                throw .expressionSyntax(location: object.attributes["sourcefilterpredicatestring"]!.location,
                    entityMapping: name, property: nil, field: "filter predicate", error: error)
            }
        }
        var mapping = EntityMapping(
            name: name, kind: kind, sourceEntity: source, destinationEntity: destination,
            sourceExpression: source.map { fetchExpression(entity: $0, filterText: filterText) },
            filter: filter, filterText: filterText,
            customPolicyClass: object.nonEmptyString("migrationpolicyclassname"),
            userInfo: try userInfo(object, mapping: name, property: nil),
            mappingNumber: mappingNumber, location: object.location)
        for property in try document.targets(of: object, "attributemappings", type: "XDDEVATTRIBUTEMAPPING") {
            mapping.attributeMappings.append(try propertyMapping(property, of: mapping, isRelationship: false))
        }
        for property in try document.targets(of: object, "relationshipmappings", type: "XDDEVRELATIONSHIPMAPPING") {
            mapping.relationshipMappings.append(try propertyMapping(property, of: mapping, isRelationship: true))
        }
        return mapping
    }

    /// Xcode's default entity-mapping name: `<Source>To<Destination>`; a mapping with one side only
    /// is named after that entity (the form for added entities is inferred, no sample names one).
    static func defaultName(source: String?, destination: String?) -> String {
        switch (source, destination) {
        case (let source?, let destination?): "\(source)To\(destination)"
        case (nil, let destination?): destination
        case (let source?, nil): source
        case (nil, nil): ""
        }
    }

    /// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", entity, filter),
    /// $manager.sourceContext, NO)`: the source expression `mapc` compiles for every mapping with a source.
    static func fetchExpression(entity: String, filterText: String?) -> MappingExpression {
        let request = MappingExpression.selector(
            target: .variable("manager"), selector: "fetchRequestForSourceEntityNamed:predicateString:",
            arguments: [.constant(.string(entity)), .constant(.string(filterText ?? "TRUEPREDICATE"))])
        return .fetch(request: request, context: .keyPath(base: .variable("manager"), path: ["sourceContext"]), countOnly: false)
    }

    static func propertyMapping(_ object: CoreDataXMLDocument.Object, of mapping: EntityMapping, isRelationship: Bool)
        throws(MappingError) -> PropertyMapping
    {
        guard let name = object.nonEmptyString("name") else {
            throw .invalidValue(location: object.location, entityMapping: mapping.name, property: nil, field: "name",
                reason: "a property mapping has no name")
        }
        var expression: MappingExpression?
        if let encoded = object.binary("valueexpressiondata") {
            let location = object.attributes["valueexpressiondata"]!.location
            guard let data = encoded else {
                throw .invalidValue(location: location, entityMapping: mapping.name, property: name,
                    field: "valueexpressiondata", reason: "the value is not base64")
            }
            do {
                expression = try ExpressionArchive.decode(data, file: location.file)
            } catch {
                throw .undecodableArchive(location: location, entityMapping: mapping.name, property: name,
                    field: "value expression", reason: error.reason.description)
            }
        }
        let origin: PropertyMapping.Origin =
            expression != nil ? .written : (mapping.sourceEntity == nil ? .none : .pendingGeneration)
        return PropertyMapping(
            name: name, valueExpression: expression, origin: origin,
            sourceKeyPath: object.nonEmptyString("sourcekeypath"), sourceMappingName: object.nonEmptyString("sourcemappingname"),
            userInfo: try userInfo(object, mapping: mapping.name, property: name), location: object.location)
    }

    static func userInfo(_ object: CoreDataXMLDocument.Object, mapping: String?, property: String?)
        throws(MappingError) -> [String: MappingValue]
    {
        guard let encoded = object.binary("userinfodata") else { return [:] }
        let location = object.attributes["userinfodata"]!.location
        func undecodable(_ reason: String) -> MappingError {
            .undecodableArchive(location: location, entityMapping: mapping, property: property, field: "user info", reason: reason)
        }
        guard let data = encoded else { throw undecodable("the value is not base64") }
        let value: MappingValue
        do {
            value = try ExpressionArchive.decodeValue(data, file: location.file)
        } catch {
            throw undecodable(error.reason.description)
        }
        guard case .dictionary(let entries) = value else { throw undecodable("the user info is not a dictionary") }
        return entries
    }
}
