import Foundation
@_spi(Layouts) import InstarModel

/// The checks every path Instar opens as a SQLite file goes through before SQLite sees it.
///
/// SQLite opens whatever it is given: a FIFO blocks the open until a writer comes, a link to
/// `/dev/zero` reads zeros for ever, and opening a 0-byte file with a `-wal` beside it deletes that
/// `-wal` (SQLite treats it as left over from a deleted database), even on a read-only connection.
/// These are refused here, with nothing opened, so that "nothing was changed" stays true.
package enum StoreFile {
    /// Throws unless `path` is a regular file (a symbolic link to one is fine) that SQLite may open
    /// without changing anything beside it. A missing file is ``StoreError/Kind/notFound``.
    /// - Parameter role: the part the file plays (a store, a backup, a fixture), for the refusal's words.
    package static func checkBeforeOpening(_ path: String, role: StoreError.FileRole) throws(StoreError) {
        switch FileKind.of(path) {
        case .regular: break
        case .missing: throw StoreError(.notFound, path: path, reason: .noFile(role))
        default: throw StoreError(.notARegularFile, path: path, reason: notARegularFile(path, role: role))
        }
        // SQLite opens these beside the file by name; one that is a FIFO or a device would block or never end.
        for suffix in ["-wal", "-shm", "-journal"] where FileKind.exists(path + suffix) {
            let kind = FileKind.of(path + suffix)
            if kind != .regular {
                throw StoreError(
                    .notARegularFile, path: path + suffix, reason: .sidecarNotARegularFile(suffix: suffix, role: role, kind: kind))
            }
        }
        let wal = path + "-wal"
        if fileSize(path) == 0, FileKind.exists(wal) {
            if let walSize = fileSize(wal), walSize > 0 {
                throw StoreError(.corrupt, path: path, reason: .emptyFileBesideWAL(walBytes: Int64(walSize)))
            }
        }
    }

    /// The facts of a refusal of `path`, which is not a regular file: what it is, and whether a
    /// symbolic link leads there.
    package static func notARegularFile(_ path: String, role: StoreError.FileRole) -> StoreError.Reason {
        let kind = FileKind.of(path)
        return .notARegularFile(role, kind, viaLink: kind != .danglingLink && FileKind.isSymbolicLink(path))
    }

    static func fileSize(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt64(info.st_size)
    }
}
