import ArgumentParser
import Foundation
@_spi(Layouts) import Instar

/// `instar mapping <file.xcmappingmodel | file.mapping.yaml> [--model <bundle>] [--plan <plan>]`: what a
/// Core Data mapping model does.
struct MappingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mapping",
        abstract: "Show what a Core Data mapping model does, entity by entity, and its SQL.",
        discussion: """
            Reads an .xcmappingmodel (Xcode's source form) and, with --model, matches it to two versions \
            of the bundle by their entity hashes, as Core Data does, filling in the expressions Xcode \
            generates itself ($source.<name> for attributes of the same name, relationships through the \
            other entity mappings). For each entity mapping: its kind, source and destination, filter, \
            and per property the expression and the SQL Instar runs for it — or the hook it needs and \
            why (a custom NSEntityMigrationPolicy, FUNCTION($entityPolicy, …), FETCH, a key path SQL \
            cannot follow). Nothing is dropped silently: an expression is either SQL or a named hook.

            An Instar mapping file (.mapping.yaml/.mapping.json) names its two versions; give the \
            versions with --plan (the plan's versions) or --model, and they are taken by name.

            Exit status 0 when the mapping model was read (and matched, with --model); 1 when it matches \
            no pair of the bundle's versions (the closest pair is named); 65/66 when a file cannot be read.

            Example:
              instar mapping 'Moody 4-Moody 5.xcmappingmodel' --model Moody.xcdatamodeld
              instar mapping Migrations/V2toV3.xcmappingmodel --model App.xcdatamodeld --format json
              instar mapping Plans/school-classes/v2-to-v3.mapping.yaml --plan Plans/school-classes/plan.yaml
            """
    )

    @Argument(help: "The mapping model: an .xcmappingmodel folder or its xcmapping.xml, or an Instar .mapping.yaml/.mapping.json.")
    var file: String

    @Option(
        name: .customLong("model"),
        help: "The model bundle (.xcdatamodeld or .momd) whose versions the mapping model is matched to (repeatable).")
    var models: [String] = []

    @Option(help: "A plan whose versions the mapping model is matched to (instead of --model).")
    var plan: String?

    @OptionGroup var output: FormatOption
    var format: OutputFormat { output.format }

    func run() throws {
        let url = URL(fileURLWithPath: file)
        let mappingFile: MappingFile?
        let mapping: MappingModel
        do {
            if MappingFileReader.isMappingFile(url) {
                mappingFile = try MappingFileReader.read(path: file)
                mapping = mappingFile!.model
            } else {
                mappingFile = nil
                mapping = try XcodeMappingReader.read(url: url)
            }
        } catch {
            printError(error.description)
            if case .unreadable = error { throw InstarExit.unreadable }
            throw InstarExit.invalidInput
        }
        var resolved = mapping
        var match: MappingVersionMatch?
        var resolver: any MappingColumnResolver = ModelColumnResolver(model: try emptyModel())
        var versions = try models.flatMap(loadModels)
        if let plan { versions += try loadPlan(plan).versions }
        if let mappingFile, !versions.isEmpty {
            do {
                let origin: VersionSource = plan == nil ? .models : models.isEmpty ? .plan : .modelsAndPlan
                let found = try mappingFile.resolved(among: versions, from: origin)
                resolved = found.model
                resolver = ModelColumnResolver(model: found.source)
                match = MappingVersionMatch(
                    source: found.source, destination: found.destination, basis: .named, alternatives: [])
            } catch {
                printError(error.description)
                throw InstarExit.invalidInput
            }
        } else if !versions.isEmpty {
            do {
                let found = try MappingVersionMatcher.match(mapping, versions: versions)
                resolved = mapping.resolved(source: found.source, destination: found.destination)
                resolver = ModelColumnResolver(model: found.source)
                match = found
            } catch {
                printError(error.description + "\n  hint: give the bundle the mapping model was made for with --model")
                throw InstarExit.failure
            }
        }
        let report = MappingReport(mapping: resolved, match: match, resolver: resolver)
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            printOut(String(decoding: try encoder.encode(report), as: UTF8.self))
        case .text:
            printOut(report.renderText())
            if versions.isEmpty {
                printOut("(without --model or --plan the versions are not known: SQL names the model's own properties)")
            }
        }
    }

    private func emptyModel() throws -> Model {
        try Model(name: "unknown", entities: [])
    }
}
