import Foundation
@_spi(Layouts) import InstarModel
import SwiftSyntax

/// Limits that keep hostile or broken sources from crashing or stalling the reader, checked before
/// swift-syntax sees the text.
///
/// swift-syntax recurses once per nesting level and, for square brackets, looks ahead at every level
/// (an inline-array type `[3 of Int]` or an array literal?), so its time doubles with each nested `[`:
/// 16 levels of `[[…Int…]]` took 1.5 s in a debug build, 22 levels over a minute; 1,500 nested types or
/// 5,000 nested `#if` overflowed its stack. Real sources nest far less than these limits (the 308 Swift
/// files of the SwiftData corpus: at most 10 brackets, braces and parentheses open at once, 3 square
/// brackets, 1 `#if`), so a file beyond them is refused with the place where the limit was crossed.
enum SourceLimits {
    /// Brackets, braces and parentheses open at once.
    static let maximumNesting = 64
    /// Square brackets open at once (the parser's lookahead is exponential in these).
    static let maximumSquareNesting = 8
    /// `#if` blocks open at once.
    static let maximumConditionalNesting = 16
    /// Syntax-tree depth after parsing (long chains of postfix `?`, `.member` or operators build deep
    /// trees without nesting brackets); the reader's walks recurse once per level.
    static let maximumTreeDepth = 1_000

    /// The first place where `bytes` nest deeper than the limits, as an error diagnostic, or, when they do
    /// not, the offsets of the lines that start outside every bracket, comment, string literal and `#if`
    /// block: where ``SourceChunks`` may cut. Comments and string literals are skipped (an interpolation
    /// `\(…)` counts as code).
    static func scan(_ bytes: [UInt8], path: String) -> (problem: SwiftDataDiagnostic?, topLevelLineStarts: [Int]) {
        var scanner = NestingScanner(bytes: bytes)
        guard let (what, limit, line, column) = scanner.firstExcess() else { return (nil, scanner.topLevelLineStarts) }
        let problem = SwiftDataDiagnostic(
            .error,
            "\(what) nest deeper than \(limit) here: the reader does not parse this file (no schema source nests this deep; "
                + "a generated or corrupted file?); split the nested expression or type, or leave the file out",
            at: SourceLocation(file: path, line: line, column: column))
        return (problem, [])
    }

    /// The first node deeper than ``maximumTreeDepth`` in a parsed tree, found without recursion.
    static func deepestNodeProblem(in file: ParsedFile) -> SwiftDataDiagnostic? {
        var stack: [(Syntax, Int)] = [(Syntax(file.tree), 0)]
        while let (node, depth) = stack.popLast() {
            if depth > maximumTreeDepth {
                return SwiftDataDiagnostic(
                    .error,
                    "expressions or types nest deeper than \(maximumTreeDepth) syntax levels here: the reader does not read this file; split the expression or leave the file out",
                    at: file.location(of: node))
            }
            for child in node.children(viewMode: .sourceAccurate) { stack.append((child, depth + 1)) }
        }
        return nil
    }

    /// Runs `body` on a thread with a large stack and waits for it: swift-syntax and the reader's walks
    /// recurse per syntax level, and a debug build's frames are large; the limits above keep recursion
    /// well inside this stack.
    static func onLargeStack<T>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.value = body()
            done.signal()
        }
        thread.stackSize = 256 << 20
        thread.start()
        done.wait()
        return box.value!
    }

    private final class ResultBox<T>: @unchecked Sendable {
        var value: T?
    }
}

/// A byte scanner that knows Swift's comments and string literals well enough to count brackets and `#if`.
private struct NestingScanner {
    let bytes: [UInt8]
    var index = 0
    var line = 1
    var column = 1
    /// Offsets of the lines that start outside every bracket, comment, string literal and `#if`.
    private(set) var topLevelLineStarts: [Int] = []
    /// Inside a block comment or a string literal (not in an interpolation, which is code).
    private var inLiteral = false

