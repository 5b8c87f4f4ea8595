@_spi(Layouts) import InstarModel

extension ModelFileWriter {
    /// The model as an Instar YAML model file, for people to read and edit: entities and properties in
    /// declaration order, the short forms (`title: string?`, `album: Album? inverse tracks`) where they
    /// say everything, the long form elsewhere. ``ModelFileReader`` reads it back to an identical model.
    package static func yaml(_ model: Model, comment: String? = nil) -> String {
        var lines: [String] = []
        if let comment {
            lines += comment.split(separator: "\n", omittingEmptySubsequences: false).map { "# \($0)" }
        }
        lines.append("name: \(YAMLText.scalar(model.name))")
        if let identifier = model.versionIdentifier { lines.append("identifier: \(YAMLText.scalar(identifier))") }
        // Problems Xcode tolerates (warnings when the model was read) stay tolerated when read back.
        if !model.warnings.isEmpty { lines.append("validation: xcode") }
        lines.append(model.entities.isEmpty ? "entities: {}" : "entities:")
        for entity in model.entities {
            lines += yamlLines(for: entity)
        }
        lines += rawLines(model.rawSQL)
        return lines.joined(separator: "\n") + "\n"
    }

    static func yamlLines(for entity: Entity) -> [String] {
        var body: [String] = []
        if let parent = entity.parent { body.append("parent: \(YAMLText.scalar(parent))") }
        if entity.isAbstract { body.append("abstract: true") }
        if let id = entity.renamingIdentifier { body.append("renamedFrom: \(YAMLText.scalar(id))") }
        if let modifier = entity.versionHashModifier { body.append("hashModifier: \(YAMLText.scalar(modifier))") }
        body += entityNamingLines(entity.stored)
        let constraints = entity.uniquenessConstraints
        if !constraints.isEmpty {
            body.append("unique: [" + constraints.map { uniqueItem($0, entity.stored) }.joined(separator: ", ") + "]")
        }
        if !entity.indexes.isEmpty {
            body.append("indexes:")
            for index in entity.indexes {
                let elements = YAMLText.flowList(index.elements.map { ($0.ascending ? "" : "-") + $0.property })
                let value = index.storedName.map { "{on: \(elements), name: \(YAMLText.flowScalar($0))}" } ?? elements
                body.append("  \(YAMLText.key(index.name)): \(value)")
            }
        }
        if !entity.attributes.isEmpty {
            body.append("attributes:")
            for attribute in entity.attributes { body += attributeLines(attribute).map { "  " + $0 } }
        }
        if !entity.relationships.isEmpty {
            body.append("relationships:")
            for relationship in entity.relationships { body += relationshipLines(relationship).map { "  " + $0 } }
        }
        let key = "  \(YAMLText.key(entity.name)):"
        return body.isEmpty ? [key + " {}"] : [key] + body.map { "    " + $0 }
    }

    static func attributeLines(_ a: Attribute) -> [String] {
        let key = YAMLText.key(a.name)
        let plain =
            !a.isTransient && !a.isReadOnly && a.renamingIdentifier == nil && a.versionHashModifier == nil
            && !a.allowsExternalBinaryDataStorage && !a.preservesValueInHistoryOnDeletion && !a.isIndexed
            && a.userInfo.isEmpty && (a.defaultValue.map(YAMLText.fitsShortDefault) ?? true) && a.stored.isEmpty
            && a.seedValues.isEmpty && a.elements.isEmpty
        if plain {
            var short = a.type.modelFileName + (a.isOptional ? "?" : "")
            if let value = a.defaultValue { short += " = \(value)" }
            return ["\(key): \(YAMLText.scalar(short))"]
        }
        var lines = ["\(key):", "  type: \(a.type.modelFileName)", "  optional: \(a.isOptional)"]
        if let v = a.defaultValue { lines.append("  default: \(YAMLText.scalar(v))") }
        if let v = a.renamingIdentifier { lines.append("  renamedFrom: \(YAMLText.scalar(v))") }
        if let v = a.versionHashModifier { lines.append("  hashModifier: \(YAMLText.scalar(v))") }
        if a.isTransient { lines.append("  transient: true") }
        if a.isReadOnly { lines.append("  readOnly: true") }
        if a.allowsExternalBinaryDataStorage { lines.append("  externalStorage: true") }
        if a.preservesValueInHistoryOnDeletion { lines.append("  preservesValueInHistory: true") }
        if a.isIndexed { lines.append("  indexed: true") }
        lines += columnNamingLines(a.stored)
        if !a.seedValues.isEmpty {
            lines.append("  seedValues:")
            lines += a.seedValues.map { "    - \(YAMLText.scalar($0))" }
        }
        if !a.userInfo.isEmpty {
            lines.append("  userInfo:")
            for (k, v) in a.userInfo.sorted(by: { $0.key < $1.key }) {
                lines.append("    \(YAMLText.key(k)): \(YAMLText.scalar(v))")
            }
        }
        if !a.elements.isEmpty {
            lines.append("  elements:")
            for element in a.elements { lines += attributeLines(element).map { "    " + $0 } }
        }
        return lines
    }

