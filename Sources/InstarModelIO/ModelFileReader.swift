import Foundation
@_spi(Layouts) import InstarModel
import Yams

/// Reads Instar model files: YAML, or JSON with the same schema.
///
/// The format has a short form for the common case and a long form for everything else:
///
/// ```yaml
/// name: Music 2              # the version name; defaults to the file name
/// identifier: "2.0"          # optional version identifier (Xcode's "Identifier")
/// entities:
///   Track:
///     unique: [[title, album]]
///     indexes: { byTitle: [title, -plays] }   # "-" = descending
///     attributes:
///       title: string             # required
///       subtitle: string?         # optional
///       plays: int32 = 0          # with a default
///       rating: { type: double, optional: true, renamedFrom: score }
///     relationships:
///       album: Album? inverse tracks   # optional to-one
///       artists: Artist[] inverse tracks   # to-many; "Artist[] ordered" for ordered
/// ```
///
/// The `sql` layout's naming keys (`table:`, `primaryKey:`, `column:`, `columnType:`, `joinTable:`,
/// `name:` on indexes and uniqueness constraints) and the top-level `raw:` list are read by
/// ``StoredNamesReader``. The README documents every key. Errors carry `file:line:column`.
package enum ModelFileReader {
    static let modelKeys = ["name", "identifier", "entities", "raw", "validation"]
    static let entityKeys = [
        "parent", "abstract", "renamedFrom", "hashModifier", "unique", "indexes", "attributes", "relationships",
    ] + StoredNamesReader.entityKeys
    static let attributeKeys = [
        "type", "optional", "default", "renamedFrom", "hashModifier", "transient", "readOnly", "externalStorage",
        "preservesValueInHistory", "indexed", "userInfo", "seedValues", "elements",
    ] + StoredNamesReader.columnKeys
    static let relationshipKeys = [
        "to", "inverse", "toMany", "ordered", "min", "max", "deleteRule", "optional", "transient", "readOnly",
        "renamedFrom", "hashModifier",
    ] + StoredNamesReader.columnKeys + StoredNamesReader.linkKeys

    /// Reads and validates a model file.
    package static func read(path: String) throws(ModelError) -> Model {
        let source = try YAMLSource.load(path: path)
        let defaultName = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return try read(source, defaultName: defaultName)
    }

    /// Parses model text; `file` is used in error messages.
    package static func parse(_ text: String, file: String = "<model>", defaultName: String = "Model")
        throws(ModelError) -> Model
    {
        try read(YAMLSource.parse(text, file: file), defaultName: defaultName)
    }

    static func read(_ source: YAMLSource, defaultName: String) throws(ModelError) -> Model {
        var walker = YAMLWalker(source: source)
        var reader = Reader()
        let pairs = walker.pairs(source.root, what: "a model file")
        walker.checkKeys(pairs, allowed: modelKeys, what: "the model file")
        var name = defaultName
        var identifier: String?
        var entities: [Entity] = []
        var rawSQL: [RawSQL] = []
        var sawEntities = false
        var validation = ModelValidation.strict
        for pair in pairs {
            switch pair.key {
            // `validation: xcode`: the file stands for an Xcode model, whose tolerated problems (a
            // default that does not parse, an inverse that does not match) stay warnings, as Core Data
            // reads them. What `instar export` writes for such a model.
            case "validation":
                switch walker.string(pair.value, what: "validation") {
                case "xcode"?: validation = .xcode
                case "strict"?, nil: validation = .strict
                case let other?:
                    walker.report(.invalidValue, "validation must be strict or xcode, not '\(other)'", at: pair.value)
                }
            case "name": name = walker.string(pair.value, what: "name") ?? name
            case "identifier": identifier = walker.string(pair.value, what: "identifier")
            case "raw":
                rawSQL = StoredNamesReader.rawSQL(pair.value, walker: &walker)
                reader.locations["raw"] = source.location(of: pair.keyNode)
            case "entities":
                sawEntities = true
                for entry in walker.pairs(pair.value, what: "entities") {
                    reader.locations[entry.key] = source.location(of: entry.keyNode)
                    if let entity = reader.entity(named: entry.key, from: entry.value, walker: &walker) {
                        entities.append(entity)
                    }
                }
            default: break
            }
        }
        if !sawEntities {
            walker.report(
                .missingKey, "the model file has no 'entities' key", at: source.root,
                hint: "list the entities under 'entities:', one mapping per entity")
        }
        if !walker.problems.isEmpty { throw ModelError(walker.problems) }
        return try Model(
            name: name, versionIdentifier: identifier, entities: entities, locations: reader.locations,
            source: source.file, validation: validation, rawSQL: rawSQL)
    }

    private struct Reader {
        var locations: [String: SourceLocation] = [:]

        mutating func entity(named name: String, from node: Node, walker: inout YAMLWalker) -> Entity? {
            var entity = Entity(name: name)
            if node.scalar?.string == "" || node.scalar?.string == "~" { return entity }  // `Tag: {}` or `Tag:`
            let pairs = walker.pairs(node, what: "entity '\(name)'", entity: name)
            walker.checkKeys(pairs, allowed: ModelFileReader.entityKeys, what: "an entity", entity: name)
            for pair in pairs {
                let value = pair.value
                switch pair.key {
                case "parent": entity.parent = walker.string(value, what: "parent", entity: name)
                case "abstract": entity.isAbstract = walker.bool(value, what: "abstract", entity: name) ?? false
                case "renamedFrom": entity.renamingIdentifier = walker.string(value, what: "renamedFrom", entity: name)
                case "hashModifier": entity.versionHashModifier = walker.string(value, what: "hashModifier", entity: name)
                case "unique":
                    entity.uniquenessConstraints = constraints(value, entity: name, walker: &walker)
                    StoredNamesReader.uniqueIndexNames(value, into: &entity, locations: &locations, walker: &walker)
                case "indexes": entity.indexes = indexes(value, entity: name, walker: &walker)
                case let key where StoredNamesReader.entityKeys.contains(key):
                    StoredNamesReader.entityKey(pair, into: &entity, locations: &locations, walker: &walker)
                case "attributes":
                    // Sized once: appending one by one left up to twice the capacity needed, held by every
                    // version of a plan for the whole run (a quarter of a long plan's model memory).
                    let entries = walker.pairs(value, what: "attributes of '\(name)'", entity: name)
                    entity.attributes.reserveCapacity(entries.count)
                    for entry in entries {
                        locations["\(name).\(entry.key)"] = walker.source.location(of: entry.keyNode)
                        if let attribute = attribute(entry.key, entry.value, entity: name, walker: &walker) {
                            entity.attributes.append(attribute)
                        }
                    }
                case "relationships":
                    let entries = walker.pairs(value, what: "relationships of '\(name)'", entity: name)
                    entity.relationships.reserveCapacity(entries.count)
                    for entry in entries {
                        locations["\(name).\(entry.key)"] = walker.source.location(of: entry.keyNode)
                        if let relationship = relationship(entry.key, entry.value, entity: name, walker: &walker) {
                            entity.relationships.append(relationship)
                        }
                    }
                default: break
                }
            }
            return entity
        }

        /// `unique: [a, b]` is one constraint over two properties; `unique: [[a, b], [c]]` is two; an
        /// item may be the long form `{on: [a, b], name: index_name}`.
        func constraints(_ node: Node, entity: String, walker: inout YAMLWalker) -> [[String]] {
            guard let sequence = node.sequence else {
                return [walker.stringList(node, what: "unique", entity: entity)]
            }
            if sequence.contains(where: { $0.sequence != nil || $0.mapping != nil }) {
                return sequence.map { item in
                    if let on = item.mapping?["on"] { return walker.stringList(on, what: "a uniqueness constraint", entity: entity) }
                    return walker.stringList(item, what: "a uniqueness constraint", entity: entity)
                }
            }
            return [walker.stringList(node, what: "unique", entity: entity)]
        }

        /// `byTitle: [title, -plays]`, or the long form `byTitle: {on: [title, -plays], name: stored_name}`.
        mutating func indexes(_ node: Node, entity: String, walker: inout YAMLWalker) -> [FetchIndex] {
            walker.pairs(node, what: "indexes", entity: entity).map { pair in
                var list = pair.value
                var storedName: String?
                if let mapping = pair.value.mapping {
                    let pairs = walker.pairs(pair.value, what: "index '\(pair.key)'", entity: entity)
                    walker.checkKeys(pairs, allowed: ["on", "name"], what: "an index", entity: entity)
                    list = mapping["on"] ?? Node("")
                    if let nameNode = mapping["name"] {
                        storedName = walker.string(nameNode, what: "name", entity: entity)
                        locations["\(entity)#index:\(pair.key)"] = walker.source.location(of: nameNode)
                    }
                }
                let elements = walker.stringList(list, what: "index '\(pair.key)'", entity: entity).map {
                    $0.hasPrefix("-")
                        ? FetchIndex.Element(property: String($0.dropFirst()), ascending: false)
                        : FetchIndex.Element(property: $0, ascending: true)
                }
                var index = FetchIndex(name: pair.key, elements: elements)
                index.storedName = storedName
                return index
            }
        }

        mutating func attribute(_ name: String, _ node: Node, entity: String, walker: inout YAMLWalker) -> Attribute? {
            if let text = node.scalar?.string {
                return shortAttribute(name, text, node: node, entity: entity, walker: &walker)
            }
            let pairs = walker.pairs(node, what: "attribute '\(name)'", entity: entity)
            walker.checkKeys(
                pairs, allowed: ModelFileReader.attributeKeys, what: "an attribute", entity: entity, property: name)
            guard let typeNode = pairs.first(where: { $0.key == "type" })?.value else {
                walker.report(
                    .missingKey, "attribute has no 'type'", at: node, entity: entity, property: name,
                    hint: "types: \(AttributeType.allCases.map(\.modelFileName).joined(separator: ", "))")
                return nil
            }
            guard let type = attributeType(typeNode, entity: entity, property: name, walker: &walker) else { return nil }
            var attribute = Attribute(name: name, type: type, isOptional: false)
            for pair in pairs {
                let v = pair.value
                switch pair.key {
                case "optional": attribute.isOptional = walker.bool(v, what: "optional", entity: entity, property: name) ?? false
                case "default": attribute.defaultValue = walker.string(v, what: "default", entity: entity, property: name)
                case "renamedFrom":
                    attribute.renamingIdentifier = walker.string(v, what: "renamedFrom", entity: entity, property: name)
                case "hashModifier":
                    attribute.versionHashModifier = walker.string(v, what: "hashModifier", entity: entity, property: name)
                case "transient": attribute.isTransient = walker.bool(v, what: "transient", entity: entity, property: name) ?? false
                case "readOnly": attribute.isReadOnly = walker.bool(v, what: "readOnly", entity: entity, property: name) ?? false
                case "externalStorage":
                    attribute.allowsExternalBinaryDataStorage =
                        walker.bool(v, what: "externalStorage", entity: entity, property: name) ?? false
                case "preservesValueInHistory":
                    attribute.preservesValueInHistoryOnDeletion =
                        walker.bool(v, what: "preservesValueInHistory", entity: entity, property: name) ?? false
                case "indexed": attribute.isIndexed = walker.bool(v, what: "indexed", entity: entity, property: name) ?? false
                case "userInfo":
                    for entry in walker.pairs(v, what: "userInfo", entity: entity) {
                        attribute.userInfo[entry.key] = walker.string(entry.value, what: "a userInfo value", entity: entity)
                    }
                case "seedValues":
                    if attribute.type == .string || attribute.type == .uri {
                        attribute.seedValues = walker.stringList(v, what: "seedValues", entity: entity)
                    } else {
                        walker.report(
                            .invalidValue, "seedValues are for String and URI attributes, not \(attribute.type.modelFileName)",
                            at: v, entity: entity, property: name,
                            hint: "remove the key: the seeder writes values of every other type itself")
                    }
                case "elements":
                    // A composite's elements (SwiftData enums and Codable structs): attributes themselves.
                    guard attribute.type == .composite else {
                        walker.report(
                            .invalidValue, "elements are for composite attributes, not \(attribute.type.modelFileName)",
                            at: v, entity: entity, property: name, hint: "use type: composite, or remove the key")
                        break
                    }
                    for entry in walker.pairs(v, what: "elements of '\(name)'", entity: entity) {
                        if let element = self.attribute(entry.key, entry.value, entity: entity, walker: &walker) {
                            attribute.elements.append(element)
                        }
                    }
                case let key where StoredNamesReader.columnKeys.contains(key):
                    StoredNamesReader.columnKey(
                        pair, into: &attribute.stored, entity: entity, property: name, locations: &locations, walker: &walker)
                default: break
                }
            }
            return attribute
        }

        /// `type`, `type?`, `type = default`, `type? = default`.
        func shortAttribute(_ name: String, _ text: String, node: Node, entity: String, walker: inout YAMLWalker)
            -> Attribute?
        {
            var spec = Substring(text)
            var defaultValue: String?
            if let equals = spec.firstIndex(of: "=") {
                defaultValue = unquote(spec[spec.index(after: equals)...].trimmedSpaces)
                spec = spec[..<equals]
            }
            var typeName = spec.trimmedSpaces
            let optional = typeName.hasSuffix("?")
            if optional { typeName.removeLast() }
            guard let type = AttributeType(modelFileName: typeName) else {
                reportUnknownType(typeName, at: node, entity: entity, property: name, walker: &walker)
                return nil
            }
            return Attribute(name: name, type: type, isOptional: optional, defaultValue: defaultValue)
        }

        func attributeType(_ node: Node, entity: String, property: String, walker: inout YAMLWalker) -> AttributeType? {
            guard let text = walker.string(node, what: "type", entity: entity, property: property) else { return nil }
            if let type = AttributeType(modelFileName: text) ?? AttributeType(xcodeName: text) { return type }
            reportUnknownType(text, at: node, entity: entity, property: property, walker: &walker)
            return nil
        }

        func reportUnknownType(_ text: String, at node: Node, entity: String, property: String, walker: inout YAMLWalker) {
            let names = AttributeType.allCases.map(\.modelFileName)
            let close = Spelling.suggestion(for: text, among: names).map { $0 + " " } ?? ""
            walker.report(
                .unknownType, "unknown attribute type '\(text)'", at: node, entity: entity, property: property,
                hint: close + "types: \(names.joined(separator: ", "))")
        }

        mutating func relationship(_ name: String, _ node: Node, entity: String, walker: inout YAMLWalker) -> Relationship? {
            if let text = node.scalar?.string {
                return shortRelationship(name, text, node: node, entity: entity, walker: &walker)
            }
            let pairs = walker.pairs(node, what: "relationship '\(name)'", entity: entity)
            walker.checkKeys(
                pairs, allowed: ModelFileReader.relationshipKeys, what: "a relationship", entity: entity, property: name)
            guard let toNode = pairs.first(where: { $0.key == "to" })?.value,
                let destination = walker.string(toNode, what: "to", entity: entity, property: name)
            else {
                walker.report(
                    .missingKey, "relationship has no destination ('to')", at: node, entity: entity, property: name)
                return nil
            }
            var toMany = false
            var counts: (min: Int?, max: Int?) = (nil, nil)
            var r = Relationship(name: name, destination: destination, isOptional: true)
            for pair in pairs {
                let v = pair.value
                switch pair.key {
                case "inverse": r.inverse = walker.string(v, what: "inverse", entity: entity, property: name)
                case "toMany": toMany = walker.bool(v, what: "toMany", entity: entity, property: name) ?? false
                case "ordered": r.isOrdered = walker.bool(v, what: "ordered", entity: entity, property: name) ?? false
                case "min": counts.min = walker.int(v, what: "min", entity: entity, property: name)
                case "max": counts.max = walker.int(v, what: "max", entity: entity, property: name)
                case "optional": r.isOptional = walker.bool(v, what: "optional", entity: entity, property: name) ?? true
                case "transient": r.isTransient = walker.bool(v, what: "transient", entity: entity, property: name) ?? false
                case "readOnly": r.isReadOnly = walker.bool(v, what: "readOnly", entity: entity, property: name) ?? false
                case "renamedFrom": r.renamingIdentifier = walker.string(v, what: "renamedFrom", entity: entity, property: name)
                case "hashModifier":
                    r.versionHashModifier = walker.string(v, what: "hashModifier", entity: entity, property: name)
                case "deleteRule":
                    let text = walker.string(v, what: "deleteRule", entity: entity, property: name) ?? "nullify"
                    if let rule = DeleteRule(rawValue: text) ?? DeleteRule(xcodeName: text) {
                        r.deleteRule = rule
                    } else {
                        walker.report(
                            .invalidValue, "unknown delete rule '\(text)'", at: v, entity: entity, property: name,
                            hint: "use one of: \(DeleteRule.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                case let key where StoredNamesReader.columnKeys.contains(key):
                    StoredNamesReader.columnKey(
                        pair, into: &r.stored.column, entity: entity, property: name, locations: &locations, walker: &walker)
                case "joinTable":
                    r.stored.joinTable = StoredNamesReader.joinTable(
                        pair, entity: entity, property: name, locations: &locations, walker: &walker)
                default: break
                }
            }
            r.isToMany = toMany
            r.minCount = counts.min ?? 0
            r.maxCount = counts.max ?? (toMany ? 0 : 1)
            return r
        }

        /// `Dest`, `Dest?`, `Dest[]`, `Dest[] ordered`, each optionally followed by `inverse name`.
        func shortRelationship(_ name: String, _ text: String, node: Node, entity: String, walker: inout YAMLWalker)
            -> Relationship?
        {
            var words = text.split(separator: " ").map(String.init)
            guard !words.isEmpty else {
                walker.report(.invalidValue, "relationship has no destination", at: node, entity: entity, property: name)
                return nil
            }
            var destination = words.removeFirst()
            var toMany = false, optional = false, ordered = false
            var inverse: String?
            if destination.hasSuffix("?") {
                optional = true
                destination.removeLast()
            }
            if destination.hasSuffix("[]") {
                toMany = true
                optional = true
                destination.removeLast(2)
            }
            while !words.isEmpty {
                let word = words.removeFirst()
                switch word {
                case "ordered" where toMany: ordered = true
                case "inverse" where !words.isEmpty: inverse = words.removeFirst()
                default:
                    walker.report(
                        .invalidValue, "cannot read '\(word)' in relationship '\(text)'", at: node, entity: entity,
                        property: name,
                        hint: "short forms: 'Dest', 'Dest?', 'Dest[]', 'Dest[] ordered', each optionally followed by 'inverse name'; use the long form for more"
                    )
                    return nil
                }
            }
            return Relationship(
                name: name, destination: destination, inverse: inverse, isToMany: toMany, isOrdered: ordered,
                isOptional: optional)
        }

        func unquote(_ text: String) -> String {
            if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
                return String(text.dropFirst().dropLast())
            }
            return text
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (Unicode space separators too), as
    /// `trimmingCharacters(in: .whitespaces)` but without Foundation's cost, which showed when loading
    /// hundreds of model files.
    var trimmedSpaces: String {
        func isSpace(_ c: Character) -> Bool {
            c == " " || c == "\t" || (c.unicodeScalars.count == 1 && c.unicodeScalars.first!.properties.generalCategory == .spaceSeparator)
        }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
