// What every test target shares: where the package and the real-world corpus are, inline models,
// temporary directories. It depends on the model layers only, so that a layer's test target sees no
// more of Instar than that layer does.
import Foundation
import Testing
@_spi(Layouts) import InstarModel
import InstarModelIO

/// Parses an Instar YAML model written inline in a test.
package func model(_ yaml: String, name: String = "M") throws(ModelError) -> Model {
    try ModelFileReader.parse(yaml, file: "\(name).yaml", defaultName: name)
}

/// The package root, found from this file's path (Tests/InstarTestSupport/TestSupport.swift).
package let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// `../shared/corpus` beside the repository; CI always provides it.
package let corpusRoot = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")

/// Whether the real-world corpus is beside the repository. A fresh clone has none: the tests that read
/// it are skipped, and say so. `.ci/run` checks that the corpus is there before it runs the tests.
package let corpusIsPresent = FileManager.default.fileExists(atPath: corpusRoot.path)

/// Whether the peer benchmark's generator is beside the repository (`../shared/bench`).
package let benchGeneratorIsPresent = FileManager.default.fileExists(
    atPath: packageRoot.deletingLastPathComponent().appendingPathComponent("shared/bench/make_store.py").path)

extension Trait where Self == ConditionTrait {
    /// Runs the test only with `../shared/corpus` beside the repository (real Core Data models and
    /// stores of public apps; CI provides it). Skipped otherwise, with this reason in the output.
    package static var needsCorpus: Self {
        .enabled(
            if: corpusIsPresent,
            "skipped: needs the real-world corpus at ../shared/corpus beside the repository (CI provides it)")
    }
}

/// A fresh temporary directory, removed by the caller when done.
package func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("instar-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