    static func relationshipLines(_ r: Relationship) -> [String] {
        let key = YAMLText.key(r.name)
        let simpleName = { (s: String) in !s.isEmpty && YAMLText.isWord(s) }
        let plain =
            !r.isTransient && !r.isReadOnly && r.renamingIdentifier == nil && r.versionHashModifier == nil
            && r.deleteRule == .nullify && r.minCount == 0 && simpleName(r.destination)
            && (r.inverse.map(simpleName) ?? true)
            && (r.isToMany ? (r.isOptional && r.maxCount == 0) : (r.maxCount == 1 && !r.isOrdered)) && r.stored.isEmpty
        if plain {
            var short = r.destination + (r.isToMany ? "[]" + (r.isOrdered ? " ordered" : "") : (r.isOptional ? "?" : ""))
            if let inverse = r.inverse { short += " inverse \(inverse)" }
            return ["\(key): \(YAMLText.scalar(short))"]
        }
        var lines = [
            "\(key):", "  to: \(YAMLText.scalar(r.destination))", "  toMany: \(r.isToMany)", "  optional: \(r.isOptional)",
            "  min: \(r.minCount)", "  max: \(r.maxCount)", "  deleteRule: \(r.deleteRule.rawValue)",
        ]
        if let v = r.inverse { lines.append("  inverse: \(YAMLText.scalar(v))") }
        if r.isOrdered { lines.append("  ordered: true") }
        if r.isTransient { lines.append("  transient: true") }
        if r.isReadOnly { lines.append("  readOnly: true") }
        if let v = r.renamingIdentifier { lines.append("  renamedFrom: \(YAMLText.scalar(v))") }
        if let v = r.versionHashModifier { lines.append("  hashModifier: \(YAMLText.scalar(v))") }
        lines += columnNamingLines(r.stored.column)
        if let join = r.stored.joinTable {
            var value = "{name: \(YAMLText.flowScalar(join.name)), columns: \(YAMLText.flowList(join.columns))"
            if let index = join.index { value += ", index: \(YAMLText.flowScalar(index))" }
            if !join.onDelete.isEmpty { value += ", onDelete: \(YAMLText.flowList(join.onDelete))" }
            if !join.columnOrder.isEmpty { value += ", columnOrder: \(YAMLText.flowList(join.columnOrder))" }
            if let key = join.primaryKeyConstraint { value += ", primaryKeyConstraint: \(YAMLText.flowScalar(key))" }
            lines.append("  joinTable: \(value)}")
        }
        return lines
    }
}

/// Spelling YAML scalars so that any string reads back unchanged.
package enum YAMLText {
    /// Letters, digits, `_`, `.` and `-`, starting with a letter, digit or `_`: safe anywhere, even in
    /// flow collections and as keys.
    package static func isWord(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first.properties.isAlphabetic || isDigit(first) || first == "_"
        else { return false }
        return s.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || isDigit($0) || $0 == "_" || $0 == "." || $0 == "-"
        }
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }

    /// A value in block context: plain when clearly safe, else double-quoted.
    package static func scalar(_ s: String) -> String {
        guard let first = s.unicodeScalars.first, first.properties.isAlphabetic || isDigit(first) || first == "_",
            s.last != " ", !s.contains(": "), !s.contains(" #")
        else { return quoted(s) }
        let extra: Set<Unicode.Scalar> = ["_", ".", "-", " ", "(", ")", "?", "=", "[", "]", "/", "+", ","]
        let safe = s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || isDigit($0) || extra.contains($0) }
        return safe ? s : quoted(s)
    }

    /// A value inside a flow collection (`{name: x}`): a word, else double-quoted.
    package static func flowScalar(_ s: String) -> String { isWord(s) ? s : quoted(s) }

    /// A mapping key.
    package static func key(_ s: String) -> String { isWord(s) ? s : quoted(s) }

    /// `[a, "b c", -d]`.
    package static func flowList(_ items: [String]) -> String {
        "[" + items.map { isWord($0) ? $0 : quoted($0) }.joined(separator: ", ") + "]"
    }

    /// A double-quoted YAML scalar with escapes.
    package static func quoted(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if c.value < 0x20 || c.value == 0x7F {
                    out += "\\x" + String(c.value, radix: 16, uppercase: true).leftPadded(to: 2)
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out + "\""
    }

    /// Whether a default survives the short form `type = default` (which trims and unquotes).
    static func fitsShortDefault(_ value: String) -> Bool {
        guard let first = value.first, let last = value.last else { return false }
        return !first.isWhitespace && !last.isWhitespace && first != "\"" && first != "'" && !value.contains("\n")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
