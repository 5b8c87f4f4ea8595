import Foundation
@_spi(Layouts) import InstarModel
import InstarModelIO
import Yams

/// What a release means to do that would otherwise look like a mistake: values it drops on purpose,
/// and properties whose meaning changes on purpose (a changed version hash modifier).
///
/// Tools that judge a migration by its statements cannot tell a deliberate drop from values lost by a
/// rename done as drop + add; the user can, once, in a small file kept beside the plan or model
/// (`instar-intent.yaml`), so that the release check fails only on what nobody declared:
///
/// ```yaml
/// - drop: Track.legacyCode
///   reason: codes were never shown since 2.0
/// - drop: Playlist            # a whole entity
/// - meaning: Track.duration
///   reason: seconds now, milliseconds before; the app converts on read
/// ```
public struct ChangeIntent: Sendable, Hashable {
    /// One declared change.
    public struct Entry: Sendable, Hashable, Codable {
        /// What is declared.
        public enum Kind: String, Sendable, Hashable, Codable {
            /// The values (or rows, for an entity) are dropped on purpose.
            case drop
            /// The property's (or entity's) meaning changes on purpose: its version hash modifier changes.
            case meaning
        }

        /// What is declared.
        public var kind: Kind
        /// `Entity.property` or `Entity`, by either version's names.
        public var subject: String
        /// Why, in the user's words, when given.
        public var reason: String?
        /// Where the entry is declared.
        public var location: SourceLocation?

        /// Declares a change.
        public init(_ kind: Kind, _ subject: String, reason: String? = nil, location: SourceLocation? = nil) {
            self.kind = kind
            self.subject = subject
            self.reason = reason
            self.location = location
        }
    }

    /// The file's name when it is found beside a plan, a model bundle or SwiftData sources.
    public static let fileName = "instar-intent.yaml"

    /// The declared changes, in the file's order.
    public var entries: [Entry]
    /// The file they were read from, when they were.
    public var file: String?

    /// Declares the given changes.
    public init(entries: [Entry] = [], file: String? = nil) {
        self.entries = entries
        self.file = file
    }

    /// The entry declaring `kind` for `entity` (or `entity.property`); a whole entity's drop covers its
    /// properties too.
    package func entry(_ kind: Entry.Kind, entity: String, property: String?) -> Entry? {
        let exact = property.map { "\(entity).\($0)" } ?? entity
        return entries.first { $0.kind == kind && ($0.subject == exact || (kind == .drop && $0.subject == entity)) }
    }

    /// The intent file beside `input` (a plan file, a model bundle, a folder of sources): in the folder
    /// itself when `input` is one, else in the folder that holds it; nil when there is none.
    package static func besides(_ input: String) -> String? {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: input, isDirectory: &isFolder)
        let url = URL(fileURLWithPath: input)
        var folders = [url.deletingLastPathComponent()]
        // A bundle (`App.xcdatamodeld`) is a folder, but the file sits beside it, as it does beside a plan.
        if exists, isFolder.boolValue, !["xcdatamodeld", "momd", "xcdatamodel"].contains(url.pathExtension) {
            folders.insert(url, at: 0)
        }
        return folders.map { $0.appendingPathComponent(fileName).path }.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Reads an intent file: a list of `drop:` / `meaning:` entries, each with an optional `reason:`.
    /// Every problem is reported with its `file:line:column`.
    public static func read(path: String) throws(ModelError) -> ChangeIntent {
        let source = try YAMLSource.load(path: path)
        var walker = YAMLWalker(source: source)
        var entries: [Entry] = []
        let items = source.root.sequence.map(Array.init) ?? []
        if source.root.sequence == nil {
            walker.report(.syntax, "an intent file is a list of entries (- drop: Entity.attribute)", at: source.root)
        }
        for item in items {
            let pairs = walker.pairs(item, what: "an intent entry")
            var kind: Entry.Kind?
            var subject: String?
            var reason: String?
            for pair in pairs {
                switch pair.key {
                case "drop", "meaning":
                    if kind != nil { walker.report(.syntax, "an entry declares one of drop: and meaning:", at: pair.keyNode) }
                    kind = Entry.Kind(rawValue: pair.key)
                    subject = walker.string(pair.value, what: "'\(pair.key)' (Entity or Entity.property)")
                case "reason":
                    reason = walker.string(pair.value, what: "'reason'")
                default:
                    walker.report(
                        .syntax, "unknown key '\(pair.key)' in an intent entry", at: pair.keyNode,
                        hint: "an entry has drop: or meaning:, and an optional reason:")
                }
            }
            guard !pairs.isEmpty else { continue }
            guard let kind, let subject, !subject.isEmpty else {
                walker.report(.syntax, "an intent entry needs drop: or meaning: with Entity or Entity.property", at: item)
                continue
            }
            entries.append(Entry(kind, subject, reason: reason, location: source.location(of: item)))
        }
        if !walker.problems.isEmpty { throw ModelError(walker.problems) }
        return ChangeIntent(entries: entries, file: path)
    }
}
