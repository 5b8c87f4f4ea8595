@_spi(Layouts) import InstarModel

/// Why a mapping model could not be read. Every case says where (`file:line:column`) and, once known,
/// which entity mapping and property, so that a message leads straight to the place in Xcode.
public enum MappingError: InstarError, Hashable, CustomStringConvertible {
    /// The file could not be opened or is not a folder/file where one was expected.
    case unreadable(file: String, reason: String)
    /// Not well-formed XML (libxml2's first error, at its position).
    case malformedXML(location: SourceLocation, message: String, hint: String?)
    /// Well-formed XML but not a mapping model's store document (wrong root, no mapping-model object).
    case notAMappingModel(location: SourceLocation, reason: String)
    /// An `idrefs` entry names an object that is not in the file (or of the wrong type).
    case danglingReference(location: SourceLocation, relationship: String, id: String, reason: String)
    /// A value has the wrong form (a non-numeric `mappingnumber`, bad base64, a missing name).
    case invalidValue(location: SourceLocation, entityMapping: String?, property: String?, field: String, reason: String)
    /// A predicate or expression written as text does not parse; `error.column` is within that text.
    case expressionSyntax(
        location: SourceLocation, entityMapping: String, property: String?, field: String, error: ExpressionSyntaxError)
    /// An archived expression or user-info dictionary cannot be decoded.
    case undecodableArchive(
        location: SourceLocation, entityMapping: String?, property: String?, field: String, reason: String)
    /// An Instar mapping file (`.mapping.yaml`/`.mapping.json`) with problems: every one of them, each
    /// with `file:line:column` and a hint (unknown keys, missing entities, a version name misspelt).
    case invalidFile(problems: [ModelProblem])

    /// Where the error is: the file for an unreadable one, else the position in it (the first problem's for
    /// ``invalidFile(problems:)``).
    public var location: SourceLocation {
        switch self {
        case .unreadable(let file, _): SourceLocation(file: file)
        case .malformedXML(let location, _, _), .notAMappingModel(let location, _),
            .danglingReference(let location, _, _, _), .invalidValue(let location, _, _, _, _),
            .expressionSyntax(let location, _, _, _, _), .undecodableArchive(let location, _, _, _, _):
            location
        case .invalidFile(let problems): problems.first?.location ?? SourceLocation(file: "<mapping>")
        }
    }

    public var description: String {
        func subject(_ mapping: String?, _ property: String?, _ field: String) -> String {
            var parts: [String] = []
            if let mapping { parts.append("entity mapping '\(mapping)'") }
            if let property { parts.append("property '\(property)'") }
            parts.append(field)
            return parts.joined(separator: ", ")
        }
        switch self {
        case .unreadable(let file, let reason):
            return "\(file): cannot read the mapping model: \(reason)"
        case .malformedXML(let location, let message, let hint):
            return "\(location): \(message)" + (hint.map { " (\($0))" } ?? "")
        case .notAMappingModel(let location, let reason):
            return "\(location): not an Xcode mapping model: \(reason)"
        case .danglingReference(let location, let relationship, let id, let reason):
            return "\(location): relationship '\(relationship)' refers to '\(id)', \(reason)"
        case .invalidValue(let location, let mapping, let property, let field, let reason):
            return "\(location): \(subject(mapping, property, field)): \(reason)"
        case .expressionSyntax(let location, let mapping, let property, let field, let error):
            return "\(location): \(subject(mapping, property, field)): \(error)"
        case .undecodableArchive(let location, let mapping, let property, let field, let reason):
            return "\(location): \(subject(mapping, property, field)): cannot decode the archive: \(reason)"
        case .invalidFile(let problems):
            return problems.map(\.description).joined(separator: "\n")
        }
    }
}
