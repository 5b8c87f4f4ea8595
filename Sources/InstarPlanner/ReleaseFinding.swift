import InstarInference
@_spi(Layouts) import InstarModel

/// One thing a release check found before any store is touched: a lint finding, values a step loses
/// without a declaration, a meaning change to confirm, or a declared change acknowledged.
///
/// A value type rather than words, so that `instar check --format json` encodes exactly what the library
/// decided, and CI scripts and tests compare kinds and names instead of sentences.
public struct ReleaseFinding: Sendable, Hashable, Codable {
    /// What was found.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A lint error: the plan cannot do what it says (the step will fail on every store).
        case lintError
        /// A lint warning: reported, not a verdict.
        case lintWarning
        /// A step drops values while adding another attribute or entity they probably should have moved to.
        case undeclaredDataLoss
        /// A version hash modifier changed: the same schema now means something else. Confirm it in the intent file.
        case meaningChange
        /// A loss or meaning change the intent file declares: reported, not a verdict.
        case acknowledged
    }

    /// Where the values probably went, with how sure the guess is.
    public struct Destination: Sendable, Hashable, Codable {
        /// The newer version's entity.
        public var entity: String
        /// Its attribute (or relationship), when the guess is one; nil for a whole entity.
        public var property: String?
        /// 0–100: name similarity and type compatibility together.
        public var score: Int
        /// Where it is declared in the newer version, when the model file says.
        public var location: SourceLocation?

        /// `Entity.property` or `Entity`.
        public var subject: String { property.map { "\(entity).\($0)" } ?? entity }
    }

    /// What was found.
    public var kind: Kind
    /// A stable identifier of the rule: the lint check's (`probableRename`, `unreachableTarget`, …),
    /// or `droppedWhileAdding`, `hashModifierChanged`.
    public var check: String
    /// What was found, in a sentence.
    public var message: String
    /// The concrete fix, in the user's framework, when there is one.
    public var hint: String?
    /// Where to look: the newer version's property or entity (where a fix goes), or the lint finding's place.
    public var location: SourceLocation?
    /// The step (older version, newer version) it is about, when it is about one.
    public var step: [String]?
    /// The entity concerned (the older version's name for a loss).
    public var entity: String?
    /// The property concerned, when there is one.
    public var property: String?
    /// For a loss: where the dropped values are declared in the older version.
    public var droppedAt: SourceLocation?
    /// For a loss: the most probable destinations, best first.
    public var destinations: [Destination] = []
    /// For an acknowledged change: what was declared (`drop`, `meaning`) and why.
    public var declared: ChangeIntent.Entry?

    /// A finding.
    package init(
        _ kind: Kind, check: String, _ message: String, hint: String? = nil, location: SourceLocation? = nil,
        step: [String]? = nil, entity: String? = nil, property: String? = nil
    ) {
        self.kind = kind
        self.check = check
        self.message = message
        self.hint = hint
        self.location = location
        self.step = step
        self.entity = entity
        self.property = property
    }

    /// `Entity.property` or `Entity`.
    public var subject: String? { entity.map { e in property.map { "\(e).\($0)" } ?? e } }

    /// Whether the finding makes a release check fail (acknowledged changes and warnings do not).
    public var blocks: Bool { kind == .lintError || kind == .undeclaredDataLoss || kind == .meaningChange }
}

extension ReleaseFinding {
    /// A lint finding, kept with its check, place and hint.
    package init(lint finding: LintFinding) {
        self.init(
            finding.severity == .error ? .lintError : .lintWarning, check: finding.check.rawValue, finding.message,
            hint: finding.hint, location: finding.location, entity: finding.entity, property: finding.property)
        if finding.versions.count == 2 { step = finding.versions }
    }
}
