@_spi(Layouts) import InstarModel

/// Writes a model (a store's cached model, typically) back as SwiftData sources: a `VersionedSchema` enum
/// with one `@Model` class per entity, so that an unversioned app can declare the schema its users' stores
/// have. What the written source hashes to is checked by reading it back (``SwiftDataReader``): the result
/// says whether it equals the model's version hashes, and names every property it could not write (a
/// composite, whose enum or struct the cache does not describe; a transformable, whose Swift type the
/// cache does not keep as Instar reads it), which is left as a comment to fill in from the release's sources.
package enum SchemaSourceWriter {
    package struct Written: Sendable {
        /// The Swift source.
        package var text: String
        /// Properties left as comments, `Entity.property: why`.
        package var unwritten: [String]
        /// Whether reading `text` back gives the model's entity version hashes exactly.
        package var hashesEqual: Bool
    }

    /// `model` as `enum <name>: VersionedSchema` with identifier `version` (`"1.0.0"`), classes nested in it.
    package static func versionedSchema(_ model: Model, name: String, version: String) -> Written {
        var unwritten: [String] = []
        let parts = version.split(separator: ".").map(String.init) + ["0", "0", "0"]
        var lines = [
            "enum \(name): VersionedSchema {",
            "    static var versionIdentifier = Schema.Version(\(parts[0]), \(parts[1]), \(parts[2]))",
            "    static var models: [any PersistentModel.Type] { [\(model.entities.map { "\($0.name).self" }.joined(separator: ", "))] }",
        ]
        // One side of each linked pair says `inverse:` (the reader, like SwiftData, links both).
        var declaresInverse: Set<String> = []
        for entity in model.entities {
            for relationship in entity.relationships {
                guard let inverse = relationship.inverse else { continue }
                let mine = "\(entity.name).\(relationship.name)", theirs = "\(relationship.destination).\(inverse)"
                if !declaresInverse.contains(theirs) { declaresInverse.insert(mine) }
            }
        }
        for entity in model.entities {
            lines.append("")
            lines += classLines(entity, declaresInverse: declaresInverse, unwritten: &unwritten)
        }
        lines.append("}")
        let text = lines.joined(separator: "\n") + "\n"
        var hashesEqual = false
        if unwritten.isEmpty {
            let read = SwiftDataReader().read(files: [(path: "\(name).swift", text: "import SwiftData\n" + text)])
            if let schema = read.schemas.first(where: { $0.name == name }) {
                hashesEqual = VersionHashes(model: schema.model).entityHashes == VersionHashes(model: model).entityHashes
            }
        }
        return Written(text: text, unwritten: unwritten, hashesEqual: hashesEqual)
    }

    private static func classLines(_ entity: Entity, declaresInverse: Set<String>, unwritten: inout [String]) -> [String] {
        var lines = ["    @Model final class \(entity.name) {"]
        if entity.parent != nil || entity.isAbstract {
            unwritten.append("\(entity.name): an entity inheritance (parent \(entity.parent ?? "none"), abstract \(entity.isAbstract))")
            lines.append("        // FILL IN: the store's entity takes part in an inheritance, which no SwiftData store in the corpus shows")
        }
        if let modifier = entity.versionHashModifier {
            // SwiftData has no entity-level hashModifier: the class cannot carry it.
            unwritten.append("\(entity.name): the entity's version hash modifier '\(modifier)'")
            lines.append("        // FILL IN: the store's entity has version hash modifier '\(modifier)', which SwiftData cannot declare")
        }
        for constraint in entity.uniquenessConstraints {
            lines.append("        #Unique<\(entity.name)>([\(constraint.map { "\\.\($0)" }.joined(separator: ", "))])")
        }
        let indexGroups = entity.indexes.map { $0.elements.map(\.property) }
        if !indexGroups.isEmpty {
            lines.append("        #Index<\(entity.name)>(\(indexGroups.map { "[\($0.map { "\\.\($0)" }.joined(separator: ", "))]" }.joined(separator: ", ")))")
        }
        var initParameters: [(String, String)] = []
        var properties: [(name: String, line: String)] = []
        for attribute in entity.attributes where !attribute.isTransient {
            guard let type = swiftType(attribute) else {
                let why = attribute.type == .composite
                    ? "a composite (\(attribute.elements.map { "\($0.name): \($0.type.xcodeName)" }.joined(separator: ", "))); declare its enum or struct as the release did"
                    : "\(attribute.type.xcodeName); its Swift type is not in the store's model"
                unwritten.append("\(entity.name).\(attribute.name): \(why)")
                properties.append((attribute.name, "        // FILL IN: var \(attribute.name): … — \(why)\(attribute.isOptional ? " (optional)" : "")"))
                continue
            }
            var options: [String] = []
            if attribute.allowsExternalBinaryDataStorage { options.append(".externalStorage") }
            if attribute.preservesValueInHistoryOnDeletion { options.append(".preserveValueOnDeletion") }
            if let original = attribute.renamingIdentifier, original != attribute.name { options.append("originalName: \(literal(original))") }
            if let modifier = attribute.versionHashModifier { options.append("hashModifier: \(literal(modifier))") }
            let prefix = options.isEmpty ? "" : "@Attribute(\(options.joined(separator: ", "))) "
            var line = "        \(prefix)var \(identifier(attribute.name)): \(type)\(attribute.isOptional ? "?" : "")"
            if let value = attribute.defaultValue, let swift = defaultLiteral(value, attribute.type) {
                line += " = \(swift)"
            } else if !attribute.isOptional {
                initParameters.append((attribute.name, type))
            }
            properties.append((attribute.name, line))
        }
        for relationship in entity.relationships where !relationship.isTransient {
            var options: [String] = []
            if relationship.deleteRule != .nullify { options.append("deleteRule: .\(relationship.deleteRule.rawValue)") }
            if relationship.minCount != 0 { options.append("minimumModelCount: \(relationship.minCount)") }
            if relationship.isToMany, relationship.maxCount != 0 { options.append("maximumModelCount: \(relationship.maxCount)") }
            if let original = relationship.renamingIdentifier, original != relationship.name { options.append("originalName: \(literal(original))") }
            if let inverse = relationship.inverse, declaresInverse.contains("\(entity.name).\(relationship.name)") {
                options.append("inverse: \\\(relationship.destination).\(inverse)")
            }
            if let modifier = relationship.versionHashModifier { options.append("hashModifier: \(literal(modifier))") }
            let prefix = options.isEmpty ? "" : "@Relationship(\(options.joined(separator: ", "))) "
            let type = relationship.isToMany ? "[\(relationship.destination)]" : relationship.destination
            var line = "        \(prefix)var \(identifier(relationship.name)): \(type)\(relationship.isOptional ? "?" : "")"
            if relationship.isToMany, !relationship.isOptional {
                line += " = []"
            } else if !relationship.isOptional {
                initParameters.append((relationship.name, type))
            }
            properties.append((relationship.name, line))
        }
        lines += properties.sorted { $0.name < $1.name }.map(\.line)
        let parameters = initParameters.sorted { $0.0 < $1.0 }
        lines.append("        init(\(parameters.map { "\(identifier($0.0)): \($0.1)" }.joined(separator: ", "))) {")
        for (name, _) in parameters { lines.append("            self.\(identifier(name)) = \(identifier(name))") }
        lines += ["        }", "    }"]
        return lines
    }

    /// The Swift type SwiftData maps to the attribute's type; nil for what a model does not say in full.
    static func swiftType(_ attribute: Attribute) -> String? {
        switch attribute.type {
        case .string: "String"
        case .integer64: "Int"
        case .integer32: "Int32"
        case .integer16: "Int16"
        case .double: "Double"
        case .float: "Float"
        case .decimal: "Decimal"
        case .boolean: "Bool"
        case .date: "Date"
        case .uuid: "UUID"
        case .binary: "Data"
        case .uri: "URL"
        case .transformable, .composite, .undefined, .objectID: nil
        }
    }

    /// A default as a Swift literal, for the types whose literal is plain; nil otherwise (defaults do not
    /// enter the version hash: leaving one out changes no hash).
    static func defaultLiteral(_ value: String, _ type: AttributeType) -> String? {
        switch DefaultValue.typed(value, for: type) {
        case .integer(let number)?: "\(number)"
        case .real(let number)? where type == .double || type == .float: "\(number)"
        case .boolean(let flag)?: flag ? "true" : "false"
        case .text(let text)? where type == .string: literal(text)
        default: nil
        }
    }

    /// A name as a Swift identifier: keywords in backticks.
    static func identifier(_ name: String) -> String {
        let keywords: Set<String> = [
            "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
            "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static", "struct",
            "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do", "else",
            "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "catch",
            "false", "is", "nil", "super", "self", "Self", "throw", "throws", "true", "try",
        ]
        return keywords.contains(name) ? "`\(name)`" : name
    }

    static func literal(_ text: String) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default:
                if character.value < 0x20 { escaped += "\\u{\(String(character.value, radix: 16))}" } else { escaped.unicodeScalars.append(character) }
            }
        }
        return "\"\(escaped)\""
    }
}
