import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO

/// A Core Data XML-store document (`<database>` of `<object>`s), the format of `xcmapping.xml`.
///
/// Each `<object type="XDDEV…" id="zN">` has `<attribute name type>value</attribute>` children and
/// `<relationship name destination idrefs="z1 z2">` links. This type only indexes objects and decodes
/// values; what the objects mean is ``XcodeMappingReader``'s business.
struct CoreDataXMLDocument {
    struct Object {
        var id: String
        var type: String
        var attributes: [String: Attribute]
        /// Relationship name → referenced ids, in the file's order.
        var relationships: [String: Reference]
        var location: SourceLocation
    }

    struct Attribute {
        var type: String
        /// The text, with the store's `\uXXXX` escapes decoded.
        var value: String
        var location: SourceLocation
    }

    struct Reference {
        var ids: [String]
        var location: SourceLocation
    }

    var objects: [String: Object]
    /// Object ids in document order, so that "the first" is stable.
    var order: [String]

    static func read(data: Data, file: String) throws(MappingError) -> CoreDataXMLDocument {
        let root: XMLSourceElement
        do {
            root = try XMLSourceTree.parse(
                data: data, file: file,
                emptyHint: "an xcmapping.xml file starts with <?xml …?> and has a <database> root element")
        } catch {
            let problem = error.problems.first
            throw .malformedXML(
                location: problem?.location ?? SourceLocation(file: file), message: problem?.message ?? "malformed XML",
                hint: problem?.hint)
        }
        guard root.name == "database" else {
            throw .notAMappingModel(location: root.location, reason: "the root element is <\(root.name)>, not <database>")
        }
        var objects: [String: Object] = [:]
        var order: [String] = []
        for element in root.children(named: "object") {
            guard let id = element["id"], let type = element["type"] else {
                throw .notAMappingModel(location: element.location, reason: "an <object> lacks its 'id' or 'type'")
            }
            var object = Object(id: id, type: type.uppercased(), attributes: [:], relationships: [:], location: element.location)
            for attribute in element.children(named: "attribute") {
                guard let name = attribute["name"] else {
                    throw .notAMappingModel(location: attribute.location, reason: "an <attribute> has no 'name'")
                }
                object.attributes[name.lowercased()] = Attribute(
                    type: attribute["type"] ?? "string", value: unescape(attribute.text), location: attribute.location)
            }
            for relationship in element.children(named: "relationship") {
                guard let name = relationship["name"] else {
                    throw .notAMappingModel(location: relationship.location, reason: "a <relationship> has no 'name'")
                }
                let ids = (relationship["idrefs"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
                object.relationships[name.lowercased()] = Reference(ids: ids, location: relationship.location)
            }
            if objects[id] != nil {
                throw .notAMappingModel(location: element.location, reason: "the object id '\(id)' appears twice")
            }
            objects[id] = object
            order.append(id)
        }
        return CoreDataXMLDocument(objects: objects, order: order)
    }

    /// The objects a relationship refers to, which must exist and be of `type`.
    func targets(of object: Object, _ relationship: String, type: String) throws(MappingError) -> [Object] {
        guard let reference = object.relationships[relationship] else { return [] }
        var found: [Object] = []
        for id in reference.ids {
            guard let target = objects[id] else {
                throw .danglingReference(
                    location: reference.location, relationship: relationship, id: id, reason: "which is not in the file")
            }
            guard target.type == type else {
                throw .danglingReference(
                    location: reference.location, relationship: relationship, id: id,
                    reason: "which is a \(target.type), not a \(type)")
            }
            found.append(target)
        }
        return found
    }

    /// Decodes the XML store's escapes: `\uXXXX` gives one UTF-16 code unit whose four hex digits are
    /// its bytes in little-endian order (`\u3c00` is `<`, `\u2600` is `&`), which is how the store
    /// writes characters it does not leave literal. Other text is returned unchanged.
    static func unescape(_ text: String) -> String {
        guard text.contains("\\u") else { return text }
        let input = Array(text.utf16)
        var units: [UInt16] = []
        var i = 0
        while i < input.count {
            if input[i] == 0x5C, i + 5 < input.count, input[i + 1] == 0x75,
                let value = UInt16(String(decoding: input[(i + 2)...(i + 5)], as: UTF16.self), radix: 16)
            {
                units.append(value >> 8 | value << 8)
                i += 6
            } else {
                units.append(input[i])
                i += 1
            }
        }
        return String(decoding: units, as: UTF16.self)
    }
}

extension CoreDataXMLDocument.Object {
    func string(_ name: String) -> String? { attributes[name]?.value }

    /// An attribute's value, with empty text read as absent (Xcode writes empty optional strings).
    func nonEmptyString(_ name: String) -> String? {
        guard let value = attributes[name]?.value, !value.isEmpty else { return nil }
        return value
    }

    func bool(_ name: String) -> Bool {
        guard let value = attributes[name]?.value.trimmingCharacters(in: .whitespacesAndNewlines) else { return false }
        return value == "1" || value.uppercased() == "YES" || value.lowercased() == "true"
    }

    /// The bytes of a `binary` attribute (base64 broken over lines).
    func binary(_ name: String) -> Data?? {
        guard let value = attributes[name]?.value else { return .none }
        return .some(Data(base64Encoded: value, options: .ignoreUnknownCharacters))
    }
}
