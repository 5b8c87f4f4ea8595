import ArgumentParser
@_spi(Layouts) import Instar

/// `instar diff <from> <to>`: every change between two versions, each inferable or not, with the reason.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two model versions and tell whether the step can be migrated in place.",
        discussion: """
            Entities and properties are matched by name and renaming identifier, as Core Data does. \
            Each change is classified with Core Data's lightweight-inference rules; a change that is \
            inferable only if the data allows it (for example optional → required without a default) \
            names the condition. Warnings point at likely mistakes Core Data would not mention, such as \
            a rename without a renaming identifier.

            Exits 0 whether or not the step is inferable; non-zero only when a model cannot be read.

            Example:
              instar diff Plans/garage/models/v1.yaml Plans/garage/models/v3.yaml
            """
    )

    @Argument(help: "The older model version.")
    var from: String

    @Argument(help: "The newer model version.")
    var to: String

    @OptionGroup var output: FormatOption
    var format: OutputFormat { output.format }

    func run() throws {
        let old = try loadModel(from)
        let new = try loadModel(to)
        let diff = ModelDiff(from: old, to: new)
        switch format {
        case .json: printOut(jsonText(diff))
        case .text: printOut(DiffRendering.text(diff))
        }
    }
}
