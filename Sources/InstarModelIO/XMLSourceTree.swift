import Foundation
@_spi(Layouts) import InstarModel

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One XML element as written in a source file: its name, attributes, children, and where it starts.
///
/// The Xcode model reader works on this small immutable tree rather than on parser callbacks, so that
/// the interpretation of a `contents` file (``XcodeModelReader``) is plain Swift over value types and
/// the streaming parser, with its Linux quirks, stays confined to ``XMLSourceTree``. It is `package` so
/// that other readers of Xcode's XML files (the mapping-model reader) share one positioned parser.
package struct XMLSourceElement: Sendable {
    package var name: String
    package var attributes: [String: String]
    package var children: [XMLSourceElement]
    /// The character data directly inside the element (not its children's), unmodified. Model files
    /// carry everything in attributes; mapping models (`xcmapping.xml`) carry their values as text.
    package var text: String = ""
    /// The position of the element's `<`, so that problems point at the start of the tag.
    package var location: SourceLocation

    package subscript(attribute: String) -> String? { attributes[attribute] }

    /// Direct children with the given element name, in document order.
    package func children(named name: String) -> [XMLSourceElement] { children.filter { $0.name == name } }
}

/// Parses XML into an ``XMLSourceElement`` tree with source positions, failing on the first error.
///
/// Two things about FoundationXML on Linux shape this type (see `shared/notes/swift-on-linux.md`, trap 1):
/// * `XMLParser.parse()` returns `true` for many broken documents (mismatched tags, truncation, trailing
///   garbage) and keeps delivering callbacks in libxml2's recovery mode. A model built from a half-parsed
///   file would be silently wrong, so any `parseErrorOccurred` call or a non-nil `parserError` is a failure.
/// * The reported error has an empty `userInfo`: no message, no position. We record the parser's
///   `lineNumber`/`columnNumber` at the *first* error callback ourselves and phrase the message from the
///   libxml2 error code and the elements open at that moment.
package enum XMLSourceTree {
    /// The deepest element nesting read (libxml2's own default limit). Model and mapping files nest
    /// about ten levels; the tree is a nest of values whose destruction recurses once per level, so a
    /// generated file nested a few hundred thousand deep would otherwise overflow the stack.
    package static let maximumDepth = 256

    /// The error recorded when elements nest deeper than ``maximumDepth``.
    struct TooDeep: Error {}

    /// - Parameter emptyHint: what the caller's file should start with, for the error on an empty file.
    package static func parse(
        data: Data, file: String,
        emptyHint: String = "an Xcode model's 'contents' file starts with <?xml …?> and has a <model> root element"
    ) throws(ModelError) -> XMLSourceElement {
        let text = SourceText(data)
        if let offset = firstInvalidUTF8(in: data) {
            // FoundationXML traps on element and attribute names that are not UTF-8, before any
            // error callback: such a file must not reach the parser.
            let (line, column) = text.position(of: offset)
            let byte = "0x" + String(data[data.startIndex + offset], radix: 16)
            var problem = ModelProblem(
                .syntax, "the file is not valid UTF-8 (byte \(byte))",
                location: SourceLocation(file: file, line: line, column: column),
                hint: "Xcode writes these files in UTF-8: this one is damaged")
            problem.value = byte
            throw ModelError(problem)
        }
        let recorder = Recorder(file: file, text: text)
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = recorder
        let succeeded = parser.parse()

        let unreported = parser.parserError.map { Failure(error: $0, line: nil, column: nil, open: []) }
        if let failure = recorder.firstError ?? unreported {
            throw ModelError(problem(for: failure, file: file, text: text))
        }
        guard let root = recorder.root else {
            // libxml2 reports nothing at all for an empty or whitespace-only document.
            throw ModelError(
                ModelProblem(
                    .syntax, succeeded ? "the file contains no XML element" : "the file could not be parsed as XML",
                    location: SourceLocation(file: file, line: 1, column: 1),
                    hint: emptyHint))
        }
        return root
    }

    /// The offset of the first byte that is not valid UTF-8, for files that do not declare another
    /// encoding or start with a UTF-16/32 byte order mark (libxml2 converts those itself).
    static func firstInvalidUTF8(in data: Data) -> Int? {
        if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0, 0]) { return nil }
        let head = String(decoding: data.prefix(200), as: UTF8.self).lowercased()
        if let declared = head.range(of: "encoding=")?.upperBound,
            !head[declared...].dropFirst().hasPrefix("utf-8"), !head[declared...].dropFirst().hasPrefix("utf8")
        {
            return nil
        }
        // Over the bytes in place (a `Data` iterator costs a call per byte, a third of reading a large
        // bundle), and decoding only from the first non-ASCII byte: most model files are ASCII.
        return data.withUnsafeBytes { raw -> Int? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let firstNonASCII = bytes.firstIndex(where: { $0 >= 0x80 }) else { return nil }
            var parser = Unicode.UTF8.ForwardParser()
            var iterator = bytes[firstNonASCII...].makeIterator()
            var offset = firstNonASCII
            while true {
                switch parser.parseScalar(from: &iterator) {
                case .valid(let scalar): offset += scalar.count
                case .error: return offset
                case .emptyInput: return nil
                }
            }
        }
    }

    /// The first error seen, with the elements that were open when it happened (outermost first).
    struct Failure {
        var error: Error
        var line: Int?
        var column: Int?
        var open: [(name: String, line: Int?)]
    }

    private static func problem(for failure: Failure, file: String, text: SourceText) -> ModelProblem {
        let code = (failure.error as NSError).code
        let known = LibXML2Error(rawValue: code)
        var message = known?.message ?? "malformed XML"
        let innermost = failure.open.last
        let opened = { (element: (name: String, line: Int?)) in
            "<\(element.name)>" + (element.line.map { " (opened at line \($0))" } ?? "")
        }
        if failure.error is TooDeep {
            return ModelProblem(
                .syntax, "elements nest deeper than \(maximumDepth) levels" + (innermost.map { ", inside \(opened($0))" } ?? ""),
                location: SourceLocation(file: file, line: failure.line, column: failure.column),
                hint: "Xcode's model and mapping files nest about ten levels: this file is damaged or generated")
        }
        switch known {
        case .tagNameMismatch?:
            if let innermost { message = "closing tag does not match \(opened(innermost))" }
        case .documentEnd?:
            if let innermost {
                message = "the file ends before \(opened(innermost)) is closed"
            } else {
                message = "extra content after the end of the root element"
            }
        default:
            if let innermost { message += ", inside \(opened(innermost))" }
        }
        var hint = "the file is not well-formed XML (libxml2 error \(code))"
        if let conflict = text.lineStarting(with: "<<<<<<<") {
            hint = "line \(conflict) starts with '<<<<<<<': resolve the version-control merge conflict in this file"
        }
        return ModelProblem(
            .syntax, message, location: SourceLocation(file: file, line: failure.line, column: failure.column),
            hint: hint)
    }

    /// The libxml2 `xmlParserErrors` codes that broken or hand-edited model files produce.
    ///
    /// `NSError.code` from XMLParser is libxml2's code on Linux and on Apple platforms alike. We do not
    /// use `XMLParser.ErrorCode`: in swift-corelibs-foundation its raw values are shifted (its
    /// `tagNameMismatchError` is 74, libxml2's mismatch is 76), so matching against it picks wrong messages.
    enum LibXML2Error: Int {
        case documentStart = 3, documentEmpty = 4, documentEnd = 5
        case invalidHexCharRef = 6, invalidDecCharRef = 7, invalidCharRef = 8, invalidChar = 9
        case entityRefNoName = 22, entityRefSemicolonMissing = 23, undeclaredEntity = 26
        case unknownEncoding = 31, unsupportedEncoding = 32
        case ltInAttribute = 38, attributeNotStarted = 39, attributeNotFinished = 40, attributeWithoutValue = 41
        case attributeRedefined = 42, commentNotFinished = 45, xmlDeclNotFinished = 57
        case spaceRequired = 65, nameRequired = 68, ltRequired = 72, gtRequired = 73, ltSlashRequired = 74
        case equalRequired = 75, tagNameMismatch = 76, tagNotFinished = 77

        var message: String {
            switch self {
            case .documentStart: "the document does not start with XML"
            case .documentEmpty: "the document is empty"
            case .documentEnd: "unexpected content or end of the document"
            case .invalidHexCharRef, .invalidDecCharRef, .invalidCharRef: "invalid character reference"
            case .invalidChar: "invalid character"
            case .entityRefNoName, .nameRequired:
                "a name was expected (an unescaped '&' or '<'? write '&amp;' or '&lt;')"
            case .entityRefSemicolonMissing: "an entity reference is missing its ';' (write '&amp;' for a literal '&')"
            case .undeclaredEntity: "unknown entity reference (write '&amp;' for a literal '&')"
            case .unknownEncoding, .unsupportedEncoding: "unknown or unsupported text encoding"
            case .ltInAttribute: "'<' inside an attribute value (write '&lt;')"
            case .attributeNotStarted: "an attribute value must start with a quote"
            case .attributeNotFinished: "an attribute value is not closed (missing quote?)"
            case .attributeWithoutValue: "an attribute has no value"
            case .attributeRedefined: "the same attribute appears twice in one tag"
            case .commentNotFinished: "a comment is not closed"
            case .xmlDeclNotFinished: "the <?xml …?> declaration is not closed"
            case .spaceRequired: "a space was expected between attributes"
            case .ltRequired: "'<' expected"
            case .gtRequired: "'>' expected: a tag is not closed"
            case .ltSlashRequired: "'</' expected"
            case .equalRequired: "'=' expected after an attribute name"
            case .tagNameMismatch: "closing tag does not match the open element"
            case .tagNotFinished: "the document ends inside a tag"
            }
        }
    }

    /// Receives parser callbacks and builds the tree. Confined to one `parse` call on one thread.
    private final class Recorder: NSObject, XMLParserDelegate {
        let file: String
        let text: SourceText
        var stack: [XMLSourceElement] = []
        var root: XMLSourceElement?
        var firstError: Failure?

        init(file: String, text: SourceText) {
            self.file = file
            self.text = text
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            guard firstError == nil else { return }
            let (line, column) = text.tagStart(
                name: elementName, reportedLine: parser.lineNumber, reportedColumn: parser.columnNumber)
            guard stack.count < XMLSourceTree.maximumDepth else {
                firstError = Failure(
                    error: TooDeep(), line: line, column: column, open: stack.suffix(1).map { ($0.name, $0.location.line) })
                parser.abortParsing()
                return
            }
            stack.append(
                XMLSourceElement(
                    name: elementName, attributes: attributes, children: [],
                    location: SourceLocation(file: file, line: line, column: column)))
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
        ) {
            guard firstError == nil, let element = stack.popLast() else { return }
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard firstError == nil, !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            guard firstError == nil, !stack.isEmpty else { return }
            stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            guard firstError == nil else { return }
            firstError = Failure(
                error: parseError, line: parser.lineNumber, column: parser.columnNumber,
                open: stack.map { ($0.name, $0.location.line) })
        }

        func parser(_ parser: XMLParser, validationErrorOccurred validationError: Error) {
            self.parser(parser, parseErrorOccurred: validationError)
        }
    }
}

