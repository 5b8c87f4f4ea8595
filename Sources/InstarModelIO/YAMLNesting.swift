import InstarModel

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
enum YAMLNesting {
    /// Far above any real file, far below the depth that exhausts the stack.
    static let maximumDepth = 400

    /// The first line whose estimated nesting exceeds ``maximumDepth``, with that estimate.
    static func tooDeep(_ text: String) -> (line: Int, depth: Int)? {
        var flow = 0
        var line = 1
        var indent = 0
        var compact = 0
        var atLineStart = true
        var quote: UInt8? = nil
        var escaped = false
        var previous: UInt8 = 0x0A
        var inComment = false
        var bytes = text.utf8.makeIterator()
        var pending = bytes.next()
        while let byte = pending {
            let next = bytes.next()
            defer {
                previous = byte
                pending = next
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
                    if indent + compact + flow > maximumDepth { return (line, indent + compact + flow) }
                    continue
                }
                atLineStart = byte == 0x20
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
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                // A quote opens a quoted scalar only where a scalar may start; `it's` is plain text.
                if [0x20, 0x09, 0x0A, UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: ","), UInt8(ascii: ":")]
                    .contains(previous)
                {
                    quote = byte
                }
            case UInt8(ascii: "#") where previous == 0x20 || previous == 0x0A || previous == 0x09: inComment = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                flow += 1
                if indent + compact + flow > maximumDepth { return (line, indent + compact + flow) }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): flow = max(0, flow - 1)
            default: break
            }
            if indent + compact + flow > maximumDepth { return (line, indent + compact + flow) }
        }
        return nil
    }

    /// The problem to report for text that nests too deeply.
    static func problem(file: String, line: Int, depth: Int) -> ModelProblem {
        ModelProblem(
            .syntax,
            "the text nests about \(depth) levels deep (indentation, '- ' items and brackets), more than the "
                + "\(maximumDepth) Instar reads",
            location: SourceLocation(file: file, line: line),
            hint: "a model, plan or mapping file nests a few levels; this one is damaged or generated")
    }
}
