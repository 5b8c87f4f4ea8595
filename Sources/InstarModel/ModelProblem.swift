/// One thing wrong with a model file or a model: what, where, and what to do about it.
///
/// Readers and validation collect problems rather than stopping at the first, so that a user fixing
/// a model sees every mistake in one run.
public struct ModelProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case syntax
        case unreadable
        case missingKey
        case unknownKey
        case invalidValue
        case unknownType
        case invalidName
        case duplicateEntity
        case duplicateProperty
        case unknownParent
        case inheritanceCycle
        case danglingDestination
        case unknownInverse
        case inverseMismatch
        case invalidCount
        case unknownConstraintProperty
        case unknownIndexProperty
        case invalidDefault
    }

    public var kind: Kind
    public var message: String
    public var location: SourceLocation?
    public var entity: String?
    public var property: String?
    /// What the user can do about it.
    public var hint: String?

    public init(
        _ kind: Kind,
        _ message: String,
        location: SourceLocation? = nil,
        entity: String? = nil,
        property: String? = nil,
        hint: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.location = location
        self.entity = entity
        self.property = property
        self.hint = hint
    }

    /// `file:line:col: error: entity 'Track', attribute 'title': message (hint)`.
    public var description: String {
        var parts: [String] = []
        if let location { parts.append("\(location): error:") } else { parts.append("error:") }
        var subject: [String] = []
        if let entity { subject.append("entity '\(entity)'") }
        if let property { subject.append("property '\(property)'") }
        if !subject.isEmpty { parts.append(subject.joined(separator: ", ") + ":") }
        parts.append(message)
        var text = parts.joined(separator: " ")
        if let hint { text += "\n  hint: \(hint)" }
        return text
    }
}

/// A model could not be read or is not valid. Carries every problem found.
public struct ModelError: Error, Sendable, CustomStringConvertible {
    public var problems: [ModelProblem]

    public init(_ problems: [ModelProblem]) {
        self.problems = problems
    }

    public init(_ problem: ModelProblem) {
        self.problems = [problem]
    }

    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
