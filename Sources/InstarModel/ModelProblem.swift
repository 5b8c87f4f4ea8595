/// One thing wrong with a model file or a model: what, where, and what to do about it.
///
/// Readers and validation collect problems rather than stopping at the first, so that a user fixing
/// a model sees every mistake in one run.
public struct ModelProblem: Sendable, Hashable, CustomStringConvertible {
    /// What sort of problem it is, so that tools can react to some kinds (the CLI exits differently when a
    /// file cannot be read) and validation can turn some into warnings (``ModelValidation``).
    public enum Kind: String, Sendable, Hashable {
        /// The file is not well-formed (YAML, XML, a mapping expression).
        case syntax
        /// The file does not exist or cannot be read.
        case unreadable
        /// A required key is missing.
        case missingKey
        /// A key Instar does not know, usually a misspelling.
        case unknownKey
        /// A key has a value it cannot take.
        case invalidValue
        /// An attribute type Instar does not know.
        case unknownType
        /// An entity or property name is empty or not usable.
        case invalidName
        /// Two entities have the same name.
        case duplicateEntity
        /// A property is declared twice on an entity or its ancestors.
        case duplicateProperty
        /// An entity's parent does not exist.
        case unknownParent
        /// An entity is its own ancestor.
        case inheritanceCycle
        /// A relationship's destination entity does not exist.
        case danglingDestination
        /// A relationship's inverse does not exist on the destination.
        case unknownInverse
        /// Two relationships that should be inverses do not name each other.
        case inverseMismatch
        /// A relationship's minimum or maximum count is out of range for it.
        case invalidCount
        /// A uniqueness constraint names a property the entity does not have.
        case unknownConstraintProperty
        /// A fetch index names a property the entity does not have.
        case unknownIndexProperty
        /// A default value does not parse for its attribute's type.
        case invalidDefault
    }

    /// Whether the problem makes the model unusable. Xcode models get warnings for what Xcode's model
    /// compiler accepts (see ``ModelValidation/xcode``), so a model that an app ships is never refused.
    public enum Severity: String, Sendable, Hashable {
        /// The model cannot be used until this is fixed.
        case error
        /// Reported, but the model is usable.
        case warning
    }

    /// What sort of problem it is.
    public var kind: Kind
    /// Whether it stops the model from being used; set by validation.
    public var severity: Severity = .error
    /// What is wrong, in a sentence for the user (without location or subject, which ``description`` adds).
    public var message: String
    /// Where in which file, when known.
    public var location: SourceLocation?
    /// The entity concerned, when there is one.
    public var entity: String?
    /// The property concerned, when there is one.
    public var property: String?
    /// What the user can do about it.
    public var hint: String?
    /// The value the problem is about when it is neither an entity nor a property: the unknown version or
    /// hook a plan names, the version listed twice, the model file that cannot be read. Kept beside the
    /// message so that tools and tests can tell which one without reading the prose.
    package var value: String? = nil
    /// The model file's key whose value is refused (`columnType`, `onDelete`, `columnSQL`), when the
    /// problem is about one key of a property rather than the property as a whole.
    package var key: String? = nil
    /// For text refused before it is parsed: the reader's limit it passes, with the amount measured.
    package var limit: ReadLimit? = nil
    /// For a misspelt key or name: the closest one that would do, which the hint offers ("did you
    /// mean …?").
    package var suggestion: String? = nil
    /// The plan's versions the problem is about, in order: a stage's two ends.
    package var versions: [String] = []
    /// For a version name that is not among the versions it is looked up in: where those versions came
    /// from (a plan, or models given on their own), which the message names.
    package var versionSource: VersionSource? = nil

    /// Creates an error-severity problem.
    @_spi(Layouts) public init(
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

/// Where the versions that a file's version names are looked up in came from, so that a refusal names
/// them as the user gave them: a plan's versions are not the models given on the command line.
package enum VersionSource: String, Sendable, Hashable, CustomStringConvertible {
    /// A plan's versions.
    case plan
    /// Models given on their own (`instar mapping --model`), no plan.
    case models
    /// Models given on their own and a plan's versions together.
    case modelsAndPlan

    /// Their name in a sentence: "the plan's versions", "the given models' versions".
    package var description: String {
        switch self {
        case .plan: "the plan's versions"
        case .models: "the given models' versions"
        case .modelsAndPlan: "the versions of the given models and the plan"
        }
    }
}

/// A limit a reader applies to text before parsing it (so that a damaged or hostile file cannot exhaust
/// the stack or memory), with what the text measured against it.
package enum ReadLimit: Sendable, Hashable {
    /// The text nests about `depth` levels deep, more than `maximum`.
    case depth(Int, maximum: Int)
    /// Aliases expand the text to about `bytes`, more than `maximum`.
    case expandedBytes(Int, maximum: Int)
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
    /// Every problem is an error: for Instar's own model files.
    case strict
    /// Only problems that make the model meaningless are errors: for models Xcode compiled and apps ship.
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
public struct ModelError: InstarError, CustomStringConvertible {
    /// Every problem found, in the order found; never empty.
    public var problems: [ModelProblem]
    /// The reader's own error behind the problems, when one reader failure is all they say (a compiled
    /// model's broken keyed archive), kept as a value so that callers can tell which failure it was.
    package var underlying: (any Error)? = nil

    /// Wraps the problems a reader or validation collected.
    @_spi(Layouts) public init(_ problems: [ModelProblem]) {
        self.problems = problems
    }

    /// Wraps a single problem.
    @_spi(Layouts) public init(_ problem: ModelProblem) {
        self.problems = [problem]
    }

    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