/// The raw bytes of a source file with a line index, to turn parser positions into tag starts.
///
/// libxml2 reports an element when it has read the whole start tag, so `lineNumber`/`columnNumber` point
/// at the tag's closing `>` (or at `/` of `/>`), on the tag's *last* line. Errors are far more useful when
/// they point at the `<`, where a reader's eye and an editor's cursor go. Attribute values cannot contain
/// a raw `<`, so the nearest `<` before the reported position is the start of the tag; we check that the
/// element name follows it and otherwise keep libxml2's position.
///
/// Positions follow libxml2's conventions, which we measured: lines are 1-based and broken at LF, CRLF
/// or a lone CR; columns are 1-based and count characters (UTF-8 sequences), not bytes; a leading byte
/// order mark is not counted.
///
/// Every conversion is a binary search over precomputed columns: walking from the line start instead
/// made each element cost the length of its line, quadratic for a generated file with thousands of
/// elements on one line.
struct SourceText: Sendable {
    private let bytes: [UInt8]
    /// Byte offset at which each line starts; `lineStarts[0]` is line 1.
    private let lineStarts: [Int]
    /// The 1-based character column of each byte within its line (continuation bytes share their
    /// character's column), so columns rise with offsets inside a line.
    private let columns: [UInt32]

    init(_ data: Data) {
        bytes = [UInt8](data)
        let first = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var starts = [first]
        var columns = [UInt32](repeating: 0, count: bytes.count)
        var column: UInt32 = 0
        var i = first
        while i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 { column &+= 1 }
            columns[i] = column
            switch bytes[i] {
            case UInt8(ascii: "\n"):
                starts.append(i + 1)
                column = 0
            case UInt8(ascii: "\r"):
                if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\n") {
                    i += 1
                    columns[i] = column
                }
                starts.append(i + 1)
                column = 0
            default: break
            }
            i += 1
        }
        lineStarts = starts
        self.columns = columns
    }

    /// Line and column of the `<` that opens the element libxml2 reported at the given position.
    func tagStart(name: String, reportedLine: Int, reportedColumn: Int) -> (line: Int, column: Int) {
        guard let reported = offset(line: reportedLine, column: reportedColumn) else {
            return (reportedLine, reportedColumn)
        }
        var i = min(reported, bytes.count - 1)
        while i >= 0, bytes[i] != UInt8(ascii: "<") { i -= 1 }
        let nameBytes = Array(name.utf8)
        guard i >= 0, i + nameBytes.count < bytes.count,
            Array(bytes[(i + 1)...(i + nameBytes.count)]) == nameBytes
        else { return (reportedLine, reportedColumn) }
        return position(of: i)
    }

    /// The 1-based number of the first line that starts with `prefix`, if any.
    func lineStarting(with prefix: String) -> Int? {
        let p = Array(prefix.utf8)
        return lineStarts.firstIndex { start in
            start + p.count <= bytes.count && Array(bytes[start..<(start + p.count)]) == p
        }.map { $0 + 1 }
    }

    /// Byte offset of a 1-based (line, character column) position, clamped to the line's end.
    private func offset(line: Int, column: Int) -> Int? {
        guard line >= 1, line <= lineStarts.count, column >= 1 else { return nil }
        let start = lineStarts[line - 1]
        let end = line < lineStarts.count ? lineStarts[line] : bytes.count
        // The first byte of the line whose column is `column` or more.
        var low = start, high = end
        while low < high {
            let mid = (low + high) / 2
            if Int(columns[mid]) < column { low = mid + 1 } else { high = mid }
        }
        return min(low, max(end - 1, start))
    }

    func position(of offset: Int) -> (line: Int, column: Int) {
        // The last line start at or before `offset`.
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        guard offset > lineStarts[low], offset <= bytes.count else { return (low + 1, 1) }
        // The column of the character before `offset`, plus one: `offset` is where a character starts.
        return (low + 1, Int(columns[offset - 1]) + 1)
    }
}
