import Foundation
import InstarSwiftData
import InstarSwiftDataTestSupport
import InstarTestSupport
import SwiftParser
import SwiftSyntax
import Testing

/// `trimmedText` cuts a node's text from the tree's bytes where swift-syntax's `trimmedDescription` builds a
/// trimmed copy first: the reader's names and types depend on the two being the same string for every node,
/// those next to syntax errors (missing and unexpected tokens) included.
@Suite struct TrimmedTextTests {
    /// The nodes of `text` whose two texts differ, as `kind: trimmedText ≠ trimmedDescription`.
    static func differences(in text: String) -> (nodes: Int, differing: [String]) {
        var stack: [Syntax] = [Syntax(Parser.parse(source: text))]
        var nodes = 0
        var differing: [String] = []
        while let node = stack.popLast() {
            nodes += 1
            if node.trimmedText != node.trimmedDescription {
                differing.append("\(node.kind): \(node.trimmedText.debugDescription) ≠ \(node.trimmedDescription.debugDescription)")
            }
            stack.append(contentsOf: node.children(viewMode: .all))
        }
        return (nodes, differing)
    }

    @Test(arguments: [
        SourceChunksTests.history(3),
        "  /// doc\n  @Model final class Item { var a: Int = 0 // trailing\n }\n\n",
        "enum S: VersionedSchema {",  // missing brace
        "@Model final class { var = }",  // missing name and pattern
        "struct A { func f( }\nlet x = [1, 2,, 3]\n",  // unexpected tokens
        "/* only a comment */",
        "",
        "let s = \"\"\"\n  text \\(value) more\n  \"\"\" // after\n",
        "#if DEBUG\n@Model final class D {}\n#else\n#endif\n",
    ])
    func everyNodeAgrees(_ text: String) {
        let (nodes, differing) = Self.differences(in: text)
        #expect(nodes > 0)
        #expect(differing.isEmpty, "\(differing.prefix(5))")
    }
}

@Suite(.needsCorpus) struct TrimmedTextCorpusTests {
    @Test func everyNodeOfTheCorpusSourcesAgrees() throws {
        let root = corpusRoot.appendingPathComponent("swiftdata")
        let files = try SwiftDataCorpus.swiftFiles([root])
        #expect(files.count >= 300)
        var nodes = 0
        for file in files {
            let result = TrimmedTextTests.differences(in: file.text)
            nodes += result.nodes
            #expect(result.differing.isEmpty, "\(file.path): \(result.differing.prefix(3))")
        }
        print("trimmedText equals trimmedDescription on \(nodes) nodes of \(files.count) corpus files")
    }
}
