@_spi(Layouts) import InstarModel

/// Instar's positions, not swift-syntax's type of the same name.
package typealias SourceLocation = InstarModel.SourceLocation

/// One thing the SwiftData reader could not resolve, or resolved with a caveat, at its place in a source file.
///
/// The reader never guesses: when a property's Core Data shape depends on something it cannot see (a type
/// from another module, a type alias it cannot follow, an attribute option whose effect no real store has
/// shown), it says so here, with the position of the declaration, and leaves that schema out rather than
/// hash a model that might differ from what SwiftData builds.
package struct SwiftDataDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// Whether the schema that needs this declaration could still be built.
    package enum Severity: String, Sendable, Hashable {
        /// The schema that needs this declaration is left out.
        case error
        /// The schema was built; the message says what was left out or assumed (never something hashed).
        case warning
    }

    /// Error or warning.
    package var severity: Severity
    /// What was found, and what to do about it.
    package var message: String
    /// `file:line:column` of the declaration or expression concerned.
    package var location: SourceLocation
    /// The `@Model` class (or schema) whose reading raised this, when there is one.
    package var subject: String?
    /// What was found, as a fact a caller acts on (the `instar` command adds its flags from it), for the
    /// diagnostics that have one.
    package var finding: Finding?

    /// Facts of diagnostics that a caller acts on.
    package enum Finding: Sendable, Hashable {
        /// A stage of the migration plan `plan` goes from a later schema to an earlier one (a downgrade
        /// plan, or stages in the wrong order).
        case stageGoesBackwards(plan: String, from: String, to: String)
        /// A property's initial value is not a literal (`Date()`, `UUID()`, a constant): the app evaluates
        /// it, so no default is recorded.
        case defaultNotLiteral(expression: String)
        /// `model` is not listed in the schema's models but the relationship `property` leads to it, so
        /// it was added, as SwiftData adds reachable models.
        case reachableModelAdded(model: String, property: String)
        /// The relationship `relationship` has no `inverse:` and `destination` has `candidates` relationships
        /// back, so which pair SwiftData links is not known.
        case ambiguousInverse(relationship: String, destination: String, candidates: Int)
        /// The relationship `relationship` has no `inverse:`, and its one counterpart on `destination`,
        /// `declaredOneSided`, is written `@Relationship(...)` without `inverse:`: the two are not paired.
        case inverseNotInferred(relationship: String, destination: String, declaredOneSided: String)
        /// No store shows how SwiftData stores a type: `mapping` (`CGFloat → Double`) is assumed, and a
        /// migration writing it is refused unless the store proves it (``SwiftDataUserInfo/assumedMapping``).
        case assumedMapping(String)
    }

    /// Creates a diagnostic.
    package init(
        _ severity: Severity, _ message: String, at location: SourceLocation, subject: String? = nil, finding: Finding? = nil
    ) {
        self.severity = severity
        self.message = message
        self.location = location
        self.subject = subject
        self.finding = finding
    }

    /// `file:line:column: error: message`, the form compilers and editors understand.
    package var description: String {
        "\(location): \(severity.rawValue): \(subject.map { "\($0): " } ?? "")\(message)"
    }
}

/// Reading failed as a whole (a file or folder that cannot be read), or a caller asked for a schema that
/// the sources do not declare or that could not be built.
package struct SwiftDataReadError: InstarError, CustomStringConvertible {
    /// The diagnostics that explain the failure, first one first.
    package var diagnostics: [SwiftDataDiagnostic]

    /// Creates the error from its diagnostics.
    package init(_ diagnostics: [SwiftDataDiagnostic]) {
        self.diagnostics = diagnostics
    }

    /// One diagnostic per line.
    package var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
