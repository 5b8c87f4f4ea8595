@_spi(Layouts) import InstarModel

/// One SwiftData schema read from source: a `VersionedSchema` type, or a `Schema([...])` listing model types.
package struct SwiftDataSchema: Sendable {
    /// The schema type's qualified name (`AppSchemaV1`), or `Schema` plus the call's position for an
    /// unversioned `Schema([...])`.
    package let name: String
    /// `versionIdentifier` as SwiftData writes it into `NSStoreModelVersionIdentifiers` (`"1.0.0"`; an
    /// unversioned schema is `"1.0.0"` too, as the MetaCocktails and ResourcesManager stores show).
    package let versionIdentifier: String
    /// Whether this is a `VersionedSchema` (rather than a plain list of model types).
    package let isVersioned: Bool
    /// The `@Model` classes of the schema, qualified (`AppSchemaV1.User`), in the order `models` lists them.
    package let modelClasses: [String]
    /// The Instar model: entities named like the classes, with Core Data-exact version hashes.
    package let model: Model
    /// Where the schema is declared.
    package let location: SourceLocation

    /// `userInfo` key of an attribute whose Swift initializer is not a literal (`= Date()`): its text.
    /// SwiftData evaluates it once and the model keeps that value as the default, so the attribute has
    /// a default the reader cannot know; it is not hashed.
    package static let appEvaluatedDefaultKey = SwiftDataUserInfo.appEvaluatedDefault
}

/// One stage of a `SchemaMigrationPlan`, as a plain value.
package struct SwiftDataMigrationStage: Sendable, Hashable {
    /// `.lightweight` or `.custom`.
    package enum Kind: String, Sendable, Hashable {
        /// `.lightweight(fromVersion:toVersion:)`: Core Data infers the mapping.
        case lightweight
        /// `.custom(fromVersion:toVersion:willMigrate:didMigrate:)`: app code runs around the migration.
        case custom
    }

    /// The stage's kind.
    package let kind: Kind
    /// The source schema, qualified (`AppSchemaV1`).
    package let fromVersion: String
    /// The destination schema, qualified.
    package let toVersion: String
    /// `willMigrate:`: the function's name, `"inline"` for a closure literal, nil when absent or `nil`.
    package let willMigrate: String?
    /// `didMigrate:`, in the same form as ``willMigrate``.
    package let didMigrate: String?
    /// Where the stage expression is written.
    package let location: SourceLocation
}

/// A `SchemaMigrationPlan`: its schemas in order and its stages.
package struct SwiftDataMigrationPlan: Sendable {
    /// The plan type's qualified name.
    package let name: String
    /// `schemas`, qualified, in the plan's order.
    package let schemas: [String]
    /// `stages`, in the plan's order.
    package let stages: [SwiftDataMigrationStage]
    /// Where the plan is declared.
    package let location: SourceLocation

    /// A plan as read (or, without schemas and stages, standing for one a host refuses).
    package init(name: String, schemas: [String], stages: [SwiftDataMigrationStage], location: SourceLocation) {
        self.name = name
        self.schemas = schemas
        self.stages = stages
        self.location = location
    }
}

/// A `SchemaMigrationPlan` the sources declare but that could not be read or was refused (a stage going
/// backwards or to its own schema, a schema not declared): kept so that a host refuses it rather than
/// going on as if the sources declared no plan (and inferring one step, which is not what the app runs).
package struct RefusedMigrationPlan: Sendable {
    /// The plan type's qualified name.
    package let name: String
    /// Where the plan is declared.
    package let location: SourceLocation
    /// Why: the reader's errors about this plan, each at its position.
    package let errors: [SwiftDataDiagnostic]
}
