/// Where a large source file is cut into pieces that are parsed, and kept, one by one.
///
/// A syntax tree takes about 50 bytes of memory per byte of source, and the reader keeps the trees its
/// declarations point into: one file of 3,000 `VersionedSchema`s (5.3 MB) held 505 MB. Cut at the top-level
/// declarations, each piece is a tree of its own that ``SyntaxTreeCache`` can drop and parse again.
///
/// A cut is only made where parsing the pieces apart gives the trees parsing the whole file gives: at the
/// start of a line outside every bracket, comment, string literal and `#if` block, that begins a declaration
/// (an attribute, a modifier, a declaration keyword, or a comment above one) right after a line ending in
/// `}`. A file smaller than ``minimumBytes`` is never cut, and the reader parses a file whole again when
/// any of its pieces has a syntax error, so a cut the rules got wrong costs time, never a different reading.
package struct SourceChunks {
    /// A piece: its text's byte range in the file, and the file's line it starts on.
    package struct Piece: Equatable {
        package let bytes: Range<Int>
        package let firstLine: Int
    }

    /// The least size of a piece, but the last: real schema files are smaller and stay whole.
    package static let defaultMinimumBytes = 64 << 10

    let minimumBytes: Int

    package init(minimumBytes: Int = Self.defaultMinimumBytes) {
        self.minimumBytes = max(1, minimumBytes)
    }

    /// The pieces of `text` (one piece when it nests too deeply to be read).
    package func pieces(of text: String) -> [Piece] {
        let bytes = Array(text.utf8)
        return pieces(of: bytes, topLevelLineStarts: SourceLimits.scan(bytes, path: "").topLevelLineStarts)
    }

    /// The pieces of a file, in order, covering it exactly; one piece when no cut is allowed.
    /// - Parameter topLevelLineStarts: from ``SourceLimits/scan(_:path:)``, in increasing order.
    func pieces(of bytes: [UInt8], topLevelLineStarts: [Int]) -> [Piece] {
        var pieces: [Piece] = []
        var start = 0
        for cut in topLevelLineStarts where cut - start >= minimumBytes && cut < bytes.count {
            guard Self.startsDeclaration(bytes, at: cut), Self.followsClosingBrace(bytes, at: cut) else { continue }
            pieces.append(Piece(bytes: start..<cut, firstLine: 0))
            start = cut
        }
        pieces.append(Piece(bytes: start..<bytes.count, firstLine: 0))
        return Self.numbered(pieces, in: bytes)
    }

    /// Each piece with the line it starts on, counted in one pass over the file.
    private static func numbered(_ pieces: [Piece], in bytes: [UInt8]) -> [Piece] {
        var line = 1, counted = 0
        return pieces.map { piece in
            for byte in bytes[counted..<piece.bytes.lowerBound] where byte == UInt8(ascii: "\n") { line += 1 }
            counted = piece.bytes.lowerBound
            return Piece(bytes: piece.bytes, firstLine: line)
        }
    }

    /// Words a top-level declaration can begin with (before its attributes, modifiers or keyword).
    private static let declarationStarts: [[UInt8]] = [
        "import", "enum", "struct", "class", "final", "extension", "actor", "protocol", "typealias", "func",
        "let", "var", "public", "private", "fileprivate", "internal", "open", "package", "nonisolated", "indirect",
    ].map { Array($0.utf8) }

    private static func startsDeclaration(_ bytes: [UInt8], at offset: Int) -> Bool {
        let first = bytes[offset]
        if first == UInt8(ascii: "@") { return true }
        if first == UInt8(ascii: "/"), offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "/") { return true }
        return declarationStarts.contains { word in
            let end = offset + word.count
            guard end < bytes.count, bytes[end] == UInt8(ascii: " ") else { return false }
            return bytes[offset..<end].elementsEqual(word)
        }
    }

    /// The last byte before `offset` that is not white space is a `}`: the declaration before has ended.
    private static func followsClosingBrace(_ bytes: [UInt8], at offset: Int) -> Bool {
        var index = offset - 1
        while index >= 0, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n")].contains(bytes[index]) {
            index -= 1
        }
        return index >= 0 && bytes[index] == UInt8(ascii: "}")
    }
}
