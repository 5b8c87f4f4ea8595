import Foundation
import Testing
import InstarTestSupport

/// Golden files: text a test produces, compared byte for byte with a file kept in the repository under
/// `Tests/Fixtures/Golden/`.
///
/// To regenerate after a deliberate change of wording or format, run
///
///     INSTAR_UPDATE_GOLDEN=1 swift test --filter Golden
///
/// and review `git diff Tests/Fixtures/Golden` before committing it: the diff is the change
/// users and scripts will see. (`INSTAR_REGENERATE_GOLDEN=1`, the older name, works too.)
enum GoldenFile {
    static let folder = packageRoot.appendingPathComponent("Tests/Fixtures/Golden")

    /// Whether this run writes golden files instead of comparing with them.
    static var updating: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["INSTAR_UPDATE_GOLDEN"] == "1" || environment["INSTAR_REGENERATE_GOLDEN"] == "1"
    }

    /// Compares `text` with the golden file at `relativePath` (under ``folder``), or writes it when
    /// ``updating``. A missing golden file fails the test, with the text to review in the message.
    static func check(_ text: String, _ relativePath: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = folder.appendingPathComponent(relativePath)
        if updating {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            Issue.record(
                Comment(rawValue: "no golden file \(relativePath): run INSTAR_UPDATE_GOLDEN=1 swift test --filter Golden\n\(text)"),
                sourceLocation: sourceLocation)
            return
        }
        if text != expected {
            let difference = firstDifference(expected, text)
            Issue.record(
                Comment(rawValue: "differs from the golden file \(relativePath) (if the change is deliberate, regenerate with "
                    + "INSTAR_UPDATE_GOLDEN=1 swift test --filter Golden and review the diff):\n\(difference)"),
                sourceLocation: sourceLocation)
        }
    }

    /// The first line that differs, with its number: a readable failure for long files.
    static func firstDifference(_ expected: String, _ actual: String) -> String {
        let old = expected.components(separatedBy: "\n")
        let new = actual.components(separatedBy: "\n")
        for index in 0..<max(old.count, new.count) {
            let a = index < old.count ? old[index] : "<end of file>"
            let b = index < new.count ? new[index] : "<end of file>"
            if a != b { return "line \(index + 1):\n  golden: \(a)\n  now:    \(b)" }
        }
        return "(same lines; line endings differ)"
    }
}

/// What varies between runs of the same command and nothing else: each rule replaces one kind of value
/// by a placeholder, so a golden file pins the words and the numbers that are facts (row counts, costs,
/// hashes, SQL) and never a machine's paths, clock or speed.
///
/// - the package's folder → `$ROOT`, the test's temporary folder → `$TMP`;
/// - UUIDs (a run's identifier) → `<uuid>`, and the 8-digit prefix `migrate` shows → `<run>`;
/// - the owner a journal names, `instar pid 123 on host` → `instar pid <pid> on <host>`;
/// - ISO 8601 timestamps (the journal's) → `<time>`;
/// - durations: `0.012 s`, `0.01s`, JSON `"seconds" : 0.012` and the journal's per-step `timings` → `<s>`;
/// - disk peaks `instar test` samples while a migration runs (`+12.0 KiB disk`, `"extraBytes"`) → `<bytes>`,
///   and the same in its Markdown table.
struct GoldenNormaliser {
    var temporaryFolder: URL?

    func normalise(_ text: String) -> String {
        var text = text
        if let temporaryFolder {
            // The folder as made and as resolved (/tmp may be a link).
            for path in Set([temporaryFolder.path, temporaryFolder.resolvingSymlinksInPath().path]) {
                text = text.replacingOccurrences(of: path, with: "$TMP")
            }
        }
        text = text.replacingOccurrences(of: packageRoot.path, with: "$ROOT")
        let rules: [(String, String)] = [
            (#"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"#, "<uuid>"),
            (#"\(run [0-9A-Fa-f]{8}\)"#, "(run <run>)"),
            // A journal's or lease's owner: this process and this machine.
            (#"instar pid \d+ on [^"\s]+"#, "instar pid <pid> on <host>"),
            (#"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})"#, "<time>"),
            (#"\b\d+\.\d+ ?s\b"#, "<s> s"),
            (#"("seconds" : )[0-9.eE+-]+"#, "$1<s>"),
            // The journal's timings: "A → B" : seconds.
            (#"("[^"\n]* → [^"\n]*" : )[0-9.eE+-]+"#, "$1<s>"),
            (#"("extraBytes" : )\d+"#, "$1<bytes>"),
            (#"\+\d+(\.\d+)? (B|KiB|MiB|GiB) disk"#, "+<bytes> disk"),
            // instar test's Markdown row: | seconds | extra disk |.
            (#"\| <s> s \| \d+(\.\d+)? (B|KiB|MiB|GiB) \|"#, "| <s> s | <bytes> |"),
            (#"\| \d+\.\d{3} \| \d+(\.\d+)? (B|KiB|MiB|GiB) \|"#, "| <s> | <bytes> |"),
        ]
        for (pattern, template) in rules {
            text = text.replacingOccurrences(of: pattern, with: template, options: .regularExpression)
        }
        return text
    }
}
