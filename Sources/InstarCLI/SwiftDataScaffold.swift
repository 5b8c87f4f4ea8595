import Foundation
@_spi(Layouts) import Instar
import InstarSwiftData
import InstarSwiftDataCheck

/// `instar plan --swiftdata <sources> --store S --scaffold <dir>` for an unversioned app whose change
/// SwiftData cannot infer: a `MigrationPlan.swift` to start from, with the shipped schema as `SchemaV1`,
/// the current one as `SchemaV2` and a `.custom` stage whose closures say what each refused change
/// needs. SchemaV1's classes are written from the store's own model (or the earlier sources' schema) by
/// ``SchemaSourceWriter`` and read back: the header says whether they hash exactly as the store, and each
/// property the model does not describe in full (a composite's enum or struct, a transformable's type) is a
/// `FILL IN` comment to complete from the release's sources.
extension SwiftDataPlan {
    static let scaffoldFileName = "MigrationPlan.swift"

    /// The scaffold's text, or nil when the plan is not an unversioned app's inferred step.
    func versionedScaffold() -> String? {
        guard isInferred, plan.versions.count == 2 else { return nil }
        let (shipped, current) = (plan.versions[0], plan.versions[1])
        let written = SchemaSourceWriter.versionedSchema(shipped, name: "SchemaV1", version: "1.0.0")
        var lines = [
            "// Scaffolded by `instar plan --swiftdata`: SwiftData cannot migrate the shipped store to the current",
            "// sources in one inferred step (the changes are listed in the stage below). Move the current @Model",
            "// classes into SchemaV2, open the container with `Schema(versionedSchema: SchemaV2.self)` and",
            "// `migrationPlan: MigrationPlan.self`, and check with `instar plan --swiftdata <sources> --store <shipped",
            "// store>`: SchemaV1's hashes must equal the store's.",
        ]
        if written.hashesEqual {
            lines.append("// SchemaV1 is the store's own model (\(shipped.name)) written as Swift; read back, every entity's version hash equals the store's.")
        } else if !written.unwritten.isEmpty {
            lines.append("// SchemaV1 is the store's own model (\(shipped.name)) written as Swift, except what it does not describe in full;")
            lines.append("// complete each FILL IN from the release's sources:")
            lines += written.unwritten.map { "//   \($0)" }
        } else {
            lines.append("// SchemaV1 is the store's own model (\(shipped.name)) written as Swift, but read back it does not hash as the")
            lines.append("// store: compare it with the release's sources before use.")
        }
        lines += ["import SwiftData", ""]
        lines += written.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast()
        lines += [
            "",
            "enum SchemaV2: VersionedSchema {",
            "    static var versionIdentifier = Schema.Version(2, 0, 0)",
            "    static var models: [any PersistentModel.Type] { [\(current.entities.map { "\($0.name).self" }.joined(separator: ", "))] }",
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
        for finding in findings where finding.kind == .notInferable {
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
