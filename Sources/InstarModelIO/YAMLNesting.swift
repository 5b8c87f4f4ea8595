@_spi(Layouts) import InstarModel

/// A bound on how deeply YAML (or JSON) text nests, checked before Yams reads it.
///
/// Yams composes nodes recursively, one native stack frame chain per level, so `[[[[…` or `- - - …`
/// a few tens of thousands deep in a model, plan or mapping file would overflow the stack and kill
/// the process. No real file nests more than a dozen levels; this refuses anything estimated past
/// ``maximumDepth`` with the line where it happens.
///
/// The estimate, per line, is the indentation (each block level needs at least one more column),
/// plus compact block indicators at the start of the line (`- - x`, `? `), plus open flow brackets
/// (`[`, `{`) outside quotes and comments. It is an upper bound up to a factor of two (a block
/// sequence may sit at its parent key's indentation), never an underestimate, and costs one pass.
///
/// Aliases (`*name`) nest and grow a document as much as written text does, without the text: ten
/// lines of `&a` anchors each aliasing the one before nine times (an "alias bomb") expand to 10⁹
/// nodes, and a chain of anchors each wrapping the previous one in brackets nests thousands deep in a
/// few lines; Yams composes them, hashes aliased mapping keys and readers walk them, and the process
/// dies. So the same pass bounds what aliases expand to, before Yams sees the text: an anchored node
/// ends before the first alias to it (YAML registers an anchor when its node is complete), so the
/// node is at most the text between the anchor and that alias, expanded, and at most as deep as the
/// deepest point there. Each alias counts that size and depth where it stands: the expanded size must
/// stay under ``maximumExpandedBytes`` and the depth under ``maximumDepth``. Both are upper bounds;
/// a file without aliases is measured exactly as before.
enum YAMLNesting {
    /// Far above any real file, far below the depth that exhausts the stack.
    static let maximumDepth = 400
    /// What a file may expand to through its aliases, counted in bytes of text: far above any real
    /// model, plan or mapping file (a few hundred KiB), far below what exhausts memory or time.
    static let maximumExpandedBytes = 32 << 20

    /// Why a text is refused: where, and how deep or how large it gets there.
    enum Excess: Equatable {
        case depth(line: Int, depth: Int)
        case expandedSize(line: Int, bytes: Int)
    }

    /// The first line whose estimated nesting exceeds ``maximumDepth``, with that estimate.
    static func tooDeep(_ text: String) -> (line: Int, depth: Int)? {
        switch excess(text) {
        case .depth(let line, let depth)?: (line, depth)
        default: nil
        }
    }

