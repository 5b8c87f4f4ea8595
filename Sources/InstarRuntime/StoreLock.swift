import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a run is alive, as the kernel knows it: an exclusive `flock` on a file beside the store,
/// held for as long as a run may write.
///
/// A lease row alone cannot say whether its owner lives. `kill(pid, 0)` succeeds on a SIGKILLed
/// process its parent has not reaped yet (a zombie), so a killed run kept its store locked; on Apple
/// platforms it fails with `EPERM` on any other app's process and there is no start time to tell a
/// recycled pid, so any process that reused the pid locked an app's (or its extension's) store
/// until it ended. A `flock` ends with its process — the kernel closes a dying process's files
/// before it becomes a zombie — as SQLite's own locks do, and it is released on any exit, a crash
/// included. So on one host the lock is the truth and the lease row is the description (who, since
/// when) and the guard for other hosts (a store on a shared volume), where the heartbeat still rules.
///
/// The file is `<store>-instar-lock`, next to SQLite's `-journal` and `-wal`. It is removed when the
/// run releases the lock; a process that opened it just before that finds, once it has the lock,
/// that the path no longer names its file, and opens the new one.
final class StoreLock: @unchecked Sendable {
    /// The lock file's path.
    let path: String
    private var descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { release() }

    /// The lock file of the store at `store`: beside the file itself, whichever path names it (a
    /// symbolic link, a relative path, SQLite's own absolute name), so that every run finds one lock.
    static func path(forStore store: String) -> String {
        #if canImport(Glibc) || canImport(Darwin)
            if let resolved = realpath(store, nil) {
                defer { free(resolved) }
                return String(cString: resolved) + "-instar-lock"
            }
        #endif
        return URL(fileURLWithPath: store).standardizedFileURL.path + "-instar-lock"
    }

    /// What one try for the lock found.
    enum Attempt {
        /// Ours until ``release()``.
        case acquired(StoreLock)
        /// Another live run (of any process, this one included) holds it.
        case held
        /// No lock can be had here (the folder is read-only, or the system has no `flock`): runs are
        /// kept apart by the lease row alone, as before there was a lock.
        case unavailable(errno: Int32)
    }

    /// Tries once, without waiting.
    static func tryAcquire(store: String) -> Attempt {
        #if canImport(Glibc) || canImport(Darwin)
            let path = path(forStore: store)
            // A few rounds at most: each lost round means another run released and removed the file.
            for _ in 0..<16 {
                let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
                guard descriptor >= 0 else { return .unavailable(errno: errno) }
                if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                    let error = errno
                    close(descriptor)
                    return error == EWOULDBLOCK || error == EINTR ? .held : .unavailable(errno: error)
                }
                if namesSameFile(descriptor, path) {
                    Held.shared.insert(path)
                    return .acquired(StoreLock(path: path, descriptor: descriptor))
                }
                close(descriptor)  // released and removed after we opened it: the next file is the lock
            }
            return .held
        #else
            return .unavailable(errno: 0)
        #endif
    }

    /// Waits for the lock until `giveUp`, asking `shouldStop` between tries; `willWait` runs once,
    /// when the first try finds the lock held.
    static func acquire(store: String, until giveUp: Date, willWait: () -> Void = {}, shouldStop: () -> Bool) -> WaitOutcome {
        var waited = false
        while true {
            switch tryAcquire(store: store) {
            case .acquired(let lock): return .acquired(lock)
            case .unavailable: return .unavailable
            case .held:
                if !waited {
                    waited = true
                    willWait()
                }
                if shouldStop() { return .stopped }
                if Date() >= giveUp { return .timedOut }
                Thread.sleep(forTimeInterval: min(0.05, max(0.005, giveUp.timeIntervalSinceNow)))
            }
        }
    }

    /// What waiting for the lock came to.
    enum WaitOutcome {
        /// Ours until ``release()``.
        case acquired(StoreLock)
        /// No lock can be had here: the lease row alone keeps runs apart.
        case unavailable
        /// A stop was requested while waiting.
        case stopped
        /// Another run still held it when the wait ended.
        case timedOut
    }

    /// Whether a process other than this one holds the lock of the store at `store` now. A lease
    /// row that says its owner held the lock belongs to a dead owner when this is false: a live owner
    /// keeps the lock for as long as its row stands (it deletes the row before it lets the lock go).
    /// This process's own lock (another of its runs, or the asking run) is not another process's.
    static func isHeldByAnotherProcess(store: String) -> Bool {
        #if canImport(Glibc) || canImport(Darwin)
            let path = path(forStore: store)
            // `flock`s of one process on two descriptors exclude each other: a probe here would
            // mistake this process's own lock for another's.
            if Held.shared.contains(path) { return false }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return false }  // no file: nobody holds it
            defer { close(descriptor) }
            if flock(descriptor, LOCK_SH | LOCK_NB) != 0 { return errno == EWOULDBLOCK || errno == EINTR }
            _ = flock(descriptor, LOCK_UN)
            return false
        #else
            return false
        #endif
    }

    /// Removes the file and lets the lock go (the order matters: a run that opened the file before it
    /// was removed sees it no longer named by the path once it gets the lock).
    func release() {
        #if canImport(Glibc) || canImport(Darwin)
            guard descriptor >= 0 else { return }
            Held.shared.remove(path)
            unlink(path)
            close(descriptor)
            descriptor = -1
        #endif
    }

    #if canImport(Glibc) || canImport(Darwin)
        private static func namesSameFile(_ descriptor: Int32, _ path: String) -> Bool {
            var held = stat()
            var named = stat()
            guard fstat(descriptor, &held) == 0, stat(path, &named) == 0 else { return false }
            return held.st_dev == named.st_dev && held.st_ino == named.st_ino
        }
    #endif

    /// The lock files this process holds: `flock` locks of one process on two descriptors exclude
    /// each other, so a probe from this process would take its own lock for another's.
    private final class Held: @unchecked Sendable {
        static let shared = Held()
        private let lock = NSLock()
        private var paths: Set<String> = []

        func insert(_ path: String) { lock.withLock { _ = paths.insert(path) } }
        func remove(_ path: String) { lock.withLock { _ = paths.remove(path) } }
        func contains(_ path: String) -> Bool { lock.withLock { paths.contains(path) } }
    }
}
