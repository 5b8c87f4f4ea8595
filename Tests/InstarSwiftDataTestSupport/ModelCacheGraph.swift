// An archived model (a store's Z_MODELCACHE) as comparable text, for the SwiftData tests and the CLI's.
import Foundation
import InstarModelIO

/// A model cache's object graph rendered as text, and where two renderings part.
package enum ModelCacheGraph {
    /// An archive's object graph as text: objects rendered from the root, each once (later references
    /// name it), dictionaries by key, sets by member; values the app computes at launch (a UUID or date
    /// default) shown by kind only; `NSClassNameForEntity`, set by framework 1345 and null from 1403 on,
    /// by presence only.
    package static func graph(_ data: Data) throws -> String {
        guard case .dictionary(let frame) = try PlistNode.parse(data), case .array(let objects)? = frame["$objects"],
            case .dictionary(let top)? = frame["$top"], case .uid(let root)? = top["root"]
        else { throw Failure.notAnArchive }
        var seen: Set<Int> = []
        func className(_ node: PlistNode) -> String? {
            guard case .dictionary(let fields) = node, case .uid(let c)? = fields["$class"],
                case .dictionary(let record) = objects[c], case .string(let name)? = record["$classname"]
            else { return nil }
            return name
        }
        func string(_ node: PlistNode?) -> String {
            if case .uid(let i)? = node, case .string(let s) = objects[i] { return s }
            return "?"
        }
        func label(_ index: Int) -> String {
            let node = objects[index]
            guard case .dictionary(let fields) = node, let name = className(node) else { return render(node) }
            let id = fields["NSEntityName"].map(string) ?? fields["NSPropertyName"].map(string) ?? fields["NSIndexName"].map(string) ?? ""
            return "@\(name)(\(id))"
        }
        func render(_ node: PlistNode, key: String = "") -> String {
            switch node {
            case .uid(let i): return i == 0 ? "null" : object(i, key: key)
            case .string(let s): return "\"\(s)\""
            case .integer(let n): return "\(n)"
            case .real(let r): return "\(r)"
            case .boolean(let b): return "\(b)"
            case .data(let d): return "<\(d.map { String(format: "%02x", $0) }.joined())>"
            case .array(let items): return "[" + items.map { render($0) }.joined(separator: ", ") + "]"
            case .dictionary(let d): return "{" + d.keys.sorted().map { "\($0): \(render(d[$0]!, key: $0))" }.joined(separator: ", ") + "}"
            default: return "?"
            }
        }
        func object(_ index: Int, key: String) -> String {
            let node = objects[index]
            guard case .dictionary(var fields) = node, let name = className(node) else { return render(node) }
            // Launch-evaluated values by kind, shared or not: equal dates are one object (NSDate's tagged
            // pointers: PegaseUIData's `Date().noon` defaults, and `Date()` ones evaluated in the same
            // microsecond), which depends on the app's timing, not on its schema.
            if name == "NSUUID" || name == "NSDate" { return "\(name)(<launch>)" }
            if !seen.insert(index).inserted { return label(index) }
            fields["$class"] = nil
            switch name {
            case "NSSet":
                guard case .array(let members)? = fields["NS.objects"] else { return "NSSet(?)" }
                let indices = members.compactMap { if case .uid(let i) = $0 { return i } else { return nil } }
                return "NSSet{" + indices.sorted { label($0) < label($1) }.map { object($0, key: "") }.joined(separator: ", ") + "}"
            case "NSDictionary", "NSMutableDictionary":
                guard case .array(let keys)? = fields["NS.keys"], case .array(let values)? = fields["NS.objects"] else { return "\(name)(?)" }
                let pairs = zip(keys.map { string($0) }, values).sorted { $0.0 < $1.0 }
                return "\(name){" + pairs.map { "\($0.0): \(render($0.1, key: $0.0))" }.joined(separator: ", ") + "}"
            default:
                if fields["NSClassNameForEntity"] != nil { fields["NSClassNameForEntity"] = .string("<framework-dependent>") }
                return "\(name){" + fields.keys.sorted().map { "\($0): \(render(fields[$0]!, key: $0))" }.joined(separator: ", ") + "}"
            }
        }
        return object(root, key: "")
    }

    package enum Failure: Error { case notAnArchive }

    /// Where two renderings part, with some context.
    package static func firstDifference(_ a: String, _ b: String) -> String {
        let (x, y) = (Array(a), Array(b))
        var i = 0
        while i < min(x.count, y.count), x[i] == y[i] { i += 1 }
        let from = max(0, i - 300)
        return "written …\(String(x[from..<min(x.count, i + 200)]))\n   real …\(String(y[from..<min(y.count, i + 200)]))"
    }
}
