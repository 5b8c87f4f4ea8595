// App sources whose models use types SwiftData stores under an assumed Core Data type (CGFloat as a
// double): for the SwiftData tests and the CLI's.

/// Two-schema versioned app sources, written inline.
package enum AssumedTypeSources {
    package static func versioned(v1 trip1: String, v2 trip2: String, v2Models: String = "Trip.self", extra: String = "") -> String {
        """
        import SwiftData
        import CoreGraphics
        enum V1: VersionedSchema {
            static var versionIdentifier = Schema.Version(1, 0, 0)
            static var models: [any PersistentModel.Type] { [Trip.self] }
            @Model final class Trip { var name: String = ""; \(trip1) init() {} }
        }
        enum V2: VersionedSchema {
            static var versionIdentifier = Schema.Version(2, 0, 0)
            static var models: [any PersistentModel.Type] { [\(v2Models)] }
            @Model final class Trip { var name: String = ""; \(trip2) init() {} }
            \(extra)
        }
        enum Plan: SchemaMigrationPlan {
            static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self] }
            static var stages: [MigrationStage] { [.lightweight(fromVersion: V1.self, toVersion: V2.self)] }
        }
        """
    }

    /// The V2 Trip differs from V1's: the store (at V1) cannot prove V2's Trip.
    package static let tripChanges = versioned(v1: "var ratio: CGFloat?;", v2: "var ratio: CGFloat?; var note: String?;")

    /// V2 adds an entity and leaves Trip as it is: the store's recorded Trip hash proves the mapping.
    package static let tripKept = versioned(
        v1: "var ratio: CGFloat?;", v2: "var ratio: CGFloat?;", v2Models: "Trip.self, Place.self",
        extra: "@Model final class Place { var title: String = \"\"; init() {} }")
}
