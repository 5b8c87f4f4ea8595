import Foundation
import Instar

/// `instar plan --swiftdata <sources> --store S --scaffold <dir>` for an unversioned app whose change
/// SwiftData cannot infer: a `MigrationPlan.swift` to start from, with the shipped schema as `SchemaV1`,
/// the current one as `SchemaV2` and a `.custom` stage whose closures say what each refused change
/// needs. The shipped classes' bodies are not generated (only their properties, as comments, from the
/// store's model): the release's own sources are the exact ones, and `plan --swiftdata` checks that
/// their hashes equal the store's.
extension SwiftDataPlan {
    static let scaffoldFileName = "MigrationPlan.swift"

    /// The scaffold's text, or nil when the plan is not an unversioned app's inferred step.
    func versionedScaffold() -> String? {
        guard isInferred, plan.versions.count == 2 else { return nil }
        let (shipped, current) = (plan.versions[0], plan.versions[1])
        func classList(_ model: Model) -> String { model.entities.map { "\($0.name).self" }.joined(separator: ", ") }
        var lines = [
            "// Scaffolded by `instar plan --swiftdata`: SwiftData cannot migrate the shipped store to the current",
            "// sources in one inferred step (the changes are listed in the stage below). Put the @Model classes as",
            "// they shipped into SchemaV1 (from that release's sources) and the current ones into SchemaV2, open the",
            "// container with `Schema(versionedSchema: SchemaV2.self)` and `migrationPlan: MigrationPlan.self`, and",
            "// check with `instar plan --swiftdata <sources> --store <shipped store>`: SchemaV1's hashes must equal",
            "// the store's.",
            "import SwiftData",
            "",
            "enum SchemaV1: VersionedSchema {",
            "    static var versionIdentifier = Schema.Version(1, 0, 0)",
            "    static var models: [any PersistentModel.Type] { [\(classList(shipped))] }",
            "    // As the store's own model describes them:",
        ]
        for entity in shipped.entities {
            let attributes = entity.attributes.map { "\($0.name): \($0.type.rawValue)\($0.isOptional ? "?" : "")" }
            let relationships = entity.relationships.map { "\($0.name): \($0.isToMany ? "[\($0.destination)]" : $0.destination + "?")" }
            lines.append("    // @Model final class \(entity.name) { \((attributes + relationships).joined(separator: "; ")) }")
        }
        lines += [
            "}",
            "",
            "enum SchemaV2: VersionedSchema {",
            "    static var versionIdentifier = Schema.Version(2, 0, 0)",
            "    static var models: [any PersistentModel.Type] { [\(classList(current))] }",
            "    // The current @Model classes, moved here from \(current.source ?? "the sources").",
            "}",
            "",
            "enum MigrationPlan: SchemaMigrationPlan {",
            "    static var schemas: [any VersionedSchema.Type] { [SchemaV1.self, SchemaV2.self] }",
            "    static var stages: [MigrationStage] { [migrateV1toV2] }",
            "",
            "    static let migrateV1toV2 = MigrationStage.custom(",
            "        fromVersion: SchemaV1.self, toVersion: SchemaV2.self,",
            "        willMigrate: { context in",
            "            // On the shipped shape, before the step. What SwiftData cannot infer:",
        ]
        for finding in findings where finding.kind == "not-inferable" {
            let text = finding.message.components(separatedBy: "one inferred step: ").last ?? finding.message
            lines.append("            //   \(text)\(finding.location.map { " (\($0))" } ?? "")")
        }
        lines += [
            "            // Keep what the new shape needs (for a type change: read the old values here, or add an",
            "            // intermediate schema with a new property and copy into it), then save:",
            "            try context.save()",
            "        },",
            "        didMigrate: nil)",
            "}",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes ``versionedScaffold()`` into `directory` (never over a file); says what it wrote.
    func writeVersionedScaffold(into directory: String) throws {
        guard let text = versionedScaffold() else {
            printError("--scaffold: nothing to scaffold here (only an unversioned app's refused step is scaffolded with --swiftdata)")
            throw InstarExit.failure
        }
        let path = (directory as NSString).appendingPathComponent(Self.scaffoldFileName)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: [.withoutOverwriting])
        } catch {
            printError("--scaffold: cannot write \(path) (it may exist already: nothing is overwritten): \(error.localizedDescription)")
            throw InstarExit.failure
        }
        printOut("scaffold: wrote \(path): VersionedSchemas and a custom stage to start from")
    }
}
