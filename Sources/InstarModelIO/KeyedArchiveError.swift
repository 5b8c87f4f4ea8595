/// Why a file could not be read as an `NSKeyedArchiver` object graph.
///
/// Compiled models come from apps, not from the user's own editor, so a bad one is most often truncated
/// by a copy, not hand-edited: each reason names the object and key concerned so that the report says
/// where the file breaks, not only that it does.
package struct KeyedArchiveError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Reason: Error, Sendable, Hashable, CustomStringConvertible {
        /// PropertyListSerialization refused the bytes (truncated, or not a property list at all).
        case notAPropertyList(String)
        /// A text property list nested `levels` deep, more than the `maximum` read (Foundation's reader
        /// recurses once per level), refused before Foundation sees it.
        case nestsTooDeep(levels: Int, maximum: Int)
        /// A well-formed property list or archive larger than a model can hold (``ArchiveLimits``):
        /// which bound it passed and the figure, found before the graph was built (or, for archived
        /// values followed, when the count passed the bound).
        case exceedsLimit(ArchiveLimitPassed)
        /// A property list, but without the `$archiver`/`$objects`/`$top` frame of a keyed archive.
        case notAKeyedArchive(String)
        /// `$archiver` names another archiver class.
        case unsupportedArchiver(String)
        /// `$version` is not the only version NSKeyedArchiver has ever written (100000).
        case unsupportedVersion(String)
        /// A reference points past the end of `$objects`.
        case referenceOutOfRange(uid: Int, objectCount: Int, referencedFrom: String)
        /// A value has the wrong shape: `at` names the object and key, `problem` what is wrong.
        case malformed(at: String, problem: String)
        /// A key the object must have is absent.
        case missingKey(at: String, key: String)
        /// A model archive without any entity (what `NSEntities` held instead): no real model is.
        case noEntities(at: String, found: EntitiesFound)

        package var description: String {
            switch self {
            case .notAPropertyList(let detail): "not a property list (\(detail))"
            case .nestsTooDeep(let levels, let maximum): "not a property list (it nests \(levels) levels deep, more than \(maximum))"
            case .exceedsLimit(let passed): "refused unread: \(passed)"
            case .notAKeyedArchive(let detail): "not a keyed archive: \(detail)"
            case .unsupportedArchiver(let name): "archived by '\(name)', not by NSKeyedArchiver"
            case .unsupportedVersion(let version): "unsupported keyed-archive version \(version) (expected 100000)"
            case .referenceOutOfRange(let uid, let count, let from):
                "\(from) refers to $objects[\(uid)], but the archive has only \(count) objects"
            case .malformed(let at, let problem): "\(at): \(problem)"
            case .missingKey(let at, let key): "\(at) has no \(key)"
            case .noEntities(let at, let found): "\(at): the model has no entity: \(found.description(root: at)); a Core Data model always has one"
            }
        }
    }

    /// What a model archive without entities holds where `NSEntities` should list them.
    package enum EntitiesFound: Sendable, Hashable {
        /// `NSEntities` is an object of `className` with no entity, and these keys.
        case emptyCollection(className: String, keys: [String])
        /// The root has no `NSEntities`; these are its keys.
        case noEntitiesKey(rootKeys: [String])

        func description(root: String) -> String {
            switch self {
            case .emptyCollection(let className, let keys):
                "NSEntities is an \(className) with no entity (its keys: \(keys.joined(separator: ", ")))"
            case .noEntitiesKey(let rootKeys):
                "the root \(root) has no NSEntities (its keys: \(rootKeys.joined(separator: ", ")))"
            }
        }
    }

    /// The file the archive was read from.
    package var file: String
    package var reason: Reason

    package init(file: String, _ reason: Reason) {
        self.file = file
        self.reason = reason
    }

    package var description: String { "\(file): \(reason)" }
}
