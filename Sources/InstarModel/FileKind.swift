import Foundation

/// What is at a path, asked of the file system without opening it.
///
/// Opening a FIFO blocks until a writer comes, reading a device such as `/dev/zero` never ends, and a
/// directory is no file to read; so every path Instar reads or writes as a file (stores, backups,
/// fixtures, model, plan and mapping files, outputs) is checked here first, with `lstat`/`stat`
/// only. This is the one place that tells the kinds apart.
package enum FileKind: Sendable, Equatable {
    /// Nothing there (or a component of the path is missing).
    case missing
    case regular
    case directory
    /// A named pipe.
    case fifo
    case characterDevice
    case blockDevice
    case socket
    /// A symbolic link whose target does not exist (only when links are followed).
    case danglingLink
    /// A path that cannot be examined (permissions on a folder above it, a loop of links).
    case unknown

    /// What is at `path`, following a symbolic link to its target.
    package static func of(_ path: String) -> FileKind {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT {
                var link = stat()
                return lstat(path, &link) == 0 ? .danglingLink : .missing
            }
            return errno == ENOTDIR ? .missing : .unknown
        }
        return kind(mode: info.st_mode)
    }

    /// True when `path` itself is a symbolic link (whatever it points at, if anything).
    package static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// True when anything, even a dangling symbolic link, is at `path`.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The file's device and inode (links followed), to tell whether two paths name the same file.
    package static func identity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    static func kind(mode: mode_t) -> FileKind {
        switch mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFIFO: .fifo
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        case S_IFSOCK: .socket
        default: .unknown
        }
    }

    /// The kind in words, with an article: "a FIFO (named pipe)".
    package var noun: String {
        switch self {
        case .missing: "nothing"
        case .regular: "a regular file"
        case .directory: "a directory"
        case .fifo: "a FIFO (named pipe)"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .danglingLink: "a symbolic link to nothing"
        case .unknown: "a path that cannot be examined"
        }
    }

    /// A sentence for a path that should be a regular file and is `kind`; nil when it is one (or
    /// missing, which callers report in their own words).
    package static func refusal(_ path: String, what: String) -> (kind: FileKind, message: String)? {
        let kind = FileKind.of(path)
        switch kind {
        case .regular, .missing: return nil
        default:
            let link = kind != .danglingLink && isSymbolicLink(path) ? "a symbolic link to " : ""
            return (kind, "\(link)\(kind.noun), not a regular file: \(what) must be a regular file; it was not opened")
        }
    }
}

/// A file's device and inode: two paths with the same identity are the same file.
package struct FileIdentity: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64
}

/// Reading a file that must be a regular file (a model, plan or mapping file), refusing anything else
/// before it is opened.
package enum RegularFile {
    /// The bytes of the regular file at `path` (a symbolic link to one is followed).
    package static func read(_ path: String) throws -> Data {
        if let refusal = FileKind.refusal(path, what: "the file") {
            throw NotARegularFile(path: path, kind: refusal.kind, message: refusal.message)
        }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// The text of the regular file at `path`, which must be UTF-8.
    package static func readText(_ path: String) throws -> String {
        let data = try read(path)
        guard let text = String(data: data, encoding: .utf8) else {
            throw CocoaError(.fileReadInapplicableStringEncoding, userInfo: [NSFilePathErrorKey: path])
        }
        return text
    }
}

/// A path that should be a regular file is a directory, a FIFO, a device or a socket.
package struct NotARegularFile: Error, LocalizedError, CustomStringConvertible {
    package var path: String
    package var kind: FileKind
    package var message: String
    package var description: String { message }
    package var errorDescription: String? { message }
}
