import Foundation
import InstarModel

/// The checks every path Instar opens as a SQLite file goes through before SQLite sees it.
///
/// SQLite opens whatever it is given: a FIFO blocks the open until a writer comes, a link to
/// `/dev/zero` reads zeros for ever, and opening a 0-byte file with a `-wal` beside it deletes that
/// `-wal` (SQLite treats it as left over from a deleted database), even on a read-only connection.
/// These are refused here, with nothing opened, so that "nothing was changed" stays true.
package enum StoreFile {
    /// Throws unless `path` is a regular file (a symbolic link to one is fine) that SQLite may open
    /// without changing anything beside it. A missing file is ``StoreError/Kind/notFound``.
    /// - Parameter what: the role of the file in words ("a store", "a backup", "a fixture").
    package static func checkBeforeOpening(_ path: String, what: String) throws(StoreError) {
        if let refusal = FileKind.refusal(path, what: what) {
            throw StoreError(.notARegularFile, path: path, refusal.message)
        }
        guard FileKind.of(path) == .regular else {
            let noun = what.hasPrefix("a ") ? String(what.dropFirst(2)) : what
            throw StoreError(.notFound, path: path, "no such \(noun) file")
        }
        // SQLite opens these beside the file by name; one that is a FIFO or a device would block or never end.
        for suffix in ["-wal", "-shm", "-journal"] where FileKind.exists(path + suffix) {
            let kind = FileKind.of(path + suffix)
            if kind != .regular {
                throw StoreError(
                    .notARegularFile, path: path + suffix,
                    "the \(suffix) file beside \(what) is \(kind.noun), not a regular file; it was not opened")
            }
        }
        let wal = path + "-wal"
        if fileSize(path) == 0, FileKind.exists(wal) {
            if let walSize = fileSize(wal), walSize > 0 {
                throw StoreError(
                    .corrupt, path: path,
                    "the store file is empty (0 bytes) but its -wal file holds \(walSize) bytes: SQLite would delete that -wal "
                        + "on opening, so the store was not opened; nothing was changed",
                    hint: "the store file was truncated or replaced: restore a backup (the -wal alone cannot be read)")
            }
        }
    }

    static func fileSize(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt64(info.st_size)
    }
}
