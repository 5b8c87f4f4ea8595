@_spi(Layouts) import InstarModel
import SwiftParser
import SwiftSyntax

/// A source file, or a piece of a large one (``SourceChunks``), whose syntax tree is parsed when it is needed
/// and may be dropped in between (``SyntaxTreeCache``).
///
/// Declarations keep a ``NodeReference`` into their piece rather than the node itself: a node keeps its whole
/// tree alive, and the trees of a large history outweigh everything else the reader holds. Parsing the same
/// text with the same parser gives the same tree, so a reference finds its node again in a new parse.
///
/// Not thread-safe: the reader and the sources it returns are used from one thread at a time.
final class ParsedFile {
    /// The path diagnostics show.
    let path: String
    /// The file's line this piece starts on (1 for a whole file); pieces start at the beginning of a line,
    /// so columns need no offset.
    let firstLine: Int
    private let text: String
    private let cache: SyntaxTreeCache
    /// The tree while the cache holds it, and the nodes found in it by reference.
    fileprivate var held: (tree: SourceFileSyntax, found: [SyntaxIdentifier.SyntaxIndexInTree: Syntax])?
    fileprivate var lastUse = 0
    private var converter: SourceLocationConverter?

    init(path: String, text: String, firstLine: Int = 1, cache: SyntaxTreeCache) {
        self.path = path
        self.text = text
        self.firstLine = firstLine
        self.cache = cache
    }

    deinit { cache.forget(byteCount: byteCount, wasHeld: held != nil) }

    /// The size of the piece's text, which is what the cache counts.
    var byteCount: Int { text.utf8.count }

    /// The piece's syntax tree, parsed again if the cache dropped it.
    var tree: SourceFileSyntax {
        if let held {
            lastUse = cache.tick()
            return held.tree
        }
        let tree = Parser.parse(source: text)
        if converter == nil { converter = SourceLocationConverter(fileName: path, tree: tree) }
        held = (tree, [:])
        lastUse = cache.tick()
        cache.admit(self)
        return tree
    }

    /// Where `node`, a node of this piece's tree, starts (after its leading trivia) in the file.
    func location(of node: some SyntaxProtocol) -> SourceLocation {
        if converter == nil { _ = tree }
        let place = converter!.location(for: node.positionAfterSkippingLeadingTrivia)
        return SourceLocation(file: path, line: place.line + firstLine - 1, column: place.column)
    }

    /// A reference to `node`, a node of this piece's tree, that outlives the tree.
    func reference<Node: SyntaxProtocol>(to node: Node) -> NodeReference<Node> {
        NodeReference(index: node.id.indexInTree, kind: node.kind)
    }

    /// The node `reference` was made from, in the tree held now.
    func node<Node: SyntaxProtocol>(_ reference: NodeReference<Node>) -> Node {
        let tree = self.tree
        if let found = held?.found[reference.index], let node = found.as(Node.self) { return node }
        guard let id = SyntaxIdentifier.fromIndexInTree(reference.index, relativeToRoot: tree),
            let syntax = tree.node(at: id), syntax.kind == reference.kind, let node = syntax.as(Node.self)
        else {
            preconditionFailure("\(path):\(firstLine): parsing the same text gave a different tree")
        }
        held?.found[reference.index] = syntax
        return node
    }

    fileprivate func drop() { held = nil }
}

/// Where a node is in its piece's tree: its index in a depth-first walk, valid in every parse of the same text.
struct NodeReference<Node: SyntaxProtocol> {
    fileprivate let index: SyntaxIdentifier.SyntaxIndexInTree
    /// The node's own kind (a `DeclSyntax` reference knows whether it is an extension, say).
    let kind: SyntaxKind
}

/// Keeps the most recently used pieces' trees while their text is within ``limit`` bytes, and drops the
/// least recently used beyond it (always keeping the newest).
///
/// At about 50 bytes of tree per byte of text, the default keeps some 50 MB of trees, more than the
/// schema sources of any app in the corpus need at once, so they are parsed once; a history larger than
/// that is parsed again piece by piece as schemas are built, in source order.
package final class SyntaxTreeCache {
    package static let defaultLimit = 1 << 20

    let limit: Int
    private var clock = 0
    private var heldBytes = 0
    private var pieces: [Weak] = []

    /// How many pieces' trees are held now.
    package var heldPieces: Int { pieces.filter { $0.file?.held != nil }.count }

    private struct Weak {
        weak var file: ParsedFile?
    }

    package init(limit: Int = SyntaxTreeCache.defaultLimit) {
        self.limit = limit
    }

    fileprivate func tick() -> Int {
        clock += 1
        return clock
    }

    fileprivate func admit(_ file: ParsedFile) {
        heldBytes += file.byteCount
        pieces.append(Weak(file: file))
        while heldBytes > limit {
            pieces.removeAll { $0.file?.held == nil }
            guard let oldest = pieces.filter({ $0.file !== file }).min(by: { $0.file!.lastUse < $1.file!.lastUse })?.file
            else { return }
            oldest.drop()
            heldBytes -= oldest.byteCount
        }
    }

    fileprivate func forget(byteCount: Int, wasHeld: Bool) {
        if wasHeld { heldBytes -= byteCount }
    }
}
