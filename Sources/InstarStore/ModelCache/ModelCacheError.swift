import Foundation
import InstarModelIO

/// Why a store's cached model (`Z_MODELCACHE`) could not be read, with the facts found.
package struct ModelCacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    package enum Kind: Sendable, Hashable {
        /// The store has no `Z_MODELCACHE` table, or no row in it, or an empty `Z_CONTENT`: stores of
        /// Core Data before framework 600, and stores migrated by Instar before it wrote caches.
        case noCache
        /// `Z_CONTENT` is not a raw-DEFLATE stream (zlib's reason).
        case notDeflate(String)
        /// The inflated bytes are not a binary property list (they do not start with `bplist00`).
        case notAPropertyList(firstBytes: String)
        /// A binary property list, but not a keyed archive of a Core Data model (the reader's reason).
        case notAModelArchive(String)
        /// A keyed archive of a model without any entity.
        case noEntities(String)
        /// SQLite could not read the table.
        case sqlite(String)

        /// True when SQLite failed, rather than the cache being absent or damaged.
        package var isSQLite: Bool { if case .sqlite = self { true } else { false } }
    }

    /// What went wrong.
    package let kind: Kind
    /// The store file.
    package let path: String
    /// For ``Kind/notAModelArchive`` and ``Kind/noEntities``: the keyed-archive reader's reason as a
    /// value, when the archive itself is what is wrong (nil when the model inside is).
    package let archiveReason: KeyedArchiveError.Reason?

    package init(_ kind: Kind, path: String, archiveReason: KeyedArchiveError.Reason? = nil) {
        self.kind = kind
        self.path = path
        self.archiveReason = archiveReason
    }

    /// One line: where and what (a host adds how to give the model: the command line names `--model`).
    package var description: String {
        switch kind {
        case .noCache:
            "\(path): the store keeps no model of its own (no Z_MODELCACHE row); Core Data writes one from "
                + "framework 600 on (Instar too, when it migrates such a store): give the model the store was written with."
        case .notDeflate(let reason):
            "\(path): Z_MODELCACHE.Z_CONTENT is not raw DEFLATE (\(reason)); the cache is damaged"
        case .notAPropertyList(let bytes):
            "\(path): Z_MODELCACHE.Z_CONTENT inflates to bytes starting \(bytes), not a binary property list "
                + "(bplist00)."
        case .notAModelArchive(let reason):
            "\(path): Z_MODELCACHE.Z_CONTENT is not a compiled model: \(reason)."
        case .noEntities(let reason):
            "\(path): the cached model in Z_MODELCACHE has no entity: \(reason)."
        case .sqlite(let reason):
            "\(path): cannot read Z_MODELCACHE: \(reason)"
        }
    }
}
