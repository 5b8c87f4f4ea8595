import ArgumentParser
import Foundation
@_spi(Layouts) import Instar
import InstarSwiftData
import InstarSwiftDataCheck

/// `instar model swiftdata <sources>`: the SwiftData schemas of an app's Swift sources, with their hashes.
struct SwiftDataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swiftdata",
        abstract: "Read SwiftData schemas (@Model, VersionedSchema, SchemaMigrationPlan) from Swift sources.",
        discussion: """
            Prints each schema's version identifier and entity version hashes, as SwiftData writes them \
            into a store's NSStoreModelVersionHashes, each migration plan's stages, and what the reader \
            could not resolve, at file:line:column. Exits 65 when some schema could not be read.

            Examples:
              instar model swiftdata MyApp/Models
              instar model swiftdata MyApp/Models --classes Trip,Tag     # Schema([Trip.self, Tag.self])
            """
    )

    @Argument(help: "Swift files or folders (read recursively).")
    var sources: [String]

    @Option(help: "Build the unversioned schema of these @Model classes (comma-separated), as Schema([...]) would.")
    var classes: String?

    @OptionGroup var output: FormatOption
    var format: OutputFormat { output.format }

    func run() throws {
        let read: SwiftDataSources
        do {
            read = try SwiftDataReader().read(paths: sources)
        } catch {
            printError(error.description)
            throw InstarExit.unreadable
        }
        var schemas = read.schemas
        var diagnostics = read.diagnostics
        if let classes {
            do {
                schemas.append(try read.schema(ofModelClasses: classes.split(separator: ",").map(String.init)))
            } catch {
                diagnostics += error.diagnostics
            }
        }
        switch format {
        case .json: printOut(jsonText(SwiftDataSourcesReport(schemas: schemas, plans: read.plans, diagnostics: diagnostics)))
        case .text: printOut(text(schemas, read.plans, files: read.files.count))
        }
        for diagnostic in diagnostics { printError(ErrorHints.text(diagnostic)) }
        if diagnostics.contains(where: { $0.severity == .error }) { throw InstarExit.invalidInput }
    }

    private func text(_ schemas: [SwiftDataSchema], _ plans: [SwiftDataMigrationPlan], files: Int) -> String {
        var lines = ["\(files) file(s), \(schemas.count) schema(s), \(plans.count) migration plan(s)"]
        for schema in schemas {
            lines.append("schema \(schema.name) \(schema.versionIdentifier)")
            let hashes = VersionHashes(model: schema.model)
            for name in hashes.entityHashes.keys.sorted(by: CoreDataOrder.precedes) {
                lines.append("  \(name)  \(hashes.entityHashes[name]!.base64EncodedString())")
            }
            lines.append("  versionChecksum  \(hashes.versionChecksum)")
        }
        for plan in plans {
            lines.append("plan \(plan.name): \(plan.schemas.joined(separator: " → "))")
            for stage in plan.stages {
                var line = "  \(stage.kind.rawValue) \(stage.fromVersion) → \(stage.toVersion)"
                if let will = stage.willMigrate { line += " willMigrate: \(will)" }
                if let did = stage.didMigrate { line += " didMigrate: \(did)" }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }
}
