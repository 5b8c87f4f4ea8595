import Foundation

/// Property lists from files and stores, read without trusting them.
///
/// `PropertyListSerialization` on Linux crashes on some corrupted binary property lists (a bad pointer
/// while bridging) and recurses once per nesting level of XML and OpenStep ones, so a few kilobytes of
/// `<array>` tags exhaust the stack. Core Data's `Z_METADATA.Z_PLIST` comes from whatever store the
/// user points at: this reads it through the checked binary reader (``BinaryPropertyList``) and
/// refuses text property lists nested deeper than ``BinaryPropertyList/maximumDepth`` before
/// Foundation sees them; only bytes the checked reader accepted go to Foundation.
package enum CheckedPropertyList {
    /// The top-level value of `data`, as `PropertyListSerialization` returns it (the same Foundation
    /// types as before this check), once the checked reader has accepted the bytes. Keyed-archive
    /// references (UIDs), which only archives hold and where Foundation's bridging crashed, are refused.
    package static func foundationValue(_ data: Data) throws(KeyedArchiveError.Reason) -> Any {
        let node = try PlistNode.parse(data)
        guard !containsReference(node) else {
            throw .notAPropertyList("it holds keyed-archive references (UIDs), which only archives have")
        }
        do {
            return try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw .notAPropertyList(error.localizedDescription)
        }
    }

    /// Whether a UID occurs anywhere in `node` (nesting is bounded by the reader).
    private static func containsReference(_ node: PlistNode) -> Bool {
        switch node {
        case .uid: true
        case .array(let items): items.contains(where: containsReference)
        case .dictionary(let entries): entries.values.contains(where: containsReference)
        default: false
        }
    }

    /// The deepest nesting of a text (XML or OpenStep) property list, counted without parsing: XML
    /// elements opened and not closed, or `(`/`{` brackets outside quotes. An over-estimate only when
    /// odd text sits in strings, which real property lists of that depth do not have.
    static func textNesting(_ data: Data) -> Int {
        let bytes = [UInt8](data)
        let isXML = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 && $0 != 0xEF } == UInt8(ascii: "<")
        var depth = 0
        var deepest = 0
        var quoted = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if isXML, byte == UInt8(ascii: "<"), index + 1 < bytes.count {
                let next = bytes[index + 1]
                if next == UInt8(ascii: "/") {
                    depth -= 1
                } else if (next >= 0x41 && next <= 0x5A) || (next >= 0x61 && next <= 0x7A) {
                    var end = index + 1
                    while end < bytes.count, bytes[end] != UInt8(ascii: ">") { end += 1 }
                    if end < bytes.count, bytes[end - 1] != UInt8(ascii: "/") { depth += 1 }
                    index = end
                }
            } else if !isXML {
                if byte == UInt8(ascii: "\"") {
                    quoted.toggle()
                } else if !quoted, byte == UInt8(ascii: "(") || byte == UInt8(ascii: "{") {
                    depth += 1
                } else if !quoted, byte == UInt8(ascii: ")") || byte == UInt8(ascii: "}") {
                    depth -= 1
                }
            }
            deepest = max(deepest, depth)
            index += 1
        }
        return deepest
    }
}
