import ArgumentParser
import Foundation
import Instar

/// `instar inspect --store <db> [--model <model>…]`: which version a store is at, and how Instar knows.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Tell which version a store is at, and how.",
        discussion: """
            Reads the store without writing. The version comes from the store's metadata (entity \
            hashes) when it has some; otherwise the tables and columns are compared with each given \
            model version. When nothing matches, the closest version is named with the exact \
            differences (missing or extra tables, columns, types, indexes).

            Exit status 0 when the store matches a version exactly, 1 when it does not (drift or \
            unknown version), 65/66 when an input cannot be read.

            Example:
              instar inspect --store /tmp/garage.sqlite --model Plans/garage/models/v1.yaml --model Plans/garage/models/v2.yaml
              instar inspect --store App.sqlite --model App.xcdatamodeld
            """
    )

    @Option(help: "Path of the store.")
    var store: String

    @Option(
        name: .customLong("model"),
        help: "A candidate model version (repeatable); an .xcdatamodeld bundle stands for all its versions.")
    var models: [String] = []

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let candidates = try models.flatMap(loadModels)
        let opened = try openStore(store, readOnly: true)
        let detection: VersionDetection
        let counts: [String: Int]
        do {
            detection = try opened.detectVersion(among: candidates)
            counts = try opened.rowCounts()
        } catch {
            throw fail(error)
        }
        switch format {
        case .json:
            var object: [String: Any] = [
                "layout": detection.layout,
                "version": detection.version?.name ?? NSNull(),
                "matchedBy": detection.matchedBy?.rawValue ?? NSNull(),
                "drift": detection.drift.map(\.description),
                "rowCounts": counts,
            ]
            if let name = detection.metadataVersionName { object["metadataVersion"] = name }
            if let closest = detection.closest { object["closest"] = closest }
            printOut(jsonText(object))
        case .text:
            var lines = ["store \(store) (\(detection.layout) layout)"]
            if let version = detection.version {
                let how = detection.matchedBy == .metadata ? "its metadata's entity hashes" : "its tables and columns"
                lines.append("version \(version.name), known from \(how)")
            } else {
                lines.append("version unknown" + (detection.metadataVersionName.map { " (metadata says '\($0)', which no given model matches)" } ?? ""))
                if let closest = detection.closest { lines.append("closest version: \(closest)") }
            }
            if !detection.drift.isEmpty {
                lines.append("drift:")
                lines += detection.drift.map { "  - \($0)" }
            }
            lines.append("rows: " + counts.keys.sorted().map { "\($0) \(counts[$0]!)" }.joined(separator: ", "))
            printOut(lines.joined(separator: "\n"))
        }
        if !detection.isExactMatch { throw InstarExit.failure }
    }
}
