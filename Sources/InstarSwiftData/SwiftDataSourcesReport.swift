@_spi(Layouts) import InstarModel

/// What `instar model swiftdata --format json` writes: the schemas read from Swift sources with their
/// version hashes, the migration plans and their stages, and what the reader could not resolve.
///
/// Encodable only: a schema is written as its facts (name, version identifier, classes, each entity's
/// version hash in base64, the version checksum), not as the model it was built into.
package struct SwiftDataSourcesReport: Sendable, Encodable {
    /// The schemas, in the order they were read (and any asked for by class names, last).
    package var schemas: [SwiftDataSchema]
    /// The migration plans.
    package var plans: [SwiftDataMigrationPlan]
    /// Errors and warnings, each at its position.
    package var diagnostics: [SwiftDataDiagnostic]

    /// A report of `schemas`, `plans` and `diagnostics`.
    package init(schemas: [SwiftDataSchema], plans: [SwiftDataMigrationPlan], diagnostics: [SwiftDataDiagnostic]) {
        self.schemas = schemas
        self.plans = plans
        self.diagnostics = diagnostics
    }
}

/// `name`, `versionIdentifier`, `classes`, `entities` (each entity's version hash, base64, as SwiftData
/// writes it into a store) and `versionChecksum`.
extension SwiftDataSchema: Encodable {
    private enum CodingKeys: String, CodingKey {
        case name, versionIdentifier, classes, entities, versionChecksum
    }

    /// Writes the schema's facts; the hashes are computed from its model.
    package func encode(to encoder: any Encoder) throws {
        let hashes = VersionHashes(model: model)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(versionIdentifier, forKey: .versionIdentifier)
        try c.encode(modelClasses, forKey: .classes)
        try c.encode(hashes.base64EntityHashes, forKey: .entities)
        try c.encode(hashes.versionChecksum, forKey: .versionChecksum)
    }
}

/// `name`, `schemas` and `stages`.
extension SwiftDataMigrationPlan: Encodable {
    private enum CodingKeys: String, CodingKey {
        case name, schemas, stages
    }

    /// Writes the plan's name, schemas and stages (not where it is declared).
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(schemas, forKey: .schemas)
        try c.encode(stages, forKey: .stages)
    }
}

/// `kind`, `from`, `to`, and `willMigrate` / `didMigrate` when the stage has them.
extension SwiftDataMigrationStage: Encodable {
    private enum CodingKeys: String, CodingKey {
        case kind, from, to, willMigrate, didMigrate
    }

    /// Writes the stage (not where it is written).
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind.rawValue, forKey: .kind)
        try c.encode(fromVersion, forKey: .from)
        try c.encode(toVersion, forKey: .to)
        try c.encodeIfPresent(willMigrate, forKey: .willMigrate)
        try c.encodeIfPresent(didMigrate, forKey: .didMigrate)
    }
}

/// `severity`, `location` as one `"file:line:column"` string, and `message`.
extension SwiftDataDiagnostic: Encodable {
    private enum CodingKeys: String, CodingKey {
        case severity, location, message
    }

    /// Writes the diagnostic (not its subject or finding, which the message says in words).
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(severity.rawValue, forKey: .severity)
        try c.encode(location.description, forKey: .location)
        try c.encode(message, forKey: .message)
    }
}