    /// What is open: a bracket (its byte) or a string interpolation's parenthesis.
    private enum Open { case bracket(UInt8), interpolation(hashes: Int, multiline: Bool) }
    private var open: [Open] = []
    private var squares = 0
    private var conditionals = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private func peek(_ offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    private mutating func advance() {
        if bytes[index] == UInt8(ascii: "\n") {
            line += 1
            column = 1
            if !inLiteral, open.isEmpty, conditionals == 0 { topLevelLineStarts.append(index + 1) }
        } else {
            column += 1  // in UTF-8 bytes, as swift-syntax counts columns
        }
        index += 1
    }

    private func startsWith(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard index + utf8.count <= bytes.count else { return false }
        return Array(bytes[index..<(index + utf8.count)]) == utf8
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    /// (what, limit, line, column) of the first excess, or nil.
    mutating func firstExcess() -> (String, Int, Int, Int)? {
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/"):
                while let next = peek(), next != UInt8(ascii: "\n") { _ = next; advance() }
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
                skipBlockComment()
            case UInt8(ascii: "\""):
                if let excess = skipString() { return excess }
            case UInt8(ascii: "#") where startsRawString():
                if let excess = skipString() { return excess }
            case UInt8(ascii: "#"):
                let at = (line, column)
                if startsWith("#if"), !(peek(3).map(Self.isIdentifierByte) ?? false) {
                    conditionals += 1
                    if conditionals > SourceLimits.maximumConditionalNesting {
                        return ("`#if` blocks", SourceLimits.maximumConditionalNesting, at.0, at.1)
                    }
                } else if startsWith("#endif") {
                    conditionals = max(0, conditionals - 1)
                }
                advance()
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                open.append(.bracket(byte))
                if byte == UInt8(ascii: "[") { squares += 1 }
                if open.count > SourceLimits.maximumNesting {
                    return ("brackets, braces and parentheses", SourceLimits.maximumNesting, line, column)
                }
                if squares > SourceLimits.maximumSquareNesting {
                    return ("square brackets", SourceLimits.maximumSquareNesting, line, column)
                }
                advance()
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                advance()
                switch open.popLast() {
                case .bracket(let opened)?:
                    if opened == UInt8(ascii: "[") { squares -= 1 }
                case .interpolation(let hashes, let multiline)?:
                    // Back inside the string the interpolation belongs to.
                    if let excess = continueString(hashes: hashes, multiline: multiline) { return excess }
                case nil:
                    break
                }
            default:
                advance()
            }
        }
        return nil
    }

    private mutating func skipBlockComment() {
        inLiteral = true
        defer { inLiteral = false }
        var depth = 0
        while index < bytes.count {
            if startsWith("/*") {
                depth += 1
                advance(); advance()
            } else if startsWith("*/") {
                depth -= 1
                advance(); advance()
                if depth == 0 { return }
            } else {
                advance()
            }
        }
    }

    private func startsRawString() -> Bool {
        var offset = 0
        while peek(offset) == UInt8(ascii: "#") { offset += 1 }
        return peek(offset) == UInt8(ascii: "\"")
    }

    /// At `#*"` or `#*"""`: skips to the end of the literal or into an interpolation.
    private mutating func skipString() -> (String, Int, Int, Int)? {
        var hashes = 0
        while peek() == UInt8(ascii: "#") { hashes += 1; advance() }
        let multiline = startsWith("\"\"\"")
        for _ in 0..<(multiline ? 3 : 1) { advance() }
        return continueString(hashes: hashes, multiline: multiline)
    }

    /// Inside a string literal: skips to its end, or stops after `\(` (an interpolation is code).
    private mutating func continueString(hashes: Int, multiline: Bool) -> (String, Int, Int, Int)? {
        inLiteral = true
        defer { inLiteral = false }
        let quotes = multiline ? "\"\"\"" : "\""
        let close = quotes + String(repeating: "#", count: hashes)
        let escape = "\\" + String(repeating: "#", count: hashes)
        while index < bytes.count {
            if !multiline, bytes[index] == UInt8(ascii: "\n") { return nil }  // unterminated: back to code
            if startsWith(close) {
                for _ in close.utf8 { advance() }
                return nil
            }
            if startsWith(escape) {
                for _ in escape.utf8 { advance() }
                if peek() == UInt8(ascii: "(") {
                    advance()
                    open.append(.interpolation(hashes: hashes, multiline: multiline))
                    if open.count > SourceLimits.maximumNesting {
                        return ("brackets, braces and parentheses", SourceLimits.maximumNesting, line, column)
                    }
                    return nil
                }
                if index < bytes.count { advance() }
                continue
            }
            advance()
        }
        return nil
    }
}
