import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO
import Yams

/// Reads Instar's own mapping files (`*.mapping.yaml`, `*.mapping.json`): a mapping model written by
/// hand, for those without Xcode (whose `xcmapping.xml` archives expressions as binary plists).
///
/// ```yaml
/// name: v3 to v4        # optional: the mapping model's name (hook names start with it); the file name by default
/// source: v3            # version names of the plan
/// destination: v4
/// entities:
///   - name: StudentToStudent          # optional: <Source>To<Destination>
///     source: Student
///     destination: Student
///     filter: "name != nil"           # optional NSPredicate text
///     policy: MyPolicy                # optional NSEntityMigrationPolicy subclass (a hook)
///     attributes:
///       clazzName: "$source.clazz.name"   # NSExpression text; ~ keeps the default
///     relationships:
///       friends: { keyPath: "$source.friends", mapping: StudentToStudent }   # or expression text
///   - source: Clazz                   # no destination: a remove mapping
/// ```
///
/// Unlisted destination attributes and relationships are left to Xcode's generation rule
/// (``MappingModel/resolved(source:destination:)``): `$source.<name>` for an attribute the source entity
/// has, the relationship through the entity mapping of its destination. Every problem carries
/// `file:line:column`; an expression that does not parse also says the column inside the expression.
package enum MappingFileReader {
    static let fileKeys = ["name", "source", "destination", "entities"]
    static let entityKeys = ["name", "source", "destination", "filter", "policy", "attributes", "relationships"]
    static let relationshipKeys = ["keyPath", "mapping"]

    /// Whether `url` names an Instar mapping file (rather than an `.xcmappingmodel`).
    package static func isMappingFile(_ url: URL) -> Bool {
        let name = url.lastPathComponent.lowercased()
        return [".mapping.yaml", ".mapping.yml", ".mapping.json"].contains { name.hasSuffix($0) }
    }

    /// The mapping model's name: the file name without `.mapping.yaml`/`.mapping.json`.
    static func modelName(of path: String) -> String {
        let last = URL(fileURLWithPath: path).lastPathComponent
        for suffix in [".mapping.yaml", ".mapping.yml", ".mapping.json"] where last.lowercased().hasSuffix(suffix) {
            return String(last.dropLast(suffix.count))
        }
        return URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    }

    package static func read(path: String) throws(MappingError) -> MappingFile {
        guard FileManager.default.fileExists(atPath: path) else { throw .unreadable(file: path, reason: "no such file") }
        let source: YAMLSource
        do {
            source = try YAMLSource.load(path: path)
        } catch {
            throw .invalidFile(problems: error.problems)
        }
        return try read(source, name: modelName(of: path))
    }

    /// Parses mapping-file text; `file` is used in locations.
    package static func parse(_ text: String, file: String = "<mapping>", name: String = "Mapping")
        throws(MappingError) -> MappingFile
    {
        let source: YAMLSource
        do {
            source = try YAMLSource.parse(text, file: file)
        } catch {
            throw .invalidFile(problems: error.problems)
        }
        return try read(source, name: name)
    }

    static func read(_ source: YAMLSource, name: String) throws(MappingError) -> MappingFile {
        var walker = YAMLWalker(source: source)
        let pairs = walker.pairs(source.root, what: "a mapping file")
        walker.checkKeys(pairs, allowed: fileKeys, what: "the mapping file")
        var versions: [String: (name: String, location: SourceLocation)] = [:]
        var mappings: [(EntityMapping, Node)] = []
        let name = pairs.first { $0.key == "name" }.flatMap { walker.string($0.value, what: "name") } ?? name
        var expressionErrors: [MappingError] = []
        for key in ["source", "destination"] {
            guard let pair = pairs.first(where: { $0.key == key }) else {
                walker.report(
                    .missingKey, "the mapping file has no '\(key)' key", at: source.root,
                    hint: "name the plan's version it maps \(key == "source" ? "from" : "to"): '\(key): v3'")
                continue
            }
            if let text = walker.string(pair.value, what: key) {
                versions[key] = (text, source.location(of: pair.value))
            }
        }
        if let entities = pairs.first(where: { $0.key == "entities" })?.value {
            if let sequence = entities.sequence {
                for (index, node) in sequence.enumerated() {
                    if let mapping = entityMapping(node, number: index, walker: &walker, errors: &expressionErrors) {
                        mappings.append((mapping, node))
                    }
                }
            } else {
                walker.report(.invalidValue, "'entities' must be a list of entity mappings", at: entities)
            }
        } else {
            walker.report(
                .missingKey, "the mapping file has no 'entities' key", at: source.root,
                hint: "list the entity mappings under 'entities:', each with 'source' and/or 'destination'")
        }
        var duplicates = Set<String>()
        for (mapping, node) in mappings where !duplicates.insert(mapping.name).inserted {
            walker.report(
                .invalidValue, "two entity mappings are named '\(mapping.name)'", at: node,
                hint: "give one a 'name:'; relationship mappings refer to entity mappings by name")
        }
        if let first = expressionErrors.first, walker.problems.isEmpty { throw first }
        if !walker.problems.isEmpty || !expressionErrors.isEmpty {
            throw .invalidFile(
                problems: walker.problems + expressionErrors.map { ModelProblem(.syntax, $0.messageWithoutLocation, location: $0.location) })
        }
        guard let from = versions["source"], let to = versions["destination"] else {
            throw .invalidFile(problems: walker.problems)
        }
        var sourceReference = ModelReference(path: nil)
        sourceReference.versionName = from.name
        var destinationReference = ModelReference(path: nil)
        destinationReference.versionName = to.name
        return MappingFile(
            model: MappingModel(
                file: source.file, name: name, source: sourceReference, destination: destinationReference,
                entityMappings: mappings.map(\.0)),
            sourceLocation: from.location, destinationLocation: to.location)
    }

    static func entityMapping(_ node: Node, number: Int, walker: inout YAMLWalker, errors: inout [MappingError])
        -> EntityMapping?
    {
        let pairs = walker.pairs(node, what: "an entity mapping")
        walker.checkKeys(pairs, allowed: entityKeys, what: "an entity mapping")
        func value(_ key: String) -> String? {
            pairs.first { $0.key == key }.flatMap { walker.string($0.value, what: key) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        let sourceEntity = value("source"), destinationEntity = value("destination")
        guard sourceEntity != nil || destinationEntity != nil else {
            walker.report(
                .missingKey, "the entity mapping names neither a source nor a destination entity", at: node,
                hint: "'source:' alone removes an entity's rows, 'destination:' alone adds rows, both map one to the other")
            return nil
        }
        let name = value("name") ?? XcodeMappingReader.defaultName(source: sourceEntity, destination: destinationEntity)
        let location = walker.source.location(of: node)
        var filter: MappingPredicate?
        let filterText = value("filter")
        if let filterText, let filterNode = pairs.first(where: { $0.key == "filter" })?.value {
            do {
                filter = try ExpressionParser.parsePredicate(filterText)
            } catch {
                errors.append(
                    .expressionSyntax(
                        location: walker.source.location(of: filterNode), entityMapping: name, property: nil,
                        field: "filter predicate", error: error))
            }
        }
        let kind: EntityMappingKind = sourceEntity == nil ? .add : destinationEntity == nil ? .remove : .undefined
        var mapping = EntityMapping(
            name: name, kind: kind, sourceEntity: sourceEntity, destinationEntity: destinationEntity,
            sourceExpression: sourceEntity.map { XcodeMappingReader.fetchExpression(entity: $0, filterText: filterText) },
            filter: filter, filterText: filterText, customPolicyClass: value("policy"), mappingNumber: number,
            location: location)
        if let attributes = pairs.first(where: { $0.key == "attributes" })?.value, !isEmpty(attributes) {
            for entry in walker.pairs(attributes, what: "attributes of '\(name)'") {
                let at = walker.source.location(of: entry.keyNode)
                if isEmpty(entry.value) {
                    mapping.attributeMappings.append(PropertyMapping(name: entry.key, valueExpression: nil, origin: .none, location: at))
                    continue
                }
                guard let text = walker.string(entry.value, what: "the expression of '\(entry.key)'") else { continue }
                do {
                    let expression = try ExpressionParser.parseExpression(text)
                    mapping.attributeMappings.append(
                        PropertyMapping(name: entry.key, valueExpression: expression, origin: .written, location: at))
                } catch {
                    errors.append(
                        .expressionSyntax(
                            location: walker.source.location(of: entry.value), entityMapping: name, property: entry.key,
                            field: "value expression", error: error))
                }
            }
        }
        if let relationships = pairs.first(where: { $0.key == "relationships" })?.value, !isEmpty(relationships) {
            for entry in walker.pairs(relationships, what: "relationships of '\(name)'") {
                let at = walker.source.location(of: entry.keyNode)
                if isEmpty(entry.value) {
                    mapping.relationshipMappings.append(PropertyMapping(name: entry.key, valueExpression: nil, origin: .none, location: at))
                } else if entry.value.mapping != nil {
                    // Xcode's form: a source key path and an entity mapping; the expression is generated.
                    let fields = walker.pairs(entry.value, what: "relationship '\(entry.key)'")
                    walker.checkKeys(fields, allowed: relationshipKeys, what: "a relationship mapping", property: entry.key)
                    let keyPath = fields.first { $0.key == "keyPath" }.flatMap { walker.string($0.value, what: "keyPath") }
                    if let keyPath, let keyPathNode = fields.first(where: { $0.key == "keyPath" })?.value {
                        do {
                            _ = try ExpressionParser.parseExpression(keyPath)
                        } catch {
                            errors.append(
                                .expressionSyntax(
                                    location: walker.source.location(of: keyPathNode), entityMapping: name,
                                    property: entry.key, field: "key path", error: error))
                        }
                    }
                    mapping.relationshipMappings.append(
                        PropertyMapping(
                            name: entry.key, valueExpression: nil, origin: .pendingGeneration, sourceKeyPath: keyPath,
                            sourceMappingName: fields.first { $0.key == "mapping" }.flatMap { walker.string($0.value, what: "mapping") },
                            location: at))
                } else if let text = walker.string(entry.value, what: "the expression of '\(entry.key)'") {
                    do {
                        let expression = try ExpressionParser.parseExpression(text)
                        mapping.relationshipMappings.append(
                            PropertyMapping(name: entry.key, valueExpression: expression, origin: .written, location: at))
                    } catch {
                        errors.append(
                            .expressionSyntax(
                                location: walker.source.location(of: entry.value), entityMapping: name,
                                property: entry.key, field: "value expression", error: error))
                    }
                }
            }
        }
        return mapping
    }

    /// `~`, an empty value, or `{}`.
    static func isEmpty(_ node: Node) -> Bool {
        if let scalar = node.scalar { return scalar.string.isEmpty || scalar.string == "~" || scalar.string == "null" }
        if let mapping = node.mapping { return mapping.count == 0 }
        return false
    }
}

/// An Instar mapping file as read: the mapping model with the properties it lists, and the two version
/// names it states (with where it states them, for errors).
package struct MappingFile: Sendable {
    /// Entity mappings as written: only the listed property mappings, none generated yet.
    package var model: MappingModel
    package var sourceVersion: String { model.source.versionName ?? "" }
    package var destinationVersion: String { model.destination.versionName ?? "" }
    package var sourceLocation: SourceLocation
    package var destinationLocation: SourceLocation

    /// The two versions the file names, among `versions` (which came from `origin`: a plan, or models
    /// given on their own); a name that is not there is an error at the place it is written, naming
    /// where the versions came from, with the closest name as a hint.
    package func versions(among versions: [Model], from origin: VersionSource) throws(MappingError)
        -> (source: Model, destination: Model)
    {
        var problems: [ModelProblem] = []
        let names = versions.map(\.name)
        func find(_ name: String, _ location: SourceLocation, _ side: String) -> Model? {
            if let model = versions.first(where: { $0.name == name }) { return model }
            let closest = Spelling.closest(to: name, among: names)
            let close = closest.map { Spelling.didYouMean($0) + " " } ?? ""
            var problem = ModelProblem(
                .invalidValue, "the \(side) version '\(name)' is not one of \(origin)", location: location,
                hint: close + "versions: \(names.joined(separator: ", "))")
            problem.value = name
            problem.suggestion = closest
            problem.versionSource = origin
            problems.append(problem)
            return nil
        }
        let source = find(sourceVersion, sourceLocation, "source")
        let destination = find(destinationVersion, destinationLocation, "destination")
        guard let source, let destination, problems.isEmpty else { throw .invalidFile(problems: problems) }
        return (source, destination)
    }

    /// The mapping model against its two versions: entities and listed properties checked, every
    /// destination property the file does not list added for Xcode's generation rule, then
    /// ``MappingModel/resolved(source:destination:)``. `origin` says where `versions` came from.
    package func resolved(among versions: [Model], from origin: VersionSource) throws(MappingError)
        -> (source: Model, destination: Model, model: MappingModel)
    {
        let (source, destination) = try self.versions(among: versions, from: origin)
        return (source, destination, try resolved(source: source, destination: destination))
    }

    package func resolved(source: Model, destination: Model) throws(MappingError) -> MappingModel {
        var problems: [ModelProblem] = []
        var completed = model
        func check(_ entity: String?, in version: Model, _ side: String, _ mapping: EntityMapping) -> Bool {
            guard let entity else { return true }
            if version.entity(named: entity) != nil { return true }
            let names = version.entities.map(\.name)
            let closest = Spelling.closest(to: entity, among: names)
            let close = closest.map { Spelling.didYouMean($0) + " " } ?? ""
            var problem = ModelProblem(
                .invalidValue, "entity mapping '\(mapping.name)': \(side) entity '\(entity)' is not in \(version.name)",
                location: mapping.location,
                hint: close + "entities of \(version.name): \(names.joined(separator: ", "))")
            problem.value = entity
            problem.suggestion = closest
            problems.append(problem)
            return false
        }
        completed.entityMappings = model.entityMappings.map { mapping in
            var mapping = mapping
            guard check(mapping.sourceEntity, in: source, "source", mapping),
                check(mapping.destinationEntity, in: destination, "destination", mapping),
                let entity = mapping.destinationEntity
            else { return mapping }
            let properties = destination.properties(of: entity).filter { !$0.property.isTransient }
            let attributes = properties.filter { $0.property.relationship == nil }.map(\.name)
            let relationships = properties.filter { $0.property.relationship != nil }.map(\.name)
            for (listed, names, kind) in [
                (mapping.attributeMappings, attributes, "attribute"), (mapping.relationshipMappings, relationships, "relationship"),
            ] {
                for property in listed where !names.contains(property.name) {
                    let closest = Spelling.closest(to: property.name, among: names)
                    let close = closest.map { Spelling.didYouMean($0) + " " } ?? ""
                    var problem = ModelProblem(
                        .invalidValue, "entity mapping '\(mapping.name)': '\(entity)' has no \(kind) '\(property.name)' in \(destination.name)",
                        location: property.location, hint: close + "\(kind)s: \(names.joined(separator: ", "))")
                    problem.value = property.name
                    problem.suggestion = closest
                    problems.append(problem)
                }
            }
            // Xcode makes one property mapping per destination property, in the model's order.
            func complete(_ listed: [PropertyMapping], _ names: [String]) -> [PropertyMapping] {
                names.map { name in
                    listed.first { $0.name == name }
                        ?? PropertyMapping(name: name, valueExpression: nil, origin: .pendingGeneration, location: mapping.location)
                }
            }
            mapping.attributeMappings = complete(mapping.attributeMappings, attributes)
            mapping.relationshipMappings = complete(mapping.relationshipMappings, relationships)
            return mapping
        }
        if !problems.isEmpty { throw .invalidFile(problems: problems) }
        return completed.resolved(source: source, destination: destination)
    }
}

extension MappingError {
    /// The description without the leading `file:line:column: `.
    var messageWithoutLocation: String {
        let text = description, prefix = "\(location): "
        return text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
    }
}
