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

    /// Whether the problem makes the model unusable. Xcode models get warnings for what Xcode's model
    /// compiler accepts (see ``ModelValidation/xcode``), so a model that an app ships is never refused.
    public enum Severity: String, Sendable, Hashable {
        case error
        case warning
    }

    public var kind: Kind
    public var severity: Severity = .error
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
        let label = severity.rawValue + ":"
        if let location { parts.append("\(location): \(label)") } else { parts.append(label) }
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

/// How strictly a model is validated.
///
/// Instar's own model files are checked strictly: a mistake there is the user's to fix now. An Xcode
/// model is what an app already ships: Xcode compiled it and Core Data runs it, so refusing it would
/// refuse a real app. For those, only what makes the model meaningless stays an error (broken XML, an
/// unknown type, a destination or parent that does not exist, a cycle, a name declared twice); inverses
/// that do not name each other, counts out of range, defaults that do not parse and constraints or
/// indexes naming unknown properties become warnings, reported with the same position and hint.
public enum ModelValidation: Sendable, Hashable {
    case strict
    case xcode

    /// Problems of these kinds are warnings under this validation.
    func isWarning(_ kind: ModelProblem.Kind) -> Bool {
        switch self {
        case .strict: false
        case .xcode:
            [.unknownInverse, .inverseMismatch, .invalidCount, .invalidDefault, .unknownConstraintProperty,
             .unknownIndexProperty].contains(kind)
        }
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
