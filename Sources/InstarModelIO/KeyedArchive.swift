import Foundation

/// An `NSKeyedArchiver` object graph, read without unarchiving it: the one reader of keyed archives,
/// for compiled models (`.mom`) here and for mapping models' archived expressions and user info
/// (InstarMapping's `ExpressionArchive`).
///
/// `NSKeyedUnarchiver` would need the archived classes (Core Data's, absent on Linux) and trusts the
/// file it reads. This type instead keeps the flat `$objects` table of the property list and lets
/// callers follow one reference at a time, checking each: an index past the table, a reference where a
/// number belongs or a class record that is not one becomes a ``KeyedArchiveError`` naming the object
/// and key. Nothing is decoded recursively, so cycles (every Core Data property points back at its
/// entity) cannot loop and deep nesting cannot exhaust the stack. Every reference followed is counted,
/// across all copies of the archive and its objects: a reader led round the same objects again and
/// again (a million entries naming one entity) is refused at ``ArchiveLimits/decodedObjects``.
package struct KeyedArchive {
    /// References followed so far; shared by every copy of the archive (and the objects that hold one).
    final class DecodeCount {
        var followed = 0
    }
    /// The file the archive came from, for messages.
    package let file: String
    /// `$objects`: index 0 is always the `$null` marker.
    private let objects: [PlistNode]
    /// `$top.root`, the archived root object.
    package let rootReference: Int
    /// How many references readers of this archive have followed.
    let decodeCount = DecodeCount()
    /// The references followed so far, for tests that bound a reader's work.
    package var referencesFollowed: Int { decodeCount.followed }

    /// The only archive version NSKeyedArchiver has ever written.
    static let supportedVersion = 100_000

    /// Checks the archive frame (`$archiver`, `$version`, `$objects`, `$top.root`); objects are checked
    /// when they are reached.
    package init(data: Data, file: String) throws(KeyedArchiveError) {
        self.file = file
        let plist: PlistNode
        do {
            plist = try PlistNode.parse(data)
        } catch {
            throw KeyedArchiveError(file: file, error)
        }
        guard case .dictionary(let frame) = plist else {
            throw KeyedArchiveError(
                file: file, .notAKeyedArchive("the top level is \(plist.kindName), not a dictionary"))
        }
        guard let archiver = frame["$archiver"] else {
            throw KeyedArchiveError(file: file, .notAKeyedArchive("it has no $archiver"))
        }
        guard case .string(let archiverName) = archiver, archiverName == "NSKeyedArchiver" else {
            let name = if case .string(let text) = archiver { text } else { archiver.kindName }
            throw KeyedArchiveError(file: file, .unsupportedArchiver(name))
        }
        guard case .integer(let version)? = frame["$version"], version == Self.supportedVersion else {
            let found = frame["$version"].map { if case .integer(let v) = $0 { String(v) } else { $0.kindName } }
            throw KeyedArchiveError(file: file, .unsupportedVersion(found ?? "(none)"))
        }
        guard case .array(let objects)? = frame["$objects"], !objects.isEmpty else {
            throw KeyedArchiveError(file: file, .notAKeyedArchive("it has no $objects table"))
        }
        guard case .dictionary(let top)? = frame["$top"], case .uid(let root)? = top["root"] else {
            throw KeyedArchiveError(file: file, .notAKeyedArchive("$top has no root reference"))
        }
        self.objects = objects
        guard root > 0, root < objects.count else {
            throw KeyedArchiveError(
                file: file, .referenceOutOfRange(uid: root, objectCount: objects.count, referencedFrom: "$top.root"))
        }
        self.rootReference = root
    }

    /// The root object; it must be a class instance.
    package func root() throws(KeyedArchiveError) -> ArchivedObject {
        guard case .object(let object) = try value(at: rootReference, from: "$top.root") else {
            throw KeyedArchiveError(file: file, .malformed(at: "$top.root", problem: "is not an archived object"))
        }
        return object
    }

    /// The value stored at `$objects[uid]`; `from` names the referring object and key for messages.
    package func value(at uid: Int, from: String) throws(KeyedArchiveError) -> ArchivedValue {
        guard uid >= 0, uid < objects.count else {
            throw KeyedArchiveError(
                file: file, .referenceOutOfRange(uid: uid, objectCount: objects.count, referencedFrom: from))
        }
        if uid == 0 { return .null }
        decodeCount.followed += 1
        guard decodeCount.followed <= ArchiveLimits.decodedObjects else {
            throw KeyedArchiveError(
                file: file,
                .exceedsLimit(
                    ArchiveLimitPassed(.decodedObjects, found: decodeCount.followed, maximum: ArchiveLimits.decodedObjects)))
        }
        let node = objects[uid]
        if let scalar = node.scalar { return scalar }
        guard case .dictionary(let fields) = node else {
            throw KeyedArchiveError(
                file: file,
                .malformed(at: "$objects[\(uid)] (from \(from))", problem: "is \(node.kindName), not an archived object"))
        }
        guard case .uid(let classUID)? = fields["$class"] else {
            throw KeyedArchiveError(
                file: file, .malformed(at: "$objects[\(uid)] (from \(from))", problem: "is not an archived object"))
        }
        let classChain = try classNames(at: classUID, from: "$objects[\(uid)].$class")
        return .object(ArchivedObject(archive: self, index: uid, classChain: classChain, fields: fields))
    }

    /// `$classes` of the class record at `uid` (most derived first), or just its `$classname`.
    private func classNames(at uid: Int, from: String) throws(KeyedArchiveError) -> [String] {
        guard uid > 0, uid < objects.count else {
            throw KeyedArchiveError(
                file: file, .referenceOutOfRange(uid: uid, objectCount: objects.count, referencedFrom: from))
        }
        guard case .dictionary(let record) = objects[uid], case .string(let name)? = record["$classname"] else {
            throw KeyedArchiveError(file: file, .malformed(at: from, problem: "$objects[\(uid)] is not a class record"))
        }
        var chain: [String] = []
        if case .array(let classes)? = record["$classes"] {
            for item in classes { if case .string(let text) = item { chain.append(text) } }
        }
        return chain.first == name ? chain : [name] + chain
    }
}

/// A value reached through a reference, or stored inline in an object's fields.
package enum ArchivedValue {
    case null
    case string(String)
    case integer(Int)
    case real(Double)
    /// Seconds since 2001-01-01 00:00:00 UTC, from a property-list date.
    case date(Double)
    case boolean(Bool)
    case data(Data)
    case object(ArchivedObject)

    /// What the value is, for messages ("a string", "an NSSet").
    package var kindName: String {
        switch self {
        case .null: "$null"
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a real number"
        case .date: "a date"
        case .boolean: "a boolean"
        case .data: "data"
        case .object(let object): "an object of class \(object.className)"
        }
    }
}