    /// The first place where the text, its aliases expanded, nests deeper than ``maximumDepth`` or grows
    /// past ``maximumExpandedBytes``.
    static func excess(_ text: String) -> Excess? {
        let bytes = Array(text.utf8)
        var flow = 0
        var line = 1
        var indent = 0
        var compact = 0
        var atLineStart = true
        var quote: UInt8? = nil
        var escaped = false
        var previous: UInt8 = 0x0A
        var inComment = false
        // Aliases: the expanded size so far, each anchor's definitions (where, expanded size and depth
        // there, and once an alias used it, its bounds), and the deepest points seen, as a stack whose
        // depths decrease, so that the deepest point since any position is a binary search away.
        var expanded = 0
        var anchors: [ArraySlice<UInt8>: [Anchor]] = [:]
        var deepest: [(position: Int, depth: Int)] = []
        func note(_ depth: Int, at position: Int) {
            while let last = deepest.last, last.depth <= depth { deepest.removeLast() }
            deepest.append((position, depth))
        }
        func deepestSince(_ position: Int) -> Int {
            var low = 0
            var high = deepest.count
            while low < high {
                let middle = (low + high) / 2
                if deepest[middle].position < position { low = middle + 1 } else { high = middle }
            }
            return low < deepest.count ? deepest[low].depth : 0
        }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let next: UInt8? = index + 1 < bytes.count ? bytes[index + 1] : nil
            defer {
                previous = byte
                index += 1
                expanded += 1
            }
            if byte == 0x0A {
                line += 1
                (indent, compact, atLineStart, inComment) = (0, 0, true, false)
                continue
            }
            if inComment { continue }
            if atLineStart {
                if byte == 0x20 {
                    indent += 1
                    continue
                }
                // `- ` or `? ` opening a compact nested node; a lone `-` ends the line.
                if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "?"), next == 0x20 || next == 0x0A || next == nil {
                    compact += 1
                    if indent + compact + flow > maximumDepth { return .depth(line: line, depth: indent + compact + flow) }
                    note(indent + compact + flow, at: index)
                    continue
                }
                atLineStart = false
                note(indent + compact + flow, at: index)
            }
            if let open = quote {
                if escaped {
                    escaped = false
                } else if open == UInt8(ascii: "\""), byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == open {
                    quote = nil
                }
                continue
            }
            let here = indent + compact + flow
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                // A quote opens a quoted scalar only where a scalar may start; `it's` is plain text.
                if Self.tokenStarts.contains(previous) { quote = byte }
            case UInt8(ascii: "#") where previous == 0x20 || previous == 0x0A || previous == 0x09: inComment = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                flow += 1
                if indent + compact + flow > maximumDepth { return .depth(line: line, depth: indent + compact + flow) }
                note(indent + compact + flow, at: index)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): flow = max(0, flow - 1)
            case UInt8(ascii: "&") where Self.tokenStarts.contains(previous):
                let name = Self.anchorName(bytes, after: index)
                guard !name.isEmpty else { break }
                note(here, at: index)
                anchors[name, default: []].append(Anchor(position: index, expanded: expanded, depth: here))
            case UInt8(ascii: "*") where Self.tokenStarts.contains(previous):
                let name = Self.anchorName(bytes, after: index)
                guard !name.isEmpty, var definitions = anchors[name] else { break }
                // The alias stands for the latest definition before it, or (shadowed names) an earlier
                // one: count the largest and deepest of them.
                var size = 0
                var depth = 0
                for number in definitions.indices {
                    if definitions[number].bound == nil {
                        definitions[number].bound = (
                            expanded - definitions[number].expanded,
                            max(0, deepestSince(definitions[number].position) - definitions[number].depth)
                        )
                    }
                    size = max(size, definitions[number].bound!.size)
                    depth = max(depth, definitions[number].bound!.depth)
                }
                anchors[name] = definitions
                expanded += size
                if expanded > maximumExpandedBytes { return .expandedSize(line: line, bytes: expanded) }
                if here + depth > maximumDepth { return .depth(line: line, depth: here + depth) }
                note(here + depth, at: index)
            default: break
            }
            if indent + compact + flow > maximumDepth { return .depth(line: line, depth: indent + compact + flow) }
        }
        return nil
    }

    /// Where a quoted scalar, an anchor or an alias may start: after a space, a line break, a flow
    /// indicator or a key's colon.
    static let tokenStarts: Set<UInt8> = [
        0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: ","), UInt8(ascii: ":"),
    ]

    /// An anchor's definition, and once an alias used it, the bounds of its node.
    struct Anchor {
        var position: Int
        var expanded: Int
        var depth: Int
        var bound: (size: Int, depth: Int)? = nil
    }

    /// The name after `&` or `*` at `index`: up to a space, a line break or a flow indicator.
    static func anchorName(_ bytes: [UInt8], after index: Int) -> ArraySlice<UInt8> {
        var end = index + 1
        while end < bytes.count,
            ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"),
              UInt8(ascii: "}")].contains(bytes[end])
        {
            end += 1
        }
        return bytes[(index + 1)..<end]
    }

    /// The problem to report for text that nests too deeply.
    static func problem(file: String, line: Int, depth: Int) -> ModelProblem {
        var problem = ModelProblem(
            .syntax,
            "the text nests about \(depth) levels deep (indentation, '- ' items, brackets and what aliases stand for), "
                + "more than the \(maximumDepth) Instar reads",
            location: SourceLocation(file: file, line: line),
            hint: "a model, plan or mapping file nests a few levels; this one is damaged or generated")
        problem.limit = .depth(depth, maximum: maximumDepth)
        return problem
    }

    /// The problem to report for text whose aliases expand past ``maximumExpandedBytes``.
    static func problem(file: String, line: Int, expandedBytes: Int) -> ModelProblem {
        var problem = ModelProblem(
            .syntax,
            "the aliases (*name) up to here expand the text to about \(expandedBytes >> 20) MiB, more than the "
                + "\(maximumExpandedBytes >> 20) MiB Instar reads",
            location: SourceLocation(file: file, line: line),
            hint: "an alias repeats its anchor's whole node; aliases of aliases multiply it (an 'alias bomb')")
        problem.limit = .expandedBytes(expandedBytes, maximum: maximumExpandedBytes)
        return problem
    }

    /// The problem for an excess.
    static func problem(file: String, _ excess: Excess) -> ModelProblem {
        switch excess {
        case .depth(let line, let depth): problem(file: file, line: line, depth: depth)
        case .expandedSize(let line, let bytes): problem(file: file, line: line, expandedBytes: bytes)
        }
    }
}
