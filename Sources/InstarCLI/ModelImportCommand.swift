import ArgumentParser
import Foundation
@_spi(Layouts) import Instar
import InstarAdoption

/// `instar model import --store <db>`: a model file describing an existing SQLite database as it is.
struct ModelImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Write a model file (sql layout) that describes an existing SQLite database exactly.",
        discussion: """
            Tables become entities, columns attributes (declared type, NOT NULL, DEFAULT), foreign keys \
            to-one relationships with their inverses, link tables (two foreign keys forming the primary \
            key, nothing else) many-to-many relationships; unique constraints and indexes are kept. \
            Names the sql layout would spell differently are kept with naming keys (table:, \
            primaryKey:, column:, columnType:, joinTable:, name:).

            What a model cannot express (views, triggers, CHECK constraints, generated columns, WITHOUT \
            ROWID, composite keys that are not link tables, non-integer primary keys, expression or \
            partial indexes) is kept as raw SQL under 'raw:' and listed on standard error, each with \
            whether it blocks migrations. The database is opened read-only, and must be a regular file. \
            A column whose declared type is not a SQLite type name (words and an optional (n) or (n, m); \
            SQLite also accepts quoted text there, which a model would write into SQL) is refused, \
            naming the table and column.

            --output never writes over the database itself, through a symbolic link, into a FIFO or a \
            device, or over an existing file unless --force is given (exit 65, nothing written).

            Example:
              instar model import --store app.sqlite --name "App 1" --output models/v1.yaml
              instar store create models/v1.yaml --store /tmp/copy.sqlite --layout sql
              instar inspect --store app.sqlite --model models/v1.yaml --layout sql
            """
    )

    @Option(help: "The SQLite database to describe.")
    var store: String

    @Option(help: "The version name written into the model (default: the database's file name).")
    var name: String?

    @Option(help: "Model file format: yaml or json.")
    var format: ModelFileFormat = .yaml

    @Option(help: "Write the model to this file instead of standard output (it must not exist, unless --force).")
    var output: String?

    @Flag(help: "Replace an existing regular file at --output (never the database itself, a link or a device).")
    var force = false

    func run() throws {
        // Refuse an impossible --output before the database is read (and before any output is made).
        if let output { try checkOutputTarget(output, inputs: [store], force: force) }
        let versionName = name ?? URL(fileURLWithPath: store).deletingPathExtension().lastPathComponent
        let imported: ImportedModel
        do {
            imported = try SchemaImporter.importModel(path: store, name: versionName)
        } catch {
            throw fail(error)
        }
        let summary = AdoptionSummary(imported.notes)
        let text: String
        switch format {
        case .yaml:
            let file = URL(fileURLWithPath: store).lastPathComponent
            text = ModelFileWriter.yaml(imported.model, comment: summary.comment(store: file))
        case .json: text = ModelFileWriter.json(imported.model) + "\n"
        }
        if let output {
            try writeOutputFile(text, to: output, inputs: [store] + ["-wal", "-shm", "-journal"].map { store + $0 }, force: force)
        } else {
            printOut(text)
        }
        for line in summary.lines { printError(line) }
    }
}

enum ModelFileFormat: String, ExpressibleByArgument, CaseIterable {
    case yaml
    case json
}

/// The notes of an import, for standard error and the model file's header.
struct AdoptionSummary {
    let notes: [AdoptionNote]

    init(_ notes: [AdoptionNote]) { self.notes = notes }

    var lines: [String] {
        guard !notes.isEmpty else { return [] }
        let raw = notes.filter { $0.effect != .notKept }
        let blocking = notes.filter(\.blocksMigrations).count
        return [
            "\(raw.count) object(s) kept as raw SQL (\(blocking) blocking migrations), "
                + "\(notes.count - raw.count) detail(s) not kept:"
        ] + notes.map { "  " + $0.description }
    }

    func comment(store: String) -> String {
        var text = "Imported from \(store) by 'instar model import' (layout: sql)."
        if !notes.isEmpty { text += "\n" + lines.joined(separator: "\n") }
        return text
    }
}
