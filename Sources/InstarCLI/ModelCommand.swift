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
        let hashes = VersionHashes(model: model)
        switch format {
        case .json:
            printOut(
                jsonText(
                    HashesJSON(
                        model: model.name, versionIdentifier: model.versionIdentifier, entities: hashes.base64EntityHashes,
                        versionChecksum: hashes.versionChecksum, versionHashesDigest: hashes.versionHashesDigest)))
        case .text:
            var lines = ["model \(model.name)"]
            if let identifier = model.versionIdentifier, !identifier.isEmpty {
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

/// `instar model hashes --format json`: Core Data's version identity of a model.
struct HashesJSON: Codable, Sendable, Equatable {
    var model: String
    var versionIdentifier: String?
    /// Each entity's version hash, base64.
    var entities: [String: String]
    var versionChecksum: String
    var versionHashesDigest: String
}

