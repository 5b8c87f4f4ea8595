@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarStore

/// One thing SwiftData would refuse at launch in an app's migration plan (or that Instar cannot run),
/// with the fix: a value an app, a test or CI acts on, found from the sources alone.
///
/// Its JSON is the one `instar plan --swiftdata --format json` documents: the fix is written as `hint`
/// and the location as one `"file:line:column"` string (see `SwiftDataFinding+Codable.swift`).
public struct SwiftDataFinding: Sendable, Codable, Hashable {
    /// What kind of refusal a finding is.
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
        /// Two schemas of the plan share a version checksum ("Duplicate version checksums").
        case duplicateChecksum = "duplicate-checksum"
        /// A `.lightweight` stage (or an unversioned app's one inferred step) makes a change SwiftData cannot infer.
        case notInferable = "not-inferable"
        /// No stages lead from one schema of the plan to a later one.
        case unreachable
        /// The plan or a stage names a schema that could not be read, or that the plan's `schemas` does not list.
        case unknownSchema = "unknown-schema"
        /// The store matches no schema of the plan (SwiftData's 134504, "unknown model version").
        case unknownModelVersion = "unknown-model-version"
        /// The sources' `SchemaMigrationPlan` could not be read or is refused (e.g. a stage goes backwards).
        case refusedPlan = "refused-plan"
    }

    /// What kind of refusal this is.
    public var kind: Kind
    /// What is wrong, in words an app can show.
    public var message: String
    /// What to change.
    public var fix: String
    /// Where in the sources, when the finding has a place there (the stage, the property, the plan).
    public var location: SourceLocation?
    /// The schemas it is about, in order (a stage's two ends, or two schemas no stages connect).
    public var versions: [String]?
    /// The entity a change that cannot be inferred is about.
    public var entity: String?
    /// The property a change that cannot be inferred is about, when it is one property.
    public var property: String?

    /// A finding of `kind`, with its message, fix and what it is about.
    package init(
        kind: Kind, message: String, fix: String, location: SourceLocation?, versions: [String]? = nil, entity: String? = nil,
        property: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.fix = fix
        self.location = location
        self.versions = versions
        self.entity = entity
        self.property = property
    }
}

/// Why ``SwiftDataPlanCheck/check(sources:migrationPlan:store:classes:earlier:)`` produced no plan.
public struct SwiftDataPlanCheckError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, broadly.
    public enum Reason: Sendable, Hashable {
        /// A source file or folder could not be read.
        case unreadable
        /// The sources, the options or the store do not make a plan (the messages say why and what to give).
        case invalidInput
        /// The store could not be opened or read.
        case store
    }

    /// What went wrong, broadly.
    public var reason: Reason
    /// What to tell the user, in order (each with its hint where there is one). Empty for a store error,
    /// whose ``storeError`` says it.
    public var messages: [String]
    /// The store's error, for ``Reason/store``.
    public var storeError: StoreError?
    /// When the sources declare several `SchemaMigrationPlan`s (an app with several containers) and
    /// neither a name nor a store chose one: every plan's name, to check each in turn.
    public var plans: [String] = []

    package init(_ reason: Reason, _ messages: [String], store: StoreError? = nil) {
        self.reason = reason
        self.messages = messages
        self.storeError = store
    }

    /// The messages, one a line (or the store's error).
    public var description: String {
        storeError.map(\.description) ?? messages.joined(separator: "\n")
    }
}
