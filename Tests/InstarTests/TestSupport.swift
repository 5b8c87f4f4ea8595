import Foundation
import InstarModel
import InstarModelIO

/// Parses an Instar YAML model written inline in a test.
func model(_ yaml: String, name: String = "M") throws(ModelError) -> Model {
    try ModelFileReader.parse(yaml, file: "\(name).yaml", defaultName: name)
}

/// The package root, found from this file's path (Tests/InstarTests/TestSupport.swift).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// `../shared/corpus` beside the repository; CI always provides it.
let corpusRoot = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")

/// A fresh temporary directory, removed by the caller when done.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("instar-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
