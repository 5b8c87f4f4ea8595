import Foundation
@_spi(Layouts) import InstarModel
import InstarSwiftData
import Testing

/// The sources a SwiftData reader read encode to exactly the JSON `instar model swiftdata` documents.
@Suite struct SwiftDataSourcesReportEncodingTests {
    @Test func sourcesWriteSchemasPlansAndDiagnostics() throws {
        let read = SwiftDataReader().read(files: [
            (
                path: "Models.swift",
                text: """
                    enum V1: VersionedSchema {
                        static let versionIdentifier = Schema.Version(1, 0, 0)
                        static let models: [any PersistentModel.Type] = [Note.self]
                        @Model class Note { var body: String? }
                    }
                    enum V2: VersionedSchema {
                        static let versionIdentifier = Schema.Version(2, 0, 0)
                        static let models: [any PersistentModel.Type] = [Note.self]
                        @Model class Note { var body: String?; var title: String = "" }
                    }
                    enum Plan: SchemaMigrationPlan {
                        static var schemas: [any VersionedSchema.Type] { [V1.self, V2.self] }
                        static var stages: [MigrationStage] { [.custom(fromVersion: V1.self, toVersion: V2.self, willMigrate: nil, didMigrate: fill)] }
                    }
                    """
            )
        ])
        let schema = try #require(read.schemas.first)
        let diagnostic = SwiftDataDiagnostic(.warning, "assumed", at: SourceLocation(file: "Models.swift", line: 4, column: 9), subject: "V1.Note")
        let report = SwiftDataSourcesReport(schemas: [schema], plans: read.plans, diagnostics: [diagnostic])
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
        #expect(Set(object.keys) == ["schemas", "plans", "diagnostics"])
        let hashes = VersionHashes(model: schema.model)
        let schemas = try #require(object["schemas"] as? [[String: Any]])
        #expect(Set(schemas[0].keys) == ["name", "versionIdentifier", "classes", "entities", "versionChecksum"])
        #expect(schemas[0]["entities"] as? [String: String] == hashes.base64EntityHashes)
        #expect(schemas[0]["versionChecksum"] as? String == hashes.versionChecksum && schemas[0]["classes"] as? [String] == ["V1.Note"])
        let plans = try #require(object["plans"] as? [[String: Any]])
        #expect(Set(plans[0].keys) == ["name", "schemas", "stages"] && plans[0]["schemas"] as? [String] == ["V1", "V2"])
        let stages = try #require(plans[0]["stages"] as? [[String: String]])
        #expect(stages == [["kind": "custom", "from": "V1", "to": "V2", "didMigrate": "fill"]])
        #expect(
            object["diagnostics"] as? [[String: String]] == [["severity": "warning", "location": "Models.swift:4:9", "message": "assumed"]])
    }
}
