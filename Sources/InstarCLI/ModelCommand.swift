import ArgumentParser
@_spi(Layouts) import Instar

/// `instar model …`: commands about one model version.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Inspect a model version, or import one from an existing database.",
        subcommands: [HashesCommand.self, ModelImportCommand.self, SwiftDataCommand.self, ModelExportCommand.self]
    )
}

/// `instar model hashes <model>`: Core Data's version identity of a model.
struct HashesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hashes",
        abstract: "Print the Core Data version hashes of a model version.",
        discussion: """
            Prints each entity's version hash (NSStoreModelVersionHashes), the model's versionChecksum \
            and NSStoreModelVersionHashesDigest, computed bit-exactly as Core Data does. Two versions \
            with the same hashes are the same version to Core Data.

            Example:
              instar model hashes Plans/garage/models/v2.yaml --format json
            """
    )

    @Argument(help: "A model file, .xcdatamodel folder or .xcdatamodeld bundle.")
    var model: String

    @OptionGroup var output: FormatOption
    var format: OutputFormat { output.format }

    func run() throws {
        let model = try loadModel(model)
        let identity = ModelIdentity(model)
        let hashes = identity.hashes
        switch format {
        case .json:
            printOut(jsonText(identity))
        case .text:
            var lines = ["model \(identity.model)"]
            if let identifier = identity.versionIdentifier, !identifier.isEmpty {
                lines.append("identifier \(identifier)")
            }
            let width = hashes.entityHashes.keys.map(\.count).max() ?? 0
            for name in hashes.entityHashes.keys.sorted(by: CoreDataOrder.precedes) {
                let padded = name.padding(toLength: width, withPad: " ", startingAt: 0)
                lines.append("  \(padded)  \(hashes.entityHashes[name]!.base64EncodedString())")
            }
            lines.append("versionChecksum      \(hashes.versionChecksum)")
            lines.append("versionHashesDigest  \(hashes.versionHashesDigest)")
            printOut(lines.joined(separator: "\n"))
        }
    }
}
